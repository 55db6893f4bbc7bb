// SPDX-License-Identifier: MIT
#include "ui/views/attentionview.h"

#include "core/encodingregistry.h"
#include "ui/render/figuretitle.h"
#include "ui/render/plotutils.h"

#include <QComboBox>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QSpinBox>

#include <algorithm>
#include <cmath>

namespace poslab::ui {

AttentionView::AttentionView(WorkbenchState* state, Computation* computation, QWidget* parent)
    : View(state, computation, parent)
{
    setMouseTracking(true);
    connect(computation, &Computation::attentionReady, this, &AttentionView::takeOutput);
    connect(state, &WorkbenchState::cursorChanged, this, &View::refresh);
    connect(state, &WorkbenchState::viewOptionsChanged, this, [this] { takeOutput(m_output); });
    takeOutput(computation->attention());
}

bool AttentionView::supports(const core::SchemeDescriptor&) const
{
    return true; // every scheme has attention scores; NoPE's come from content and the mask alone
}

ColorMapKind AttentionView::mapKind() const
{
    switch (m_state->viewOptions().colorMap) {
    case ColorMapChoice::Viridis: return ColorMapKind::Viridis;
    case ColorMapChoice::Cividis: return ColorMapKind::Cividis;
    case ColorMapChoice::Diverging: return ColorMapKind::Diverging;
    case ColorMapChoice::Auto: break;
    }
    if (sharesCompareRange() && m_heldRange->lo < 0 && m_heldRange->hi > 0)
        return ColorMapKind::Diverging; // side by side: A's and B's range together spans 0
    return m_output && !m_output->softmax && m_output->lo < 0 && m_output->hi > 0 ? ColorMapKind::Diverging
                                                                                  : ColorMapKind::Viridis;
}

ValueRange AttentionView::valueRange() const
{
    if (m_diff)
        return m_diffRange;
    if (m_heldRange)
        return *m_heldRange;
    return dataColourRange().value_or(ValueRange{});
}

std::optional<ValueRange> AttentionView::dataColourRange() const
{
    if (!m_output)
        return std::nullopt;
    if (mapKind() == ColorMapKind::Diverging) {
        const double a = std::max({std::abs(m_output->lo), std::abs(m_output->hi), 1e-30});
        return ValueRange{-a, a};
    }
    // Probabilities on the fixed scale 0 to 1: one colour is one probability in every row, so a weight of 1 and
    // one of 0.5 never share a colour (a clip at the 99th percentile painted both the top colour).
    if (m_output->softmax)
        return ValueRange{0.0, 1.0};
    return m_output->hi > m_output->lo ? ValueRange{m_output->lo, m_output->hi}
                                       : ValueRange{m_output->lo - 1, m_output->hi + 1};
}

QString AttentionView::rangeQuantity() const
{
    const ViewOptions& o = m_state->viewOptions();
    return QStringLiteral("attention %1 %2 %3")
        .arg(o.softmax ? QStringLiteral("softmax") : QStringLiteral("logits"), o.term)
        .arg(int(o.attentionSource));
}

QString AttentionView::scaleNote() const
{
    // Which colour scale is in use, in the legend line: the fixed 0 to 1 of probabilities, a range held for a GIF
    // or shared with B, or (logits) the data's own range.
    if (m_diff || !m_output)
        return {};
    if (m_heldRange && !sharesCompareRange())
        return tr("  \u00b7  colours %1 \u2026 %2 (held)")
            .arg(formatNumber(m_heldRange->lo, 3), formatNumber(m_heldRange->hi, 3));
    if (sharesCompareRange())
        return tr("  \u00b7  colours %1 \u2026 %2 (A and B)")
            .arg(formatNumber(m_heldRange->lo, 3), formatNumber(m_heldRange->hi, 3));
    if (m_output->softmax)
        return tr("  \u00b7  colours 0 \u2026 1 (fixed)");
    return {};
}

void AttentionView::takeOutput(std::shared_ptr<const AttentionOutput> out)
{
    m_output = std::move(out);
    if (m_termBox && m_output) {
        // The parts on offer follow the scheme: "whole score" first, then the engine's named terms.
        QSignalBlocker block(m_termBox);
        m_termBox->clear();
        m_termBox->addItem(tr("whole score"));
        m_termBox->addItems(m_output->terms);
        m_termBox->setCurrentIndex(m_output->term.isEmpty() ? 0 : int(m_output->terms.indexOf(m_output->term)) + 1);
        m_termBox->setVisible(!m_output->terms.isEmpty());
    }
    m_diff.reset();
    m_compareProblem.clear();
    if (m_output && m_output->matrix.size() > 0 && differenceMode()) {
        // A − B entry by entry, where both hold one size of scores of one kind (logits or probabilities).
        const auto* twin = qobject_cast<AttentionView*>(compareTwin());
        const auto b = twin ? twin->output() : nullptr;
        AttentionDifference d = AttentionFigure::difference(*m_output, b.get());
        m_compareProblem = d.problem;
        m_diff = std::move(d.matrix);
        m_diffRange = d.range;
    }
    // The image is made at the next paint: within one frame a new output, a range shared with B and new options
    // can each arrive, and each made it again.
    m_imageGrid.reset();
    refresh();
}

const QImage& AttentionView::image()
{
    const QRgb grid = theme().grid.rgb();
    if (m_imageGrid == grid)
        return m_image;
    if (m_diff)
        m_image = matrixToImage(*m_diff, ColorMap(ColorMapKind::Diverging), m_diffRange, grid);
    else if (m_output && m_output->matrix.size() > 0)
        m_image = matrixToImage(m_output->matrix, ColorMap(mapKind()), valueRange(), grid);
    else
        m_image = QImage();
    m_imageGrid = grid;
    return m_image;
}

bool AttentionView::differenceMode() const
{
    return m_state->comparing() && !m_state->compareOwner() && m_state->compareMode() == CompareMode::Difference;
}

void AttentionView::compareChanged()
{
    if (differenceMode() || m_diff || !m_compareProblem.isEmpty())
        takeOutput(m_output);
    else
        refresh();
}

void AttentionView::drawTrainedLength(QPainter& p, TextLayout& text, const QRectF& plot, double s) const
{
    if (!m_output)
        return;
    // A model trained in the window: the tokens of its longest trained sequence; else the scheme's trained window.
    const std::optional<core::Position> trained = m_output->trainedLength;
    const long long n = m_output->matrix.rows();
    if (!trained || *trained <= 0 || *trained >= n)
        return; // only where the trained window ends inside the positions shown
    const Theme th = theme();
    const double cell = plot.height() / double(std::max<long long>(1, n));
    const double at = double(*trained) * cell;
    // Queries and keys past T are positions the model never met in training: hatched, the edge drawn on both axes.
    QColor hatch = th.foreground;
    hatch.setAlpha(110);
    p.save();
    p.setPen(Qt::NoPen);
    p.setBrush(QBrush(hatch, Qt::BDiagPattern));
    p.drawRect(QRectF(plot.left(), plot.top() + at, plot.width(), plot.height() - at)); // new queries
    p.drawRect(QRectF(plot.left() + at, plot.top(), plot.width() - at, at));            // new keys above them
    p.setPen(QPen(th.accent2, 2 * s, Qt::DashLine));
    p.drawLine(QPointF(plot.left() + at, plot.top()), QPointF(plot.left() + at, plot.bottom()));
    p.drawLine(QPointF(plot.left(), plot.top() + at), QPointF(plot.right(), plot.top() + at));
    p.restore();
    const QFont f = th.font(9.5 * s, true);
    const QFontMetricsF fm(f);
    const QString t = formatNumber(double(*trained), 7);
    const QRectF box(plot.left() + at + 4 * s, plot.top() + at + 4 * s, plot.right() - (plot.left() + at) - 8 * s,
                     fm.height() * 1.2);
    if (box.width() > fm.horizontalAdvance(QStringLiteral("new")) && box.bottom() < plot.bottom()) {
        const QStringList words{tr("past trained T = %1: new").arg(t), tr("T = %1: new").arg(t), tr("new")};
        QString shown;
        for (const QString& w : words)
            if (fm.horizontalAdvance(w) + 8 * s <= box.width()) {
                shown = w;
                break;
            }
        if (shown.isEmpty())
            shown = words.back();
        QRectF back(box.left(), box.top(), fm.horizontalAdvance(shown) + 8 * s, box.height());
        QColor bg = th.background;
        bg.setAlpha(225);
        p.fillRect(back, bg);
        text.draw(back.adjusted(4 * s, 0, -2 * s, 0), Qt::AlignLeft | Qt::AlignVCenter, f, th.accent2, {shown});
    }
}

QWidget* AttentionView::controls()
{
    if (m_controls)
        return m_controls;
    m_controls = new QWidget(this);
    auto* lay = new QHBoxLayout(m_controls);
    lay->setContentsMargins(0, 0, 0, 0);
    makeControls();
    const ControlWidgets& c = m_widgets;
    for (QWidget* w : std::initializer_list<QWidget*>{c.source, c.run, c.layer, c.length, c.kind, m_termBox, c.mask,
                                                      c.head, c.heads, c.content, c.sentence})
        lay->addWidget(w);
    syncControls();
    connect(m_state, &WorkbenchState::viewOptionsChanged, m_controls, [this] { syncControls(); });
    connect(m_state, &WorkbenchState::trainedRunsChanged, m_controls, [this] { syncControls(); });
    connectControls();
    return m_controls;
}

void AttentionView::makeControls()
{
    ControlWidgets& c = m_widgets;
    c.kind = new QComboBox(m_controls);
    c.kind->setObjectName(QStringLiteral("attentionKind"));
    c.kind->addItems({tr("softmax"), tr("logits")});
    c.mask = new QComboBox(m_controls);
    c.mask->setObjectName(QStringLiteral("attentionMask"));
    c.mask->addItems({tr("causal"), tr("bidirectional")});
    c.head = new QSpinBox(m_controls);
    c.head->setObjectName(QStringLiteral("attentionHead"));
    c.head->setPrefix(tr("head "));
    c.heads = new QSpinBox(m_controls);
    c.heads->setObjectName(QStringLiteral("attentionHeads"));
    c.heads->setPrefix(tr("of "));
    c.heads->setRange(1, 64);
    c.content = new QComboBox(m_controls);
    c.content->setObjectName(QStringLiteral("attentionContent"));
    c.content->addItems({tr("random q, k"), tr("constant q = k"), tr("sentence")});
    m_termBox = new QComboBox(m_controls);
    m_termBox->setObjectName(QStringLiteral("attentionTerm"));
    m_termBox->setToolTip(tr("Show one named part of the logits (e.g. Transformer-XL's four terms, DeBERTa's "
                             "c2p and p2c, CoPE's gates and positions)"));
    m_termBox->setVisible(false);
    c.sentence = new QLineEdit(m_controls);
    c.sentence->setObjectName(QStringLiteral("attentionSentence"));
    c.sentence->setPlaceholderText(tr("type a sentence"));
    c.sentence->setMaximumWidth(160);
    // The source: the scheme's pattern, or a model trained in the window (the lengthlab view's Train).
    c.source = new QComboBox(m_controls);
    c.source->setObjectName(QStringLiteral("attentionSource"));
    c.source->addItems({tr("scheme"), tr("trained model")});
    c.source->setToolTip(
        tr("scheme: the scheme's pattern from core's attention engine; trained model: the real attention "
           "weights of a model trained in this window (lengthlab view, Train)"));
    c.run = new QSpinBox(m_controls);
    c.run->setObjectName(QStringLiteral("attentionTrainedRun"));
    c.run->setPrefix(tr("run "));
    c.run->setRange(0, 255);
    c.layer = new QSpinBox(m_controls);
    c.layer->setObjectName(QStringLiteral("attentionTrainedLayer"));
    c.layer->setPrefix(tr("layer "));
    c.layer->setRange(0, 7);
    c.length = new QSpinBox(m_controls);
    c.length->setObjectName(QStringLiteral("attentionTrainedLength"));
    c.length->setPrefix(tr("length "));
    c.length->setSpecialValueText(tr("length 3 \u00d7 trained"));
    c.length->setRange(0, 4096);
}

void AttentionView::syncControls()
{
    const ControlWidgets& c = m_widgets;
    const ViewOptions& o = m_state->viewOptions();
    QSignalBlocker b1(c.kind), b2(c.mask), b3(c.head), b4(c.heads), b5(c.content), b6(c.source), b7(c.run), b8(c.layer),
        b9(c.length);
    const bool trained = o.attentionSource == AttentionSource::Trained;
    const auto runs = m_state->trainedRuns();
    c.source->setCurrentIndex(trained ? 1 : 0);
    c.source->setVisible(trained || (runs && !runs->runs.empty()));
    for (QSpinBox* b : {c.run, c.layer, c.length})
        b->setVisible(trained);
    c.run->setValue(o.trainedRun);
    c.layer->setValue(o.trainedLayer);
    c.length->setValue(o.trainedTestLength);
    for (QWidget* w : std::initializer_list<QWidget*>{c.kind, c.mask, c.heads, c.content})
        w->setVisible(!trained); // a trained model: probabilities, causal, its own heads and tokens
    c.kind->setCurrentIndex(o.softmax ? 0 : 1);
    c.kind->setEnabled(o.term.isEmpty()); // a part of the logits has no softmax
    c.mask->setCurrentIndex(o.causal ? 0 : 1);
    c.heads->setValue(o.heads);
    c.head->setRange(0, o.heads - 1);
    c.head->setValue(o.head);
    c.content->setCurrentIndex(int(o.content));
    c.sentence->setVisible(!trained && o.content == AttentionContent::Sentence);
    if (!c.sentence->hasFocus())
        c.sentence->setText(o.sentence);
}

void AttentionView::connectControls()
{
    const ControlWidgets& c = m_widgets;
    connect(c.source, &QComboBox::currentIndexChanged, this,
            [this](int i) { m_state->setProperty(QStringLiteral("attention_source"), i); });
    connect(c.run, &QSpinBox::valueChanged, this,
            [this](int v) { m_state->setProperty(QStringLiteral("trained_run"), v); });
    connect(c.layer, &QSpinBox::valueChanged, this,
            [this](int v) { m_state->setProperty(QStringLiteral("trained_layer"), v); });
    connect(c.length, &QSpinBox::valueChanged, this,
            [this](int v) { m_state->setProperty(QStringLiteral("trained_test_length"), v, true); });
    auto edit = [this](auto fn) {
        ViewOptions o = m_state->viewOptions();
        fn(o);
        m_state->setViewOptions(o);
    };
    connect(c.kind, &QComboBox::currentIndexChanged, this,
            [edit](int i) { edit([&](ViewOptions& o) { o.softmax = i == 0; }); });
    connect(c.mask, &QComboBox::currentIndexChanged, this,
            [edit](int i) { edit([&](ViewOptions& o) { o.causal = i == 0; }); });
    connect(m_termBox, &QComboBox::activated, this, [this, edit](int i) {
        const QString term = i <= 0 ? QString() : m_termBox->itemText(i);
        edit([&](ViewOptions& o) { o.term = term; });
    });
    connect(c.head, &QSpinBox::valueChanged, this, [edit](int v) { edit([&](ViewOptions& o) { o.head = v; }); });
    connect(c.heads, &QSpinBox::valueChanged, this, [edit](int v) {
        edit([&](ViewOptions& o) {
            o.heads = v;
            o.head = std::min(o.head, v - 1);
        });
    });
    connect(c.content, &QComboBox::currentIndexChanged, this,
            [edit](int i) { edit([&](ViewOptions& o) { o.content = AttentionContent(i); }); });
    QLineEdit* sentence = c.sentence;
    connect(sentence, &QLineEdit::editingFinished, this,
            [edit, sentence] { edit([&](ViewOptions& o) { o.sentence = sentence->text(); }); });
}

HeaderTexts AttentionView::headerTexts() const
{
    if (!m_output)
        return {};
    if (!m_output->trained.isEmpty()) // a model trained in the window: its real attention probabilities
        return {m_output->trained,
                {tr("attention probabilities, head %1 of %2").arg(m_output->head).arg(m_output->heads),
                 tr("head %1 of %2").arg(m_output->head).arg(m_output->heads)},
                {tr("%1 \u00d7 %1 tokens \u00b7 causal").arg(m_output->matrix.rows()),
                 tr("%1 \u00d7 %1").arg(m_output->matrix.rows())}};
    const core::SchemeDescriptor* scheme = core::findScheme(m_output->setup.scheme);
    // The computed set-up's variant (the state may have moved on while the scores compute), after the model.
    QString variant
        = scheme ? variantLabel(*scheme, m_output->setup.params) : QString::fromStdString(m_output->setup.scheme);
    if (const QString model = m_state->modelLabel();
        !model.isEmpty() && m_output->setup.scheme == m_state->setup().scheme)
        variant = QStringLiteral("%1 \u00b7 %2").arg(model, variant);
    if (const QString who = m_state->compareName(); !who.isEmpty())
        variant = QStringLiteral("%1: %2").arg(who, variant);
    QString what = !m_output->term.isEmpty() ? m_output->termLabel : m_output->softmax ? tr("softmax") : tr("logits");
    if (m_diff) {
        variant = tr("%1 \u2212 %2").arg(variant, m_state->compareState()->figureLabel());
        what = tr("difference A \u2212 B of the %1").arg(what);
    }
    const QString head = tr("head %1 of %2").arg(m_output->head).arg(m_output->heads);
    QString slope;
    for (const auto& [key, value] : m_output->scalars)
        if (key == "slope")
            slope = tr("slope m = %1").arg(formatNumber(value, 4));
    QStringList detail;
    if (!slope.isEmpty())
        detail << tr("%1, %2, %3").arg(what, head, slope);
    detail << tr("%1, %2").arg(what, head) << what;
    const QString size
        = tr("%1 \u00d7 %2")
              .arg(formatNumber(double(m_output->matrix.rows()), 7), formatNumber(double(m_output->matrix.cols()), 7));
    const QString mask = m_output->causal ? tr("causal") : tr("bidirectional");
    return {variant, detail, {tr("%1 \u00b7 %2").arg(size, mask), size}};
}

AttentionView::Layout AttentionView::layoutFor(const QRectF& t) const
{
    Layout l;
    l.scale = sizeScale(t);
    const Theme th = theme();
    const QFontMetricsF tick(th.font(10 * l.scale));
    const double pad = 8 * l.scale;
    const bool words = m_output && !m_output->tokens.empty();
    double wordW = 0;
    if (words)
        for (const auto& w : m_output->tokens)
            wordW = std::max(wordW, tick.horizontalAdvance(QString::fromStdString(w)));
    l.title = QRectF(t.left() + pad, t.top() + pad * 0.5, t.width() - 2 * pad,
                     headerHeight(t.width() - 2 * pad, th, l.scale, headerTexts()));
    l.footer = QRectF(t.left() + pad, t.bottom() - tick.height() * 1.3 - pad * 0.5, t.width() - 2 * pad,
                      tick.height() * 1.3);
    const int n = m_output ? int(m_output->matrix.rows()) : 0;
    // Half a tick label above the plot: the first row's label and the cursor's tag must clear the header.
    double top = l.title.bottom() + std::max(pad * 0.5, tick.height() * 0.6 + 2);
    if (!noRotationSummary().isEmpty()) {
        // A NoPE layer of iRoPE: one line under the title says so and gives the temperature that applies.
        l.subtitle = QRectF(l.title.left(), l.title.bottom(), l.title.width(), tick.height() * 1.2);
        top = l.subtitle.bottom() + std::max(pad * 0.5, tick.height() * 0.6 + 2);
    }
    // Square cells: queries and keys are the same positions. The margins are what the labels drawn take (so the
    // figure fills a compare half): the words beside and under the rows where the cells hold a line of text,
    // else the widest position number and the axis titles ("query position" turned beside the numbers).
    const auto place = [&](bool wordLabels) {
        const double left = wordLabels
            ? wordW + 6 * l.scale + pad
            : tick.horizontalAdvance(formatNumber(std::max(0, n - 1), 7)) + 6 * l.scale + tick.height() * 1.6 + pad;
        const double bottom = l.footer.top() - (wordLabels ? wordW + tick.height() : tick.height() * 2.3);
        const double h = bottom - top, room = t.width() - left;
        // Right of the plot: the colour bar (12 s after it, 16 s wide), its tick labels 8 px after the bar (as
        // drawColorBar() draws them) and the padding. Which labels the bar draws depends on its height, the side:
        // start from the labels of the tallest bar, then refit to the labels of the side found.
        const auto sideFor
            = [&](double labels) { return std::max(10.0, std::min(room - (28 * l.scale + 8 + labels + pad), h)); };
        double labels = colorBarTickWidth(tick, std::min(room, h));
        double side = sideFor(labels);
        for (int pass = 0; pass < 2; ++pass) {
            const double drawn = colorBarTickWidth(tick, side);
            if (drawn == labels)
                break;
            labels = pass == 0 ? drawn : std::max(labels, drawn);
            side = sideFor(labels);
        }
        const double w = room - (28 * l.scale + 8 + labels + pad);
        l.plot = QRectF(t.left() + left + std::max(0.0, w - side) / 2, top, side, side);
    };
    place(words);
    if (words && l.plot.height() / std::max(1, n) < tick.height() * 0.8)
        place(false); // too many words for their cells: numbers, as renderContent() draws them
    l.bar = QRectF(l.plot.right() + 12 * l.scale, l.plot.top(), 16 * l.scale, l.plot.height());
    return l;
}

double AttentionView::colorBarTickWidth(const QFontMetricsF& fm, double barHeight) const
{
    // The widest of drawColorBar()'s tick labels for a bar this tall.
    double widest = 0;
    for (double v : colorBarTicks(m_diff ? m_diffRange : valueRange(), barHeight, fm))
        widest = std::max(widest, fm.horizontalAdvance(formatNumber(v)));
    return widest;
}

QString AttentionView::contentNote() const
{
    if (!m_output)
        return {};
    if (!m_output->trainedContent.isEmpty())
        return m_output->trainedContent;
    switch (m_output->content) {
    case AttentionContent::Constant: return tr("content: constant q = k = (1, \u2026, 1)");
    case AttentionContent::Random: return tr("content: seeded random q, k");
    case AttentionContent::Sentence: return tr("content: the sentence's words");
    }
    return {};
}

QString AttentionView::readout(int row, int col) const
{
    if (!m_output || row < 0 || col < 0 || row >= m_output->matrix.rows() || col >= m_output->matrix.cols())
        return {};
    const float v = m_output->matrix(row, col);
    QString q = QString::number(row), k = QString::number(col);
    if (!m_output->tokens.empty()) {
        q += QStringLiteral(" '%1'").arg(QString::fromStdString(m_output->tokens[std::size_t(row)]));
        k += QStringLiteral(" '%1'").arg(QString::fromStdString(m_output->tokens[std::size_t(col)]));
    }
    const QString b = m_state->compareOwner() ? tr("%1 \u00b7 ").arg(m_state->compareName()) : QString();
    if (withholdsReadoutValues()) // View::withholdsReadoutValues: the cell named, its logit after the guess
        return withheldReadout(b + tr("query %1  \u00b7  key %2").arg(q, k));
    if (m_diff) {
        const float d = (*m_diff)(row, col);
        return tr("query %1  \u00b7  key %2  \u00b7  A \u2212 B %3")
            .arg(q, k, std::isnan(d) ? tr("masked") : QString::number(d, 'g', 6));
    }
    return b
        + tr("query %1  \u00b7  key %2  \u00b7  %3 %4")
              .arg(q, k, m_output->softmax ? tr("probability") : tr("logit"),
                   std::isnan(v) ? tr("masked") : QString::number(v, 'g', 6));
}

void AttentionView::renderContent(QPainter& p, const QRectF& target)
{
    const Theme th = theme();
    p.fillRect(target, th.background);
    if (!m_output)
        return;
    if (!m_output->error.isEmpty()) {
        drawNotApplicable(p, target, th,
                          m_output->trained.isEmpty() ? tr("Cannot compute attention") : m_output->trained,
                          m_output->error);
        return;
    }
    const QImage& img = image();
    if (img.isNull())
        return;
    const Layout l = layoutFor(target);
    const double s = l.scale;
    TextLayout text(p, target);
    drawHeader(text, l.title, th, s, headerTexts());
    if (const QString nr = noRotationSummary(); !nr.isEmpty())
        // Shorter by the rule: the layer's kind first, then the temperature's value, its name last.
        text.draw(l.subtitle, Qt::AlignLeft | Qt::AlignVCenter, th.font(10 * s), th.muted,
                  {nr,
                   QString(nr)
                       .replace(QStringLiteral("NoPE, no rotation"), QStringLiteral("NoPE"))
                       .replace(QStringLiteral("query temperature "), QString()),
                   nr.section(QStringLiteral(" \u00b7 "), 0, 0)},
                  TextLayout::Fit::Drop);

    const bool fine = l.plot.width() / img.width() >= 3;
    p.setRenderHint(QPainter::SmoothPixmapTransform, !fine);
    p.drawImage(l.plot, img);
    p.setPen(QPen(th.muted, 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(l.plot);

    drawAxes(p, text, l);
    drawCursorRow(p, l);
    drawTrainedLength(p, text, l.plot, s);
    drawColorBar(p, text, l.bar, ColorMap(m_diff ? ColorMapKind::Diverging : mapKind()), valueRange(), th, QString(),
                 s);
    text.draw(l.footer, Qt::AlignLeft | Qt::AlignVCenter, th.font(10 * s),
              onScreen() && m_hover ? th.foreground : th.muted, footerLines());
}

void AttentionView::drawAxes(QPainter& p, TextLayout& text, const Layout& l) const
{
    const Theme th = theme();
    const double s = l.scale;
    const QRectF target = text.bounds();
    const QFont tickFont = th.font(10 * s);
    const QFontMetricsF fm(tickFont);
    const int n = int(m_output->matrix.rows());
    const double cell = l.plot.height() / std::max(1, n);
    if (!m_output->tokens.empty() && cell >= fm.height() * 0.8) {
        for (int i = 0; i < n; ++i) {
            const QString w = QString::fromStdString(m_output->tokens[std::size_t(i)]);
            const double y = l.plot.top() + (i + 0.5) * cell;
            const QColor col = i == m_state->cursor() ? th.cursor : th.foreground;
            text.drawAt(QPointF(l.plot.left() - 6 * s, y), Qt::AlignRight | Qt::AlignVCenter, tickFont, col, {w});
            p.save();
            p.translate(l.plot.left() + (i + 0.5) * cell, l.plot.bottom() + 6 * s);
            p.rotate(-90);
            text.drawAt(QPointF(0, 0), Qt::AlignRight | Qt::AlignVCenter, tickFont, col, {w});
            p.restore();
        }
    } else {
        const int nt = std::max(2, int(l.plot.height() / (fm.height() * 2.5)));
        for (double v : integerTicks(0, n - 1, nt)) {
            const QString t = formatNumber(v, 7);
            const double y = l.plot.top() + (v + 0.5) * cell;
            const double x = l.plot.left() + (v + 0.5) * cell;
            text.drawAt(QPointF(l.plot.left() - 6 * s, y), Qt::AlignRight | Qt::AlignVCenter, tickFont, th.foreground,
                        {t});
            text.drawAt(QPointF(x, l.plot.bottom() + 5 * s), Qt::AlignHCenter | Qt::AlignTop, tickFont, th.foreground,
                        {t});
        }
        text.draw(QRectF(l.plot.left(), l.plot.bottom() + 5 * s + fm.height(), l.plot.width(), fm.height()),
                  Qt::AlignHCenter | Qt::AlignTop, tickFont, th.muted, {tr("key position"), tr("key")});
        p.save();
        p.translate(target.left() + 8 * s + fm.height() * 0.2, l.plot.center().y());
        p.rotate(-90);
        text.draw(QRectF(-l.plot.height() / 2, 0, l.plot.height(), fm.height()), Qt::AlignHCenter | Qt::AlignTop,
                  tickFont, th.muted, {tr("query position"), tr("query")});
        p.restore();
    }
}

void AttentionView::drawCursorRow(QPainter& p, const Layout& l) const
{
    const Theme th = theme();
    const double s = l.scale;
    const int n = int(m_output->matrix.rows());
    const double cell = l.plot.height() / std::max(1, n);
    const int c = m_state->cursor();
    if (c < n) {
        const double y0 = l.plot.top() + c * cell, y1 = y0 + cell;
        p.setBrush(Qt::NoBrush);
        if (cell >= 4) {
            p.setPen(QPen(th.cursor, 2 * s));
            p.drawRect(QRectF(l.plot.left(), y0, l.plot.width(), y1 - y0));
        } else {
            p.setPen(QPen(th.cursor, 1.5 * s));
            p.drawLine(QPointF(l.plot.left(), (y0 + y1) / 2), QPointF(l.plot.right(), (y0 + y1) / 2));
        }
    }
}

QStringList AttentionView::footerLines() const
{
    QStringList foot;
    if (showsHints() && m_hover)
        if (const QString r = readout(m_hover->y(), m_hover->x()); !r.isEmpty())
            foot << r;
    // Grey marks masked cells: named where the mask is causal (a bidirectional map has none).
    const QString masked = m_output && m_output->causal ? tr("  \u00b7  grey: masked") : QString();
    if (foot.isEmpty() && m_diff)
        foot << tr("A \u2212 B %1 \u2026 %2%3")
                    .arg(formatNumber(m_diffRange.lo, 3), formatNumber(m_diffRange.hi, 3), masked);
    if (foot.isEmpty()) {
        // Shorter wordings where the line is narrow: the content and the colour scale in use stay longest.
        const QString range = tr("%1 %2 \u2026 %3")
                                  .arg(m_output->softmax ? tr("probabilities") : tr("logits"),
                                       formatNumber(m_output->lo, 3), formatNumber(m_output->hi, 3));
        const QString scale = scaleNote();
        if (!masked.isEmpty())
            foot << tr("%1  \u00b7  %2%3%4").arg(contentNote(), range, scale, masked);
        foot << tr("%1  \u00b7  %2%3").arg(contentNote(), range, scale);
        if (!scale.isEmpty())
            foot << contentNote() + scale;
        foot << contentNote();
    }
    return foot;
}

std::optional<QPoint> AttentionView::hoveredCell(bool sideB) const
{
    if (!sideB)
        return m_hover;
    const auto* twin
        = showsHalves() ? qobject_cast<const AttentionView*>(const_cast<AttentionView*>(this)->compareTwin()) : nullptr;
    return twin ? twin->m_hover : std::nullopt;
}

QString AttentionView::hoverReadout() const
{
    if (const auto b = hoveredCell(true)) {
        const auto* twin = qobject_cast<const AttentionView*>(const_cast<AttentionView*>(this)->compareTwin());
        return twin->readout(b->y(), b->x());
    }
    return m_hover ? readout(m_hover->y(), m_hover->x()) : QString();
}

std::optional<QPointF> AttentionView::cellCentre(int row, int column, bool sideB) const
{
    if (sideB) {
        // B's half: the twin's own cell, moved to where View draws that half (twinArea()).
        const auto* twin = showsHalves()
            ? qobject_cast<const AttentionView*>(const_cast<AttentionView*>(this)->compareTwin())
            : nullptr;
        if (!twin)
            return std::nullopt;
        const auto c = twin->cellCentre(row, column, false);
        return c ? std::optional<QPointF>(*c + twinArea().topLeft()) : std::nullopt;
    }
    if (!m_output || row < 0 || column < 0 || row >= m_output->matrix.rows() || column >= m_output->matrix.cols())
        return std::nullopt;
    const Layout l = layoutFor(contentArea());
    const double cell = l.plot.height() / double(m_output->matrix.rows());
    return QPointF(l.plot.left() + (column + 0.5) * cell, l.plot.top() + (row + 0.5) * cell);
}

void AttentionView::mouseMoveEvent(QMouseEvent* e)
{
    const Layout l = layoutFor(contentArea());
    std::optional<QPoint> h;
    if (m_output && l.plot.contains(e->position()) && m_output->matrix.rows() > 0) {
        const double cell = l.plot.height() / m_output->matrix.rows();
        h = QPoint(int((e->position().x() - l.plot.left()) / cell), int((e->position().y() - l.plot.top()) / cell));
    }
    if (h != m_hover) {
        m_hover = h;
        update();
    }
}

void AttentionView::leaveEvent(QEvent*)
{
    m_hover.reset();
    update();
}

} // namespace poslab::ui
