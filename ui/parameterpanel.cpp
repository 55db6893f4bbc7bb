// SPDX-License-Identifier: MIT
#include "ui/parameterpanel.h"

#include "ui/workbenchstate.h"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSlider>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
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
    auto* modelTitle = new QLabel(tr("Model"), this);
    modelTitle->setObjectName(QStringLiteral("panelHeading"));
    QFont hf = modelTitle->font();
    hf.setBold(true);
    hf.setPointSizeF(hf.pointSizeF() * 1.15);
    modelTitle->setFont(hf);
    outer->addWidget(modelTitle);
    m_modelBox = new QVBoxLayout;
    m_modelBox->setSpacing(4);
    outer->addLayout(m_modelBox);
    m_schemeTitle = new QLabel(this);
    m_schemeTitle->setFont(hf);
    m_schemeTitle->setWordWrap(true);
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
}

ParameterPanel::~ParameterPanel() = default;

int ParameterPanel::toSlider(const core::ParamSpec& spec, double v)
{
    double t = 0.0;
    if (logScale(spec))
        t = (std::log(std::max(v, spec.minimum)) - std::log(spec.minimum)) / (std::log(spec.maximum) - std::log(spec.minimum));
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
    grid->setContentsMargins(0, 2, 0, 2);
    grid->setHorizontalSpacing(6);
    grid->setVerticalSpacing(1);
    const QString key = QString::fromStdString(spec.key);
    QString tip = QString::fromStdString(spec.doc);
    if (spec.type == core::ParamType::Real || spec.type == core::ParamType::Integer)
        tip += tr("\nRange %1 to %2%3").arg(QString::number(spec.minimum, 'g', 10), QString::number(spec.maximum, 'g', 10),
                                         logScale(spec) ? tr(" (logarithmic slider)") : QString());
    auto* label = new QLabel(key, r->box);
    label->setToolTip(tip);
    QFont lf = label->font();
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
    case core::ParamType::Integer: {
        r->slider = new QSlider(Qt::Horizontal, r->box);
        r->slider->setObjectName(QStringLiteral("slider_") + key);
        r->slider->setRange(0, sliderSteps);
        r->slider->setPageStep(sliderSteps / 20);
        r->slider->setToolTip(tip);
        r->edit = new QLineEdit(r->box);
        r->edit->setObjectName(QStringLiteral("edit_") + key);
        r->edit->setToolTip(tip);
        r->edit->setMaximumWidth(110);
        r->edit->setMinimumWidth(80);
        grid->addWidget(r->slider, 1, 0);
        grid->addWidget(r->edit, 1, 1);
        grid->addWidget(r->reset, 1, 2);
        connect(r->slider, &QSlider::valueChanged, this, [this, raw](int pos) {
            double v = fromSlider(raw->spec, pos);
            if (raw->spec.key == "dim" && m_state->scheme().needsEvenDim)
                v = std::max(2.0, 2.0 * std::round(v / 2.0));
            apply(*raw, raw->spec.type == core::ParamType::Integer ? core::ParamValue::integer((long long)v)
                                                                    : core::ParamValue::real(v),
                  true);
        });
        connect(r->edit, &QLineEdit::returnPressed, this, [this, raw] { applyText(*raw, raw->edit->text()); });
        connect(r->edit, &QLineEdit::editingFinished, this, [this, raw] {
            if (raw->edit->isModified())
                applyText(*raw, raw->edit->text());
        });
        break;
    }
    case core::ParamType::Choice: {
        r->combo = new QComboBox(r->box);
        r->combo->setObjectName(QStringLiteral("combo_") + key);
        for (const auto& c : spec.choices)
            r->combo->addItem(QString::fromStdString(c));
        r->combo->setToolTip(tip);
        grid->addWidget(r->combo, 1, 0, 1, 2);
        grid->addWidget(r->reset, 1, 2);
        connect(r->combo, &QComboBox::activated, this, [this, raw](int i) {
            apply(*raw, core::ParamValue::word(raw->spec.choices[std::size_t(i)]), false);
        });
        break;
    }
    case core::ParamType::Bool: {
        r->check = new QCheckBox(tr("on"), r->box);
        r->check->setObjectName(QStringLiteral("check_") + key);
        r->check->setToolTip(tip);
        grid->addWidget(r->check, 1, 0, 1, 2);
        grid->addWidget(r->reset, 1, 2);
        connect(r->check, &QCheckBox::toggled, this, [this, raw](bool on) { apply(*raw, core::ParamValue::boolean(on), false); });
        break;
    }
    case core::ParamType::RealList: {
        r->edit = new QLineEdit(r->box);
        r->edit->setObjectName(QStringLiteral("edit_") + key);
        r->edit->setPlaceholderText(tr("comma-separated, empty = all 1"));
        r->edit->setToolTip(tip);
        grid->addWidget(r->edit, 1, 0, 1, 2);
        grid->addWidget(r->reset, 1, 2);
        connect(r->edit, &QLineEdit::returnPressed, this, [this, raw] { applyText(*raw, raw->edit->text()); });
        connect(r->edit, &QLineEdit::editingFinished, this, [this, raw] {
            if (raw->edit->isModified())
                applyText(*raw, raw->edit->text());
        });
        break;
    }
    }
    grid->setColumnStretch(0, 1);
    r->message = new QLabel(r->box);
    r->message->setObjectName(QStringLiteral("message_") + key);
    r->message->setWordWrap(true);
    r->message->setStyleSheet(QStringLiteral("color: #d0302f;"));
    r->message->hide();
    grid->addWidget(r->message, 2, 0, 1, 3);
    connect(r->reset, &QToolButton::clicked, this, [this, raw] { apply(*raw, core::defaultValue(raw->spec, m_state->params()), false); });
    return r;
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

void ParameterPanel::showMessage(Row& r, const QString& message)
{
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
    m_schemeTitle->setText(tr("%1 parameters").arg(QString::fromStdString(scheme.name)));
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
    auto syncRow = [](Row& r, const core::ParamValue& v) {
        if (r.slider) {
            QSignalBlocker b(r.slider);
            r.slider->setValue(toSlider(r.spec, v.number));
        }
        if (r.edit && !(r.edit->hasFocus() && r.edit->isModified()) && r.message->isHidden())
            r.edit->setText(QString::fromStdString(v.toString()));
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

QSlider* ParameterPanel::slider(const QString& key) const { auto* r = row(key); return r ? r->slider : nullptr; }
QLineEdit* ParameterPanel::edit(const QString& key) const { auto* r = row(key); return r ? r->edit : nullptr; }
QComboBox* ParameterPanel::combo(const QString& key) const { auto* r = row(key); return r ? r->combo : nullptr; }
QCheckBox* ParameterPanel::check(const QString& key) const { auto* r = row(key); return r ? r->check : nullptr; }
QString ParameterPanel::message(const QString& key) const
{
    auto* r = row(key);
    return r && !r->message->isHidden() ? r->message->text() : QString();
}
bool ParameterPanel::isShown(const QString& key) const
{
    auto* r = row(key);
    return r && !r->box->isHidden();
}

} // namespace poslab::ui
