// SPDX-License-Identifier: MIT
#include "ui/window/parameterpanel.h"

#include "ui/figures/extensionfigure.h"
#include "ui/render/figuretitle.h"
#include "ui/setup/typedtext.h"
#include "ui/state/workbenchstate.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QGridLayout>
#include <QJsonArray>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QSlider>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <QAbstractScrollArea>
#include <QCoreApplication>
#include <QScrollBar>
#include <QWheelEvent>

#include <cmath>

namespace poslab::ui {

struct ParameterPanel::Row {
    core::ParamSpec spec;
    bool model = false; ///< dim / positions rather than a scheme parameter
    QWidget* box = nullptr;
    QSlider* slider = nullptr;
    QLineEdit* edit = nullptr;
    QComboBox* combo = nullptr;
    QCheckBox* check = nullptr;
    QToolButton* reset = nullptr;
    QLabel* message = nullptr;
    /// The state's value when the message was shown: once the value changes by another way (undo, another
    /// control, a lesson, a loaded state), the message is about a value no longer in question and goes.
    std::optional<core::ParamValue> refusedAt;
};

namespace {

bool logScale(const core::ParamSpec& spec)
{
    return spec.logarithmic && spec.minimum > 0 && spec.maximum > spec.minimum;
}

double roundSignificant(double v, int digits)
{
    if (v == 0.0 || !std::isfinite(v))
        return v;
    const double mag = std::pow(10.0, digits - 1 - int(std::floor(std::log10(std::abs(v)))));
    return std::round(v * mag) / mag;
}

const char* errorStyle = "QLineEdit { border: 2px solid #d0302f; border-radius: 3px; }";

} // namespace

ParameterPanel::ParameterPanel(WorkbenchState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
{
    setObjectName(QStringLiteral("parameterPanel"));
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(10, 8, 10, 8);
    outer->setSpacing(6);
    m_modelTitle = new QLabel(tr("Model"), this);
    m_modelTitle->setObjectName(QStringLiteral("panelHeading"));
    outer->addWidget(m_modelTitle);
    m_modelNote = new QLabel(this);
    m_modelNote->setObjectName(QStringLiteral("modelNote"));
    m_modelNote->setWordWrap(true);
    m_modelNote->setTextFormat(Qt::PlainText);
    m_modelNote->hide();
    outer->addWidget(m_modelNote);
    m_modelBox = new QVBoxLayout;
    m_modelBox->setSpacing(4);
    outer->addLayout(m_modelBox);
    // The sequence length that dynamic NTK and LongRoPE read (core's value, shown only where it matters).
    m_seqLen = new QLabel(this);
    m_seqLen->setObjectName(QStringLiteral("sequenceLength"));
    m_seqLen->setWordWrap(true);
    m_seqLen->setForegroundRole(QPalette::PlaceholderText);
    m_seqLen->hide();
    outer->addWidget(m_seqLen);
    // Settings core accepts but the ecosystem warns about (e.g. factor < 1), in core's words.
    m_warnings = new QLabel(this);
    m_warnings->setObjectName(QStringLiteral("schemeWarnings"));
    m_warnings->setWordWrap(true);
    m_warnings->hide();
    outer->addWidget(m_warnings);
    m_schemeTitle = new QLabel(this);
    m_schemeTitle->setObjectName(QStringLiteral("schemeHeading"));
    m_schemeTitle->setWordWrap(true);
    updateHeadingFonts();
    outer->addSpacing(6);
    outer->addWidget(m_schemeTitle);
    m_schemeBox = new QVBoxLayout;
    m_schemeBox->setSpacing(4);
    outer->addLayout(m_schemeBox);
    outer->addStretch(1);

    m_modelSpecs = {
        core::intParam("dim", 128, WorkbenchState::minDim, WorkbenchState::maxDim,
                       "Model (head) dimension d: the length of every position vector; pairs need it even", true),
        core::intParam("positions", 1024, 1, WorkbenchState::maxPositionCount,
                       "Number of positions shown: the table and curves cover positions 0 to this minus 1", true),
    };
    for (const auto& spec : m_modelSpecs) {
        auto r = makeRow(spec, true);
        m_modelBox->addWidget(r->box);
        m_modelRows.push_back(std::move(r));
    }
    rebuild();
    connect(state, &WorkbenchState::schemeChanged, this, &ParameterPanel::rebuild);
    connect(state, &WorkbenchState::setupChanged, this, &ParameterPanel::syncValues);
    // The context-extension lab's own inference length (target_length) is a view option.
    connect(state, &WorkbenchState::viewOptionsChanged, this, &ParameterPanel::syncSequenceLength);
}

ParameterPanel::~ParameterPanel() = default;

int ParameterPanel::toSlider(const core::ParamSpec& spec, double v)
{
    double t = 0.0;
    if (logScale(spec))
        t = (std::log(std::max(v, spec.minimum)) - std::log(spec.minimum))
            / (std::log(spec.maximum) - std::log(spec.minimum));
    else if (spec.maximum > spec.minimum)
        t = (v - spec.minimum) / (spec.maximum - spec.minimum);
    return int(std::lround(std::clamp(t, 0.0, 1.0) * sliderSteps));
}

double ParameterPanel::fromSlider(const core::ParamSpec& spec, int pos)
{
    const double t = std::clamp(pos / double(sliderSteps), 0.0, 1.0);
    double v = logScale(spec) ? std::exp(std::log(spec.minimum) + t * (std::log(spec.maximum) - std::log(spec.minimum)))
                              : spec.minimum + t * (spec.maximum - spec.minimum);
    if (pos <= 0)
        v = spec.minimum;
    else if (pos >= sliderSteps)
        v = spec.maximum;
    else if (spec.type == core::ParamType::Integer)
        v = std::round(roundSignificant(v, 3));
    else
        v = roundSignificant(v, 4);
    return std::clamp(v, spec.minimum, spec.maximum); // the slider's own ends, not a typed value
}

std::unique_ptr<ParameterPanel::Row> ParameterPanel::makeRow(const core::ParamSpec& spec, bool model)
{
    auto r = std::make_unique<Row>();
    r->spec = spec;
    r->model = model;
    r->box = new QWidget(this);
    r->box->setObjectName(QStringLiteral("row_") + QString::fromStdString(spec.key));
    auto* grid = new QGridLayout(r->box);
    // Compact rows (no margins, no gap between the key and its controls; the row boxes are 4 px apart): the
    // panel shows at least six rows at 1366 x 768, font scale 1 (MainWindow::giveSchemesTheirHeight()).
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setHorizontalSpacing(6);
    grid->setVerticalSpacing(0);
    const QString key = QString::fromStdString(spec.key);
    QString tip = QString::fromStdString(spec.doc);
    if (spec.type == core::ParamType::Real || spec.type == core::ParamType::Integer)
        tip += tr("\nRange %1 to %2%3")
                   .arg(displayText(spec.minimum), displayText(spec.maximum),
                        logScale(spec) ? tr(" (logarithmic slider)") : QString());
    // Long keys (original_max_position_embeddings) may break after an underscore rather than widen the panel
    // beyond its dock at a large font scale.
    auto* label = new QLabel(QString(key).replace(QLatin1Char('_'), QStringLiteral("_\u200b")), r->box);
    label->setWordWrap(true);
    label->setToolTip(tip);
    // Only the family is the label's own: its size follows the window's font scale. A copy of label->font() carried
    // the size in force when the row was built as the label's own, so a scheme's keys stayed at that size when the
    // scale changed (base at 16.5 pt beside 22 pt fields, or at the base size after `--lesson` with --font-scale 2).
    QFont lf;
    lf.setFamily(QStringLiteral("monospace"));
    lf.setStyleHint(QFont::Monospace);
    label->setFont(lf);
    grid->addWidget(label, 0, 0, 1, 3);
    r->reset = new QToolButton(r->box);
    r->reset->setText(QStringLiteral("\u21ba"));
    r->reset->setToolTip(tr("Reset %1 to its default").arg(key));
    r->reset->setAutoRaise(true);
    Row* raw = r.get();
    switch (spec.type) {
    case core::ParamType::Real:
    case core::ParamType::Integer: addNumberControls(*raw, grid, label, key, tip); break;
    case core::ParamType::Choice: addChoiceControls(*raw, grid, key, tip); break;
    case core::ParamType::Bool: addBoolControls(*raw, grid, key, tip); break;
    case core::ParamType::RealList: addListControls(*raw, grid, key, tip); break;
    case core::ParamType::Text: addTextControls(*raw, grid, key, tip); break;
    }
    grid->setColumnStretch(0, 1);
    // The wheel scrolls the panel; it edits a slider or a choice only once that has the focus (a click, Tab):
    // rolling down the panel must not change the value that passes under the pointer.
    for (QWidget* w : {static_cast<QWidget*>(r->slider), static_cast<QWidget*>(r->combo)})
        if (w) {
            w->setFocusPolicy(Qt::StrongFocus);
            w->installEventFilter(this);
        }
    r->message = new QLabel(r->box);
    r->message->setObjectName(QStringLiteral("message_") + key);
    r->message->setWordWrap(true);
    r->message->setStyleSheet(QStringLiteral("color: #d0302f;"));
    r->message->hide();
    grid->addWidget(r->message, 2, 0, 1, 3);
    connect(r->reset, &QToolButton::clicked, this,
            [this, raw] { apply(*raw, core::defaultValue(raw->spec, m_state->params()), false); });
    return r;
}

void ParameterPanel::addNumberControls(Row& r, QGridLayout* grid, QLabel* label, const QString& key, const QString& tip)
{
    Row* raw = &r;
    r.slider = new QSlider(Qt::Horizontal, r.box);
    r.slider->setObjectName(QStringLiteral("slider_") + key);
    r.slider->setRange(0, sliderSteps);
    r.slider->setPageStep(sliderSteps / 20);
    r.slider->setToolTip(tip);
    r.edit = new QLineEdit(r.box);
    r.edit->setObjectName(QStringLiteral("edit_") + key);
    r.edit->setToolTip(tip);
    fitEdit(r.edit);
    // The typed value beside its key, the slider below on the whole width: both keep their room when the
    // panel is narrow for its font (a large font scale).
    grid->removeWidget(label);
    grid->addWidget(label, 0, 0);
    grid->addWidget(r.edit, 0, 1);
    grid->addWidget(r.reset, 0, 2);
    grid->addWidget(r.slider, 1, 0, 1, 3);
    connect(r.slider, &QSlider::valueChanged, this, [this, raw](int pos) {
        double v = fromSlider(raw->spec, pos);
        if (raw->spec.key == "dim" && m_state->scheme().needsEvenDim)
            v = std::max(2.0, 2.0 * std::round(v / 2.0));
        apply(*raw,
              raw->spec.type == core::ParamType::Integer ? core::ParamValue::integer((long long)v)
                                                         : core::ParamValue::real(v),
              true);
    });
    connect(r.edit, &QLineEdit::returnPressed, this, [this, raw] { applyText(*raw, raw->edit->text()); });
    connect(r.edit, &QLineEdit::editingFinished, this, [this, raw] {
        if (raw->edit->isModified())
            applyText(*raw, raw->edit->text());
    });
}

void ParameterPanel::addChoiceControls(Row& r, QGridLayout* grid, const QString& key, const QString& tip)
{
    Row* raw = &r;
    r.combo = new QComboBox(r.box);
    r.combo->setObjectName(QStringLiteral("combo_") + key);
    for (const auto& c : r.spec.choices)
        r.combo->addItem(QString::fromStdString(c));
    r.combo->setToolTip(tip);
    grid->addWidget(r.combo, 1, 0, 1, 2);
    grid->addWidget(r.reset, 1, 2);
    connect(r.combo, &QComboBox::activated, this,
            [this, raw](int i) { apply(*raw, core::ParamValue::word(raw->spec.choices[std::size_t(i)]), false); });
}

void ParameterPanel::addBoolControls(Row& r, QGridLayout* grid, const QString& key, const QString& tip)
{
    Row* raw = &r;
    r.check = new QCheckBox(tr("on"), r.box);
    r.check->setObjectName(QStringLiteral("check_") + key);
    r.check->setToolTip(tip);
    grid->addWidget(r.check, 1, 0, 1, 2);
    grid->addWidget(r.reset, 1, 2);
    connect(r.check, &QCheckBox::toggled, this,
            [this, raw](bool on) { apply(*raw, core::ParamValue::boolean(on), false); });
}

void ParameterPanel::addListControls(Row& r, QGridLayout* grid, const QString& key, const QString& tip)
{
    Row* raw = &r;
    r.edit = new QLineEdit(r.box);
    r.edit->setObjectName(QStringLiteral("edit_") + key);
    r.edit->setPlaceholderText(tr("comma-separated, empty = all 1"));
    r.edit->setToolTip(tip);
    grid->addWidget(r.edit, 1, 0, 1, 2);
    grid->addWidget(r.reset, 1, 2);
    connect(r.edit, &QLineEdit::returnPressed, this, [this, raw] { applyText(*raw, raw->edit->text()); });
    connect(r.edit, &QLineEdit::editingFinished, this, [this, raw] {
        if (raw->edit->isModified())
            applyText(*raw, raw->edit->text());
    });
}

void ParameterPanel::addTextControls(Row& r, QGridLayout* grid, const QString& key, const QString& tip)
{
    Row* raw = &r;
    // A path or a name, set when editing finishes (Return or leaving the field); core reads the file and
    // says what is wrong with it under the field.
    r.edit = new QLineEdit(r.box);
    r.edit->setObjectName(QStringLiteral("edit_") + key);
    r.edit->setPlaceholderText(tr("empty = none"));
    r.edit->setMaxLength(int(r.spec.maximum));
    r.edit->setClearButtonEnabled(true);
    r.edit->setToolTip(tip);
    grid->addWidget(r.edit, 1, 0, 1, 2);
    grid->addWidget(r.reset, 1, 2);
    connect(r.edit, &QLineEdit::editingFinished, this, [this, raw] {
        if (raw->edit->isModified())
            applyText(*raw, raw->edit->text());
    });
}

QString ParameterPanel::apply(Row& r, const core::ParamValue& v, bool mergeable)
{
    QString err;
    if (r.spec.key == "dim")
        err = m_state->setDim(int(v.number));
    else if (r.spec.key == "positions")
        err = m_state->setPositionCount(int(v.number));
    else
        err = m_state->setParam(QString::fromStdString(r.spec.key), v, mergeable);
    showMessage(r, err);
    if (!err.isEmpty())
        syncValues(); // the slider or combo moved; put it back on the state's value
    return err;
}

QString ParameterPanel::applyText(Row& r, const QString& text)
{
    if (r.edit)
        r.edit->setModified(false);
    QString err;
    if (r.model) {
        // Same rules as a scheme parameter: core parses and checks the range; nothing is clamped.
        try {
            const core::ParamValue v = core::parseParamValue(r.spec, text.trimmed().toStdString());
            const std::string problem = core::checkValue(r.spec, v);
            if (!problem.empty())
                err = QString::fromStdString(problem);
            else if (r.spec.key == "dim")
                err = m_state->setDim(int(v.number));
            else
                err = m_state->setPositionCount(int(v.number));
        } catch (const std::exception& e) {
            err = QString::fromStdString(e.what());
        }
        if (!err.isEmpty())
            emit m_state->refused(err);
    } else {
        err = m_state->setParamText(QString::fromStdString(r.spec.key), text);
    }
    showMessage(r, err);
    if (r.edit)
        r.edit->setStyleSheet(err.isEmpty() ? QString() : QString::fromLatin1(errorStyle));
    if (err.isEmpty())
        syncValues();
    return err;
}

core::ParamValue ParameterPanel::stateValue(const Row& r) const
{
    if (r.spec.key == "dim")
        return core::ParamValue::integer(m_state->dim());
    if (r.spec.key == "positions")
        return core::ParamValue::integer(m_state->positionCount());
    return m_state->params().has(r.spec.key) ? m_state->params().value(r.spec.key) : core::ParamValue{};
}

bool ParameterPanel::eventFilter(QObject* watched, QEvent* e)
{
    if (e->type() == QEvent::Wheel) {
        auto* w = qobject_cast<QWidget*>(watched);
        if (w && !w->hasFocus()) {
            // Not this control's: the scroll area around the panel scrolls (a copy of the event to its scroll bar).
            auto* wheel = static_cast<QWheelEvent*>(e);
            for (QWidget* up = parentWidget(); up; up = up->parentWidget())
                if (auto* area = qobject_cast<QAbstractScrollArea*>(up)) {
                    QScrollBar* bar = area->verticalScrollBar();
                    QWheelEvent copy(bar->mapFromGlobal(wheel->globalPosition()), wheel->globalPosition(),
                                     wheel->pixelDelta(), wheel->angleDelta(), wheel->buttons(), wheel->modifiers(),
                                     wheel->phase(), wheel->inverted());
                    QCoreApplication::sendEvent(bar, &copy);
                    break;
                }
            e->accept();
            return true;
        }
    }
    return QWidget::eventFilter(watched, e);
}

void ParameterPanel::showMessage(Row& r, const QString& message)
{
    r.refusedAt.reset();
    if (!message.isEmpty())
        r.refusedAt = stateValue(r);
    r.message->setText(message);
    r.message->setVisible(!message.isEmpty());
    if (message.isEmpty() && r.edit)
        r.edit->setStyleSheet({});
}

void ParameterPanel::rebuild()
{
    m_rows.clear(); // deletes nothing Qt owns twice: boxes are deleted below
    while (QLayoutItem* item = m_schemeBox->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    const auto& scheme = m_state->scheme();
    m_schemeTitle->setText(tr("%1 parameters").arg(shortSchemeName(scheme)));
    m_schemeTitle->setToolTip(QString::fromStdString(scheme.name));
    for (const auto& spec : scheme.params) {
        auto r = makeRow(spec, false);
        m_schemeBox->addWidget(r->box);
        m_rows.push_back(std::move(r));
    }
    if (scheme.params.empty()) {
        auto* none = new QLabel(tr("This scheme has no parameters."), this);
        none->setWordWrap(true);
        m_schemeBox->addWidget(none);
    }
    syncValues();
}

void ParameterPanel::syncValues()
{
    const core::ParamSet& params = m_state->params();
    auto syncRow = [this](Row& r, const core::ParamValue& v) {
        if (r.refusedAt && !(*r.refusedAt == v))
            showMessage(r, {}); // the value moved on: the red message and border were about another one
        if (r.slider) {
            QSignalBlocker b(r.slider);
            r.slider->setValue(toSlider(r.spec, v.number));
        }
        if (r.edit && !(r.edit->hasFocus() && r.edit->isModified()) && r.message->isHidden())
            r.edit->setText(typedText(v));
        if (r.combo) {
            QSignalBlocker b(r.combo);
            r.combo->setCurrentText(QString::fromStdString(v.choice));
        }
        if (r.check) {
            QSignalBlocker b(r.check);
            r.check->setChecked(v.number != 0);
        }
    };
    syncRow(*m_modelRows[0], core::ParamValue::integer(m_state->dim()));
    syncRow(*m_modelRows[1], core::ParamValue::integer(m_state->positionCount()));
    for (auto& r : m_rows) {
        if (!params.has(r->spec.key))
            continue;
        syncRow(*r, params.value(r->spec.key));
        r->box->setVisible(core::applies(r->spec, params));
    }
    syncSequenceLength();
    syncModel();
    applyLock();
}

void ParameterPanel::setUnlocked(const std::optional<QStringList>& unlocked)
{
    m_unlocked = unlocked;
    applyLock();
}

bool ParameterPanel::isLocked(const QString& key) const
{
    const Row* r = row(key);
    return r && !r->box->isEnabledTo(this);
}

void ParameterPanel::applyLock()
{
    for (const auto* rows : {&m_modelRows, &m_rows})
        for (const auto& r : *rows) {
            const bool open = !m_unlocked || m_unlocked->contains(QString::fromStdString(r->spec.key));
            if (open == r->box->isEnabledTo(this))
                continue;
            r->box->setEnabled(open);
            // A disabled row still shows its tooltip: say why it is grey (each widget's own tip comes back).
            for (QWidget* w : r->box->findChildren<QWidget*>()) {
                if (!open) {
                    w->setProperty("unlockedTip", w->toolTip());
                    w->setToolTip(lockedTip()
                                  + (w->toolTip().isEmpty() ? QString() : QStringLiteral("\n\n") + w->toolTip()));
                } else {
                    w->setToolTip(w->property("unlockedTip").toString());
                }
            }
        }
}

void ParameterPanel::syncModel()
{
    const QJsonObject& model = m_state->model();
    const QString label = m_state->modelLabel();
    if (label.isEmpty()) {
        m_modelNote->hide();
        return;
    }
    QStringList unverified;
    for (const QJsonValue& v : model.value(QLatin1String("unverified")).toArray())
        unverified << v.toString();
    QString text = label;
    if (!unverified.isEmpty())
        text += QLatin1Char('\n') + tr("Unverified in the sources: %1").arg(unverified.join(QStringLiteral(", ")));
    m_modelNote->setText(text);
    QString tip = model.value(QLatin1String("source")).toString();
    if (const QString notes = model.value(QLatin1String("notes")).toString(); !notes.isEmpty())
        tip += QStringLiteral("\n\n") + notes;
    m_modelNote->setToolTip(tip);
    m_modelNote->show();
}

QString ParameterPanel::sequenceSentences(const core::RotarySpec& spec, const QString& length) const
{
    QStringList out;
    for (const auto& [name, value] : spec.scalars) {
        if (name == "dynamic_length")
            out << tr("Dynamic NTK scales the base for max(%1, max_position_embeddings) = %2.")
                       .arg(length, tokensText(value));
        else if (name == "uses_long_factor")
            out << tr("LongRoPE uses %1 (long_factor once %2 is longer than original_max_position_embeddings = %3).")
                       .arg(value != 0.0 ? tr("long_factor") : tr("short_factor"), length,
                            tokensText(double(m_state->params().integer("original_max_position_embeddings"))));
        else if (name == "xpos_centre")
            out << tr("xPos centres the positions at %1.").arg(displayText(value));
    }
    return out.join(QLatin1Char(' '));
}

void ParameterPanel::syncSequenceLength()
{
    // Ask core which sequence length it used (RotarySpec::seqLen, 0 when nothing depends on it) and what
    // followed from it; nothing of the rule is repeated here. The context-extension lab draws at its own
    // inference length L (target_length, or a model's context_length: ExtensionFigure::request) where one is set:
    // what follows from that L is said too, so that the panel and the lab speak of the same length.
    const core::SchemeDescriptor& scheme = m_state->scheme();
    QString text;
    if (scheme.rotary) {
        try {
            // The state's spec for its own context (its token's, derived once per change).
            const core::CheckedParams* checked = m_state->checkedParams().get();
            const core::RotarySpec spec = core::rotarySpecFor(scheme, m_state->params(), m_state->context(), checked);
            if (spec.seqLen > 0) {
                text = tr("Sequence length %1 (the positions shown).").arg(tokensText(double(spec.seqLen)));
                if (const QString said = sequenceSentences(spec, tr("the sequence length")); !said.isEmpty())
                    text += QLatin1Char(' ') + said;
                const ViewOptions& o = m_state->viewOptions();
                const core::ComputeRequest lab = ExtensionFigure::request({m_state->setup(),
                                                                           o.targetLength,
                                                                           o.trainedLength,
                                                                           o.extensionPair,
                                                                           o.extensionMethods,
                                                                           {m_state->checkedParams()}});
                const core::RotarySpec atL = core::rotarySpecFor(scheme, m_state->params(), lab.context, checked);
                if (atL.seqLen != spec.seqLen) {
                    text += QLatin1Char(' ')
                        + tr("The context-extension lab draws at its own inference length L = %1.")
                              .arg(tokensText(double(atL.seqLen)));
                    if (const QString said = sequenceSentences(atL, tr("L")); !said.isEmpty())
                        text += QLatin1Char(' ') + said;
                }
            }
        } catch (const std::exception&) {
            text.clear(); // core refuses this set-up; the row that caused it already says why
        }
    }
    // Keys such as original_max_position_embeddings may break after an underscore, not widen the panel.
    m_seqLen->setText(QString(text).replace(QLatin1Char('_'), QStringLiteral("_\u200b")));
    m_seqLen->setVisible(!text.isEmpty());

    QStringList warnings;
    try {
        for (const std::string& w : core::schemeWarnings(scheme, m_state->params(), m_state->context()))
            warnings << tr("Warning: %1").arg(QString::fromStdString(w));
    } catch (const std::exception&) {
        warnings.clear(); // a refused set-up is reported by its row
    }
    m_warnings->setText(warnings.join(QLatin1Char('\n')).replace(QLatin1Char('_'), QStringLiteral("_\u200b")));
    m_warnings->setVisible(!warnings.isEmpty());
    QPalette pal = m_warnings->palette();
    pal.setColor(QPalette::WindowText, QColor(0xc0, 0x50, 0x00));
    m_warnings->setPalette(pal);
}

QString ParameterPanel::warningText() const
{
    return m_warnings->isHidden() ? QString() : QString(m_warnings->text()).remove(QChar(0x200b));
}

QString ParameterPanel::sequenceLengthText() const
{
    return m_seqLen->isHidden() ? QString() : QString(m_seqLen->text()).remove(QChar(0x200b));
}

void ParameterPanel::updateHeadingFonts()
{
    // Headings stay a step above the body at every font scale (A+/A- change the panel's font).
    QFont hf = font();
    hf.setBold(true);
    hf.setPointSizeF(font().pointSizeF() * headingScale);
    m_modelTitle->setFont(hf);
    m_schemeTitle->setFont(hf);
}

void ParameterPanel::fitEdit(QLineEdit* edit) const
{
    // Room for what is typed (500000, 0.0625, 1e9) at the current font scale, and no more.
    const QFontMetrics fm(font());
    const int frame = 2 * fm.horizontalAdvance(QLatin1Char('0'));
    edit->setMinimumWidth(fm.horizontalAdvance(QStringLiteral("0000000")) + frame);
    edit->setMaximumWidth(fm.horizontalAdvance(QStringLiteral("0000000000")) + frame);
}

void ParameterPanel::changeEvent(QEvent* e)
{
    QWidget::changeEvent(e);
    if (e->type() == QEvent::FontChange) {
        updateHeadingFonts();
        for (const auto* rows : {&m_modelRows, &m_rows})
            for (const auto& r : *rows)
                if (r->slider && r->edit)
                    fitEdit(r->edit);
    }
}

ParameterPanel::Row* ParameterPanel::row(const QString& key) const
{
    const std::string k = key.toStdString();
    for (const auto& r : m_modelRows)
        if (r->spec.key == k)
            return r.get();
    for (const auto& r : m_rows)
        if (r->spec.key == k)
            return r.get();
    return nullptr;
}

QSlider* ParameterPanel::slider(const QString& key) const
{
    auto* r = row(key);
    return r ? r->slider : nullptr;
}
QLineEdit* ParameterPanel::edit(const QString& key) const
{
    auto* r = row(key);
    return r ? r->edit : nullptr;
}
QComboBox* ParameterPanel::combo(const QString& key) const
{
    auto* r = row(key);
    return r ? r->combo : nullptr;
}
QCheckBox* ParameterPanel::check(const QString& key) const
{
    auto* r = row(key);
    return r ? r->check : nullptr;
}
QString ParameterPanel::message(const QString& key) const
{
    auto* r = row(key);
    return r && !r->message->isHidden() ? r->message->text() : QString();
}
std::vector<QWidget*> ParameterPanel::shownRows() const
{
    std::vector<QWidget*> out;
    for (const auto* rows : {&m_modelRows, &m_rows})
        for (const auto& r : *rows)
            if (!r->box->isHidden())
                out.push_back(r->box);
    return out;
}

int ParameterPanel::heightForRows(int n) const
{
    const std::vector<QWidget*> rows = shownRows();
    if (rows.empty() || n <= 0)
        return 0;
    QWidget* last = rows[std::size_t(std::min<int>(n, int(rows.size())) - 1)];
    if (QLayout* l = layout())
        l->activate();
    return last->geometry().bottom() + 1 + layout()->contentsMargins().bottom();
}

bool ParameterPanel::isShown(const QString& key) const
{
    auto* r = row(key);
    return r && !r->box->isHidden();
}

} // namespace poslab::ui
