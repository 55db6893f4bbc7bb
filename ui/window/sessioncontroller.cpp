// SPDX-License-Identifier: MIT
#include "ui/window/sessioncontroller.h"

#include "core/io/positiontable.h"
#include "core/limits.h"
#include "ui/figures/computation.h"
#include "ui/setup/modelconfig.h"
#include "ui/setup/presets.h"
#include "ui/state/session.h"
#include "ui/state/workbenchstate.h"
#include "ui/views/view.h"
#include "ui/window/mainwindow.h"

#include <QAction>
#include <QClipboard>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QInputDialog>
#include <QJsonArray>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QUndoStack>

#include <map>

namespace poslab::ui {

SessionController::SessionController(MainWindow* window, WorkbenchState* state)
    : QObject(window)
    , m_window(window)
    , m_state(state)
    , m_tableConsent([this](const QString& question) {
        // Without a screen nobody can answer, and nobody clicked a link: the window runs a command someone typed
        // (poslab --screenshot --state FILE), which reads the table as poslab export --state does.
        const QString platform = QGuiApplication::platformName();
        if (platform == QLatin1String("offscreen") || platform == QLatin1String("minimal"))
            return true;
        return QMessageBox::question(m_window, tr("Read a table file?"), question, QMessageBox::Yes | QMessageBox::No,
                                     QMessageBox::No)
            == QMessageBox::Yes;
    })
{
    buildFileMenu();
    buildEditMenu();
    buildPresetMenu();
}

void SessionController::buildFileMenu()
{
    m_fileMenu = m_window->menuBar()->addMenu(tr("&File"));
    m_fileMenu->setObjectName(QStringLiteral("menuFile"));
    const QString filter = tr("PosLab sessions (*.%1);;JSON states and training runs (*.json);;All files (*)")
                               .arg(QLatin1String(sessionExtension));
    QAction* newAction = m_fileMenu->addAction(tr("&New"), this, [this] {
        if (settleUnsaved())
            newSession();
    });
    newAction->setShortcut(QKeySequence::New);
    newAction->setObjectName(QStringLiteral("actionNew"));
    QAction* open = m_fileMenu->addAction(tr("&Open\u2026"), this, [this, filter] {
        if (!settleUnsaved())
            return;
        const QString dir = m_sessionPath.isEmpty() ? QDir::homePath() : QFileInfo(m_sessionPath).absolutePath();
        const QString path = QFileDialog::getOpenFileName(m_window, tr("Open session"), dir, filter);
        if (!path.isEmpty())
            openSession(path);
    });
    open->setShortcut(QKeySequence::Open);
    open->setObjectName(QStringLiteral("actionOpen"));
    QMenu* recent = m_fileMenu->addMenu(tr("Open &recent"));
    recent->setObjectName(QStringLiteral("menuRecent"));
    connect(recent, &QMenu::aboutToShow, this, [this, recent] {
        recent->clear();
        const QStringList files = recentSessions();
        for (const QString& f : files)
            recent->addAction(QDir::toNativeSeparators(f), this, [this, f] {
                if (settleUnsaved())
                    openSession(f);
            });
        if (files.isEmpty())
            recent->addAction(tr("(none yet)"))->setEnabled(false);
    });
    QAction* save = m_fileMenu->addAction(tr("&Save"), this, [this, filter] {
        QString path = m_sessionPath;
        if (path.isEmpty())
            path = QFileDialog::getSaveFileName(m_window, tr("Save session"),
                                                QDir::home().filePath(tr("lecture.poslab")), filter);
        if (!path.isEmpty())
            saveSession(path);
    });
    save->setShortcut(QKeySequence::Save);
    save->setObjectName(QStringLiteral("actionSave"));
    QAction* saveAs = m_fileMenu->addAction(tr("Save &as\u2026"), this, [this, filter] {
        const QString start = m_sessionPath.isEmpty() ? QDir::home().filePath(tr("lecture.poslab")) : m_sessionPath;
        const QString path = QFileDialog::getSaveFileName(m_window, tr("Save session as"), start, filter);
        if (!path.isEmpty())
            saveSession(path);
    });
    saveAs->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    saveAs->setObjectName(QStringLiteral("actionSaveAs"));
    m_fileMenu->addSeparator();
    QAction* config = m_fileMenu->addAction(tr("Open model &config\u2026"), this, [this] {
        const QString path
            = QFileDialog::getOpenFileName(m_window, tr("Open a Hugging Face config.json"), QDir::homePath(),
                                           tr("Model configs (*.json);;All files (*)"));
        if (!path.isEmpty())
            openModelConfig(path);
    });
    config->setObjectName(QStringLiteral("actionOpenConfig"));
    config->setToolTip(tr("Show a real model's positional settings from its config.json"));
    QAction* table = m_fileMenu->addAction(tr("Open position &table\u2026"), this, [this] {
        const QString path
            = QFileDialog::getOpenFileName(m_window, tr("Open a learned position table"), QDir::homePath(),
                                           tr("Position tables (*.npy *.safetensors);;All files (*)"));
        if (!path.isEmpty())
            openPositionTable(path);
    });
    table->setObjectName(QStringLiteral("actionOpenTable"));
    table->setToolTip(tr("A learned position table from a .npy file or a tensor of a .safetensors file"));
    m_fileMenu->addSeparator();
}

void SessionController::buildEditMenu()
{
    QMenu* edit = m_window->menuBar()->addMenu(tr("&Edit"));
    edit->setObjectName(QStringLiteral("menuEdit"));
    QAction* copyState = edit->addAction(tr("Copy state &link"), this, [this] {
        const QString link = stateLink();
        QGuiApplication::clipboard()->setText(link);
        showMessage(tr("Copied a link to this view (%1 characters); paste it with Ctrl+Shift+V or give it to "
                       "poslab --state")
                        .arg(link.size()),
                    false);
    });
    copyState->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    copyState->setObjectName(QStringLiteral("actionCopyState"));
    QAction* pasteState
        = edit->addAction(tr("&Paste state"), this, [this] { loadStateText(QGuiApplication::clipboard()->text()); });
    pasteState->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_V));
    pasteState->setObjectName(QStringLiteral("actionPasteState"));
}

void SessionController::buildPresetMenu()
{
    // Presets: real models, grouped by scheme, each with its name and id.
    QMenu* presetMenu = m_window->menuBar()->addMenu(tr("&Presets"));
    presetMenu->setObjectName(QStringLiteral("menuPresets"));
    std::map<QString, QMenu*> groups;
    for (const QJsonObject& p : presets()) {
        const QString schemeId = p.value(QLatin1String("scheme")).toString();
        const core::SchemeDescriptor* scheme = core::findScheme(schemeId.toStdString());
        // A grid or sequence model (ViT, Qwen2-VL) sets the spatial set-up: grouped under its spatial scheme.
        if (const core::SpatialSchemeDescriptor* d = core::findSpatialScheme(schemeId.toStdString()); !scheme && d)
            scheme = &d->info;
        if (!scheme)
            continue;
        const QString group = QString::fromStdString(scheme->name);
        QMenu*& sub = groups[group];
        if (!sub)
            sub = new QMenu(group, presetMenu);
        const QString id = p.value(QLatin1String("id")).toString();
        QAction* a = sub->addAction(p.value(QLatin1String("name")).toString(), this, [this, id] { loadPreset(id); });
        a->setObjectName(QStringLiteral("preset:") + id);
        a->setToolTip(p.value(QLatin1String("source")).toString());
    }
    for (auto& [name, sub] : groups)
        presetMenu->addMenu(sub);
    presetMenu->setToolTipsVisible(true);
}

QString SessionController::loadModelState(const QJsonObject& state, const QString& what)
{
    // A grid or sequence scheme: the spatial set-up (one undo step), shown in the patch grid or sequence view.
    std::optional<SpatialSetup> spatial;
    try {
        spatial = spatialSetupOf(state, m_state->spatial());
    } catch (const std::exception& e) {
        showMessage(tr("Cannot load %1: %2").arg(what, QString::fromStdString(e.what())), true);
        return QString::fromStdString(e.what());
    }
    if (spatial) {
        if (const QString problem = m_state->setSpatial(*spatial); !problem.isEmpty()) {
            showMessage(tr("Cannot load %1: %2").arg(what, problem), true);
            return problem;
        }
        const bool grid = core::findSpatialScheme(spatial->scheme)->input == core::SpatialInput::Grid;
        m_window->setMaximisedView(m_window->view(grid ? QStringLiteral("patchgrid") : QStringLiteral("sequence")));
        const QString name = state.value(QLatin1String("model")).toObject().value(QLatin1String("name")).toString(what);
        showMessage(tr("%1: %2, %3, d = %4 (Ctrl+Z goes back)")
                        .arg(name, QString::fromStdString(spatial->scheme),
                             grid
                                 ? tr("grid %1").arg(QString::fromStdString(core::gridText(spatial->grid)))
                                 : tr("sequence %1").arg(QString::fromStdString(core::sequenceText(spatial->sequence))))
                        .arg(spatial->dim),
                    false);
        return {};
    }
    if (const QString problem = m_state->fromJson(state, true); !problem.isEmpty()) {
        showMessage(tr("Cannot load %1: %2").arg(what, problem), true);
        return problem;
    }
    const QJsonObject model = state.value(QLatin1String("model")).toObject();
    QStringList unverified;
    for (const QJsonValue& v : model.value(QLatin1String("unverified")).toArray())
        unverified << v.toString();
    QString text = tr("%1: %2, head dim %3")
                       .arg(model.value(QLatin1String("name")).toString(what), m_state->schemeId())
                       .arg(m_state->dim());
    if (!unverified.isEmpty())
        text += tr("; unverified in the sources: %1").arg(unverified.join(QStringLiteral(", ")));
    text += tr(" (Ctrl+Z goes back)");
    showMessage(text, false);
    return {};
}

QString SessionController::loadPreset(const QString& id)
{
    const std::optional<QJsonObject> preset = findPreset(id);
    if (!preset) {
        const QString problem = tr("unknown preset '%1'").arg(id);
        showMessage(problem, true);
        return problem;
    }
    return loadModelState(presetState(*preset), id);
}

QString SessionController::openModelConfig(const QString& path)
{
    ModelConfig config;
    try {
        config = readModelConfig(path);
    } catch (const std::exception& e) {
        const QString problem = QString::fromStdString(e.what());
        showMessage(problem, true);
        return problem;
    }
    if (const QString problem = loadModelState(config.state, QFileInfo(path).fileName()); !problem.isEmpty())
        return problem;
    QString text = m_shown;
    text += tr(" \u2014 used %1 keys").arg(config.used.size());
    if (!config.unmapped.isEmpty())
        text += tr("; not shown: %1").arg(config.unmapped.join(QStringLiteral("; ")));
    showMessage(text, !config.unmapped.isEmpty());
    return {};
}

QString SessionController::openPositionTable(const QString& path)
{
    // The learned scheme reads the file itself (core's .npy / .safetensors readers): choose the scheme, then
    // the file; a .safetensors file with several tables asks which tensor.
    QString tensor;
    if (path.endsWith(QLatin1String(".safetensors"), Qt::CaseInsensitive)) {
        bool ok = false;
        tensor = QInputDialog::getText(m_window, tr("Tensor"),
                                       tr("Name of the position table in the file (e.g. wpe.weight, "
                                          "embeddings.position_embeddings.weight; empty: the only 2-D tensor)"),
                                       QLineEdit::Normal, QString(), &ok);
        if (!ok)
            return tr("cancelled");
    }
    // The file fixes the dimension (its columns) and the positions it covers (its rows): read it first (core
    // caches it, so the scheme's own read costs nothing), then set all of them as one undo step.
    std::shared_ptr<const core::PositionTable> loaded;
    try {
        loaded = core::loadPositionTable(path.toStdString(), tensor.toStdString());
    } catch (const std::exception& e) {
        const QString problem = QString::fromStdString(e.what());
        showMessage(problem, true);
        return problem;
    }
    const int cols = int(std::min<long long>(loaded->cols, WorkbenchState::maxDim + 1LL));
    const int rows = int(std::min<long long>(loaded->rows, WorkbenchState::maxPositionCount));
    QUndoStack* undo = m_state->undoStack();
    undo->beginMacro(tr("Open position table"));
    QString problem = m_state->setScheme(QStringLiteral("learned"));
    if (problem.isEmpty())
        problem = m_state->setDim(cols);
    if (problem.isEmpty())
        problem = m_state->setPositionCount(rows);
    if (problem.isEmpty())
        problem = m_state->setParamText(QStringLiteral("table_tensor"), tensor);
    if (problem.isEmpty())
        problem = m_state->setParamText(QStringLiteral("table_file"), path);
    undo->endMacro();
    if (!problem.isEmpty()) {
        if (undo->canUndo() && undo->undoText() == tr("Open position table"))
            undo->undo(); // nothing half-done stays
        showMessage(problem, true);
        return problem;
    }
    showMessage(tr("Learned table from %1: %2 positions \u00d7 %3 dimensions")
                    .arg(QString::fromStdString(loaded->source))
                    .arg(loaded->rows)
                    .arg(loaded->cols),
                false);
    return {};
}

QString SessionController::askForTables(const QJsonObject& state, const QString& source)
{
    // A link (PosLab is the handler of poslab: links) or a file can name any file on this computer; the learned
    // scheme would read it as soon as the state is applied. Nothing is read, not even its header, unless the
    // user says so.
    const QStringList files = tableFilesNamed(state);
    if (files.isEmpty())
        return {};
    QStringList lines;
    for (const QString& f : files) {
        const QFileInfo info(f);
        lines << QStringLiteral("  %1 (%2)")
                     .arg(QDir::toNativeSeparators(info.absoluteFilePath()),
                          info.isFile() ? QString::fromStdString(core::formatBytes(double(info.size())))
                                        : tr("not found"));
    }
    const QString question
        = (files.size() == 1 ? tr("The %1 names a table file on this computer for the learned scheme to read:\n%2\n"
                                  "Read it? No leaves the state as it is.")
                             : tr("The %1 names table files on this computer for the learned scheme to read:\n%2\n"
                                  "Read them? No leaves the state as it is."))
              .arg(source, lines.join(QLatin1Char('\n')));
    if (m_tableConsent && m_tableConsent(question))
        return {};
    return tr("not loaded: it names the table file %1, and reading it was declined (open the table with File > "
              "Open position table, or answer Yes)")
        .arg(QDir::toNativeSeparators(files.front()));
}

QString SessionController::openSession(const QString& path)
{
    if (Computation::isRunFile(path)) { // a poslab train run file: the length lab draws it
        ViewOptions o = m_state->viewOptions();
        o.runFile = QFileInfo(path).absoluteFilePath();
        m_state->setViewOptions(o);
        if (View* lab = m_window->view(QStringLiteral("lengthlab")))
            m_window->setMaximisedView(lab); // its own tab
        showMessage(tr("Opened the training runs %1 in the length lab").arg(QDir::toNativeSeparators(path)), false);
        return {};
    }
    QJsonObject json;
    QString problem = readSessionFile(path, &json);
    if (problem.isEmpty())
        if (const QString declined = askForTables(json, tr("file %1").arg(QFileInfo(path).fileName()));
            !declined.isEmpty())
            problem = tr("%1: %2").arg(path, declined);
    if (problem.isEmpty()) {
        problem = m_state->fromJson(json, true);
        if (!problem.isEmpty())
            problem = tr("%1: %2").arg(path, problem);
    }
    if (!problem.isEmpty()) {
        showMessage(problem, true);
        return problem;
    }
    applyLayout(json.value(QLatin1String("layout")).toObject());
    m_sessionPath = QFileInfo(path).absoluteFilePath();
    m_sessionKept = json;
    m_state->undoStack()->setClean();
    rememberRecent(m_sessionPath);
    updateTitle();
    showMessage(tr("Opened %1").arg(QDir::toNativeSeparators(path)), false);
    return {};
}

QString SessionController::saveSession(const QString& path)
{
    QString target = path;
    if (QFileInfo(target).suffix().isEmpty())
        target += QLatin1Char('.') + QLatin1String(sessionExtension);
    const bool sameFile = QFileInfo(target).absoluteFilePath() == m_sessionPath;
    const QJsonObject session = mergeSession(sameFile ? m_sessionKept : QJsonObject(), m_state->toJson(), layoutJson());
    if (const QString problem = writeSessionFile(target, session); !problem.isEmpty()) {
        showMessage(problem, true);
        return problem;
    }
    m_sessionPath = QFileInfo(target).absoluteFilePath();
    m_sessionKept = session;
    m_state->undoStack()->setClean();
    rememberRecent(m_sessionPath);
    updateTitle();
    showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(target)), false);
    return {};
}

QString SessionController::loadStateText(const QString& text)
{
    QJsonObject json;
    QString label;
    QString problem = readStateSource(text, QDir::currentPath(), &json, &label);
    if (problem.isEmpty())
        if (const QString declined = askForTables(json,
                                                  label == QLatin1String("share string") ? tr("link")
                                                      : label == QLatin1String("inline state")
                                                      ? tr("state")
                                                      : tr("file %1").arg(QFileInfo(label).fileName()));
            !declined.isEmpty())
            problem = tr("%1: %2").arg(label, declined);
    if (problem.isEmpty()) {
        problem = m_state->fromJson(json, true);
        if (!problem.isEmpty())
            problem = tr("%1: %2").arg(label, problem);
    }
    if (!problem.isEmpty()) {
        showMessage(tr("Cannot load the state: %1").arg(problem), true);
        return problem;
    }
    applyLayout(json.value(QLatin1String("layout")).toObject());
    showMessage(tr("Loaded the state from the %1 (Ctrl+Z goes back)").arg(label), false);
    return {};
}

void SessionController::newSession()
{
    WorkbenchState fresh;
    m_state->fromJson(fresh.toJson(), true);
    m_sessionPath.clear();
    m_sessionKept = {};
    updateTitle();
}

QString SessionController::stateLink() const
{
    QJsonObject layout;
    if (View* alone = m_window->maximisedView())
        layout.insert(QStringLiteral("maximised"), alone->exportName());
    if (!m_window->sidePanelsVisible())
        layout.insert(QStringLiteral("side_panels"), false);
    return shareLink(*m_state, layout);
}

QJsonObject SessionController::layoutJson() const
{
    View* alone = m_window->maximisedView();
    return QJsonObject{{"maximised", alone ? alone->exportName() : QString()},
                       {"side_panels", m_window->sidePanelsVisible()}};
}

void SessionController::applyLayout(const QJsonObject& layout)
{
    if (layout.value(QLatin1String("maximised")).isString())
        m_window->setMaximisedView(m_window->view(layout.value(QLatin1String("maximised")).toString()));
    // On while folded for room is on already (opening the drawer is the user's F9).
    if (layout.value(QLatin1String("side_panels")).isBool()
        && !(m_window->sidePanelsFolded() && layout.value(QLatin1String("side_panels")).toBool()))
        m_window->setSidePanelsVisible(layout.value(QLatin1String("side_panels")).toBool());
}

QStringList SessionController::recentSessions() const
{
    QStringList files;
    for (const QString& f : QSettings().value("session/recent").toStringList())
        if (QFileInfo::exists(f) && !files.contains(f))
            files << f;
    return files;
}

void SessionController::rememberRecent(const QString& path)
{
    QStringList files = recentSessions();
    files.removeAll(path);
    files.prepend(path);
    while (files.size() > 8)
        files.removeLast();
    QSettings().setValue("session/recent", files);
}

void SessionController::updateTitle()
{
    const QString base = QStringLiteral("PosLab \u2014 how transformers encode position");
    if (m_sessionPath.isEmpty()) {
        m_window->setWindowTitle(base);
        return;
    }
    const bool modified = !m_state->undoStack()->isClean();
    m_window->setWindowTitle(
        QStringLiteral("%1%2 \u2014 PosLab")
            .arg(QFileInfo(m_sessionPath).fileName(), modified ? QStringLiteral(" *") : QString()));
}

bool SessionController::settleUnsaved()
{
    // Only a session that has a file asks: an untitled workbench is a scratch pad. Never in tests or scripts
    // (a hidden window).
    if (m_sessionPath.isEmpty() || m_state->undoStack()->isClean() || !m_window->isVisible())
        return true;
    const auto answer = QMessageBox::question(
        m_window, tr("Unsaved changes"), tr("Save the changes to %1?").arg(QFileInfo(m_sessionPath).fileName()),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel)
        return false;
    if (answer == QMessageBox::Save)
        return saveSession(m_sessionPath).isEmpty();
    return true;
}

void SessionController::showMessage(const QString& text, bool problem)
{
    m_shown = text;
    emit message(text, problem);
}

} // namespace poslab::ui
