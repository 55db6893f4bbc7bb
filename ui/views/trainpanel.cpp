// SPDX-License-Identifier: MIT
#include "ui/views/trainpanel.h"

#include "core/encodingregistry.h"
#include "core/train/model.h"
#include "ui/figures/computation.h"
#include "ui/render/figuretitle.h"

#include <QAction>
#include <QComboBox>
#include <QEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QThread>
#include <QToolButton>

#include <algorithm>

namespace poslab::ui {

using core::train::Progress;
using core::train::RunResult;
using core::train::TrainConfig;

QStringList TrainPanel::teachingSchemes()
{
    return {QStringLiteral("nope"), QStringLiteral("rope"), QStringLiteral("alibi"), QStringLiteral("t5")};
}

TrainPanel::TrainPanel(WorkbenchState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
{
    setObjectName(QStringLiteral("trainPanel"));
    m_pool.setMaxThreadCount(std::max(1, QThread::idealThreadCount()));
    auto* lay = new QHBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);

    buildSchemeMenu();

    buildSettings();
    buildMeasure();
    m_start = new QPushButton(tr("Train"), this);
    m_start->setObjectName(QStringLiteral("trainStart"));
    m_stop = new QPushButton(tr("Cancel"), this);
    m_stop->setObjectName(QStringLiteral("trainCancel"));
    m_saveButton = new QPushButton(tr("Save runs\u2026"), this);
    m_saveButton->setObjectName(QStringLiteral("trainSave"));
    m_saveButton->setToolTip(tr("Write the runs as a run file (the format of poslab train -o)"));
    m_progressBox = new QWidget(this);
    m_progressBox->setObjectName(QStringLiteral("trainProgress"));
    m_progressLayout = new QHBoxLayout(m_progressBox);
    m_progressLayout->setContentsMargins(0, 0, 0, 0);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("trainStatus"));
    m_status->setWordWrap(false);
    for (QWidget* w :
         std::initializer_list<QWidget*>{m_schemes, m_task, m_trainLen, m_steps, m_seed, m_seeds, m_samples, m_measure,
                                         m_start, m_stop, m_saveButton, m_progressBox, m_status})
        lay->addWidget(w);

    connect(m_start, &QPushButton::clicked, this, &TrainPanel::train);
    connect(m_stop, &QPushButton::clicked, this, &TrainPanel::cancel);
    connect(m_saveButton, &QPushButton::clicked, this, &TrainPanel::save);
    m_publish.setSingleShot(true);
    m_publish.setInterval(100); // ten updates a second at most
    connect(&m_publish, &QTimer::timeout, this, &TrainPanel::publish);
    syncControls();
}

void TrainPanel::buildSchemeMenu()
{
    // Schemes: one checkable entry per trainable scheme, in the registry's order.
    m_schemes = new QToolButton(this);
    m_schemes->setObjectName(QStringLiteral("trainSchemes"));
    m_schemes->setPopupMode(QToolButton::InstantPopup);
    m_schemes->setToolTip(tr("The schemes to train side by side, one run per scheme and seed"));
    auto* menu = new QMenu(m_schemes);
    const QStringList teaching = teachingSchemes();
    for (const std::string& id : core::train::trainableSchemes()) {
        const core::SchemeDescriptor* s = core::findScheme(id);
        auto* a = menu->addAction(s ? shortSchemeName(*s) : QString::fromStdString(id));
        a->setObjectName(QStringLiteral("trainScheme_") + QString::fromStdString(id));
        a->setData(QString::fromStdString(id));
        a->setCheckable(true);
        a->setChecked(teaching.contains(QString::fromStdString(id)));
        connect(a, &QAction::toggled, this, &TrainPanel::syncControls);
        m_schemeActions.push_back(a);
    }
    m_schemes->setMenu(menu);
}

void TrainPanel::buildSettings()
{
    const TrainConfig defaults;
    m_task = new QComboBox(this);
    m_task->setObjectName(QStringLiteral("trainTask"));
    for (core::train::Task t : {core::train::Task::Copy, core::train::Task::Reverse, core::train::Task::Recall,
                                core::train::Task::Addition}) {
        m_task->addItem(QString::fromStdString(std::string(core::train::taskName(t))), int(t));
        m_task->setItemData(m_task->count() - 1, QString::fromStdString(core::train::taskDescription(t)),
                            Qt::ToolTipRole);
    }
    auto spin = [this](const char* name, const QString& prefix, int lo, int hi, int value, const QString& tip) {
        auto* b = new QSpinBox(this);
        b->setObjectName(QLatin1String(name));
        b->setPrefix(prefix);
        b->setRange(lo, hi);
        b->setValue(value);
        b->setToolTip(tip);
        return b;
    };
    m_trainLen = spin("trainLength", tr("L train "), 1, 64, defaults.trainLen,
                      tr("Longest task length trained on; the test lengths are 1 to 8 times it"));
    m_steps = spin("trainSteps", tr("steps "), 1, 100000, defaults.steps,
                   tr("AdamW steps per run; the learning rate is annealed to 0 over them (cosine schedule)"));
    m_steps->setSingleStep(100);
    m_seed = spin("trainSeed", tr("seed "), 0, 1000000, int(defaults.seed), tr("The first seed"));
    m_seeds = spin("trainSeeds", tr("\u00d7 "), 1, 10, 1, tr("Seeds per scheme: seed, seed + 1, ..."));
    m_samples
        = spin("trainSamples", tr("eval "), 1, 4096, defaults.evalSamples, tr("Sequences evaluated per test length"));
}

void TrainPanel::buildMeasure()
{
    // The plotted measure (the view option length_metric), a toggle beside the training settings.
    m_measure = new QComboBox(this);
    m_measure->setObjectName(QStringLiteral("trainMeasure"));
    m_measure->addItem(tr("exact match"), QStringLiteral("exact_match"));
    m_measure->addItem(tr("token accuracy"), QStringLiteral("token_accuracy"));
    m_measure->addItem(tr("loss"), QStringLiteral("loss"));
    m_measure->setToolTip(tr("What the figure plots against length: exact match (sequences with every answer token "
                             "right), token accuracy (answer tokens right) or the answer tokens' cross-entropy"));
    m_measure->setCurrentIndex(int(m_state->viewOptions().lengthMetric));
    connect(m_measure, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (i >= 0 && i != int(m_state->viewOptions().lengthMetric))
            m_state->setProperty(QStringLiteral("length_metric"), m_measure->itemData(i).toString());
    });
    connect(m_state, &WorkbenchState::viewOptionsChanged, this, [this] {
        const int i = int(m_state->viewOptions().lengthMetric);
        if (m_measure->currentIndex() != i)
            m_measure->setCurrentIndex(i);
    });
}

TrainPanel::~TrainPanel()
{
    m_cancel = true;
    m_pool.waitForDone();
}

void TrainPanel::setMaxParallel(int n)
{
    m_pool.setMaxThreadCount(std::max(1, n));
}

std::vector<TrainConfig> TrainPanel::configs() const
{
    std::vector<TrainConfig> out;
    for (QAction* a : m_schemeActions) {
        if (!a->isChecked())
            continue;
        for (int k = 0; k < m_seeds->value(); ++k) {
            TrainConfig c;
            c.scheme = a->data().toString().toStdString();
            c.task = core::train::Task(m_task->currentData().toInt());
            c.trainLen = m_trainLen->value();
            c.steps = m_steps->value();
            c.seed = std::uint64_t(m_seed->value() + k);
            c.evalSamples = m_samples->value();
            // A preview of accuracy against length twenty times a run (every 10 steps at least), from 32 sequences.
            c.curveEvery = std::max(10, c.steps / 20);
            c.curveSamples = std::min(32, c.evalSamples);
            out.push_back(c);
        }
    }
    return out;
}

QString TrainPanel::runName(int run) const
{
    const TrainConfig& c = m_live.runs[std::size_t(run)].config;
    const core::SchemeDescriptor* s = core::findScheme(c.scheme);
    const QString name = s ? shortSchemeName(*s) : QString::fromStdString(c.scheme);
    return m_seeds->value() > 1 ? tr("%1 s%2").arg(name).arg(c.seed) : name;
}

void TrainPanel::train()
{
    if (m_running)
        return;
    std::vector<TrainConfig> runs = configs();
    if (runs.empty()) {
        m_status->setText(tr("Check at least one scheme to train."));
        return;
    }
    // Refuse bad settings before any thread starts: one line naming the problem.
    for (const TrainConfig& c : runs) {
        try {
            TrainConfig v = c;
            if (v.testLens.empty())
                for (int k = 1; k <= 8; ++k)
                    v.testLens.push_back(k * v.trainLen);
            core::train::validate(v);
        } catch (const std::exception& e) {
            m_status->setText(QString::fromStdString(e.what()));
            return;
        }
    }
    const int cores = std::max(1, QThread::idealThreadCount());
    const int parallel = std::min(int(runs.size()), m_pool.maxThreadCount());
    ++m_generation;
    m_cancel = false;
    m_running = true;
    m_pending = int(runs.size());
    m_live = TrainedRuns();
    m_live.running = true;
    m_live.models = m_state->trainedRuns() ? m_state->trainedRuns()->models + 1 : 1;
    for (TrainConfig& c : runs) {
        c.threads = std::max(1, cores / std::max(1, parallel)); // the numbers do not depend on it
        RunResult r;
        r.config = c;
        m_live.runs.push_back(r);
        m_live.progress.push_back(0.0);
    }
    // The view draws the window's runs while run_file is empty.
    if (!m_state->viewOptions().runFile.isEmpty())
        m_state->setProperty(QStringLiteral("run_file"), QString());
    for (QProgressBar* b : m_bars)
        delete b;
    m_bars.clear();
    for (int i = 0; i < int(runs.size()); ++i) {
        auto* bar = new QProgressBar(m_progressBox);
        bar->setObjectName(QStringLiteral("trainProgress%1").arg(i));
        bar->setRange(0, 1000);
        bar->setValue(0);
        bar->setFormat(tr("%1 %p%").arg(runName(i)));
        m_progressLayout->addWidget(bar);
        m_bars.push_back(bar);
    }
    m_status->setText(tr("Training %n run(s)\u2026", nullptr, int(runs.size())));
    const quint64 gen = m_generation;
    for (int i = 0; i < int(runs.size()); ++i) {
        const TrainConfig c = runs[std::size_t(i)];
        m_pool.start([this, c, i, gen] {
            try {
                RunResult r = core::train::trainRun(
                    c,
                    [this, i, gen](const Progress& p) {
                        QMetaObject::invokeMethod(
                            this, [this, i, gen, p] { onProgress(gen, i, p); }, Qt::QueuedConnection);
                    },
                    &m_cancel);
                QMetaObject::invokeMethod(
                    this, [this, i, gen, r = std::move(r)] { onDone(gen, i, r); }, Qt::QueuedConnection);
            } catch (const std::exception& e) {
                const QString msg = QString::fromStdString(e.what());
                QMetaObject::invokeMethod(
                    this, [this, i, gen, msg] { onFailed(gen, i, msg); }, Qt::QueuedConnection);
            }
        });
    }
    syncControls();
    publish();
}

void TrainPanel::changeEvent(QEvent* e)
{
    QWidget::changeEvent(e);
    if (e->type() == QEvent::FontChange)
        syncControls(); // widths follow the font (lecture mode)
}

void TrainPanel::cancel()
{
    if (!m_running)
        return;
    m_cancel = true;
    m_status->setText(tr("Cancelling\u2026"));
}

void TrainPanel::onProgress(quint64 generation, int run, const Progress& p)
{
    if (generation != m_generation)
        return;
    RunResult& r = m_live.runs[std::size_t(run)];
    r.loss.push_back({p.step, p.seconds, p.loss});
    if (p.exactAtTrain)
        r.checks.push_back({p.step, p.seconds, *p.exactAtTrain});
    if (!p.lengths.empty())
        r.lengths = p.lengths;
    r.stepsDone = p.step;
    m_live.progress[std::size_t(run)] = p.steps > 0 ? double(p.step) / p.steps : 1.0;
    schedulePublish();
}

void TrainPanel::onDone(quint64 generation, int run, const RunResult& r)
{
    if (generation != m_generation)
        return;
    m_live.runs[std::size_t(run)] = r; // core's result: what a run file of it holds, and the model
    // A cancelled or diverged run shows how far it got.
    m_live.progress[std::size_t(run)]
        = r.stop == "cancelled" || r.diverged ? double(r.stepsDone) / std::max(1, r.config.steps) : 1.0;
    ++m_live.models;
    if (r.diverged)
        m_live.message = tr("%1: %2").arg(runName(run), QString::fromStdString(r.stop));
    runEnded();
}

void TrainPanel::onFailed(quint64 generation, int run, const QString& message)
{
    if (generation != m_generation)
        return;
    m_live.message = tr("%1: %2").arg(runName(run), message);
    m_live.runs[std::size_t(run)].stop = message.toStdString();
    runEnded();
}

void TrainPanel::runEnded()
{
    if (--m_pending > 0) {
        schedulePublish();
        return;
    }
    m_running = false;
    m_live.running = false;
    m_publish.stop();
    const bool cancelled = m_cancel.load();
    if (m_live.message.isEmpty() && cancelled)
        m_live.message = tr("Cancelled: the runs keep their curves so far.");
    publish();
    m_status->setText(!m_live.message.isEmpty() ? m_live.message
                                                : tr("Done: %n run(s).", nullptr, int(m_live.runs.size())));
    syncControls();
    emit finished();
}

void TrainPanel::schedulePublish()
{
    if (!m_publish.isActive())
        m_publish.start();
}

void TrainPanel::publish()
{
    for (std::size_t i = 0; i < m_bars.size() && i < m_live.progress.size(); ++i)
        m_bars[i]->setValue(int(std::lround(1000.0 * m_live.progress[i])));
    if (m_running && !m_live.message.isEmpty())
        m_status->setText(m_live.message);
    m_state->setTrainedRuns(std::make_shared<const TrainedRuns>(m_live));
}

void TrainPanel::syncControls()
{
    QStringList names;
    for (QAction* a : m_schemeActions)
        if (a->isChecked())
            names << a->text();
    m_schemes->setText(names.isEmpty() ? tr("Schemes: none") : tr("Schemes: %1").arg(names.join(QStringLiteral(", "))));
    // The menu arrow is drawn inside the button: room for it after the text. Each bar fits "RoPE s2 100%".
    const QFontMetrics fm(font());
    m_schemes->setMinimumWidth(fm.horizontalAdvance(m_schemes->text()) + 2 * fm.height());
    for (QProgressBar* b : m_bars)
        b->setMinimumWidth(fm.horizontalAdvance(QString(b->format()).replace(QLatin1String("%p"), QLatin1String("100")))
                           + fm.height());
    // Once every run is done, the bars have nothing more to say (a cancelled or diverged run keeps its bar).
    m_progressBox->setVisible(
        m_running || std::any_of(m_live.progress.begin(), m_live.progress.end(), [](double d) { return d < 1.0; }));
    for (QWidget* w :
         std::initializer_list<QWidget*>{m_schemes, m_task, m_trainLen, m_steps, m_seed, m_seeds, m_samples})
        w->setEnabled(!m_running);
    m_start->setEnabled(!m_running && !names.isEmpty());
    m_stop->setEnabled(m_running);
    m_saveButton->setEnabled(!m_running && !m_live.runs.empty());
}

void TrainPanel::save()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Save training runs"), QStringLiteral("runs.json"),
                                                      tr("Run files (*.json)"));
    if (path.isEmpty())
        return;
    const QString problem = saveTo(path);
    m_status->setText(problem.isEmpty() ? tr("Saved %1").arg(QFileInfo(path).fileName()) : problem);
}

QString TrainPanel::saveTo(const QString& path)
{
    if (m_running)
        return tr("Wait for the runs to finish (or cancel them) before saving.");
    if (m_live.runs.empty())
        return tr("No runs to save: train first.");
    if (QString problem = Computation::saveRuns(path, m_live.runs); !problem.isEmpty())
        return problem;
    m_live.file = QFileInfo(path).absoluteFilePath();
    publish();
    // The view names the file, as if it had been opened; it keeps drawing these runs (and their models).
    m_state->setProperty(QStringLiteral("run_file"), m_live.file);
    return {};
}

} // namespace poslab::ui
