// SPDX-License-Identifier: MIT
#include "ui/views/pipelineview.h"

#include "core/encodingregistry.h"
#include "ui/render/figuretitle.h"
#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"

#include <QComboBox>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace poslab::ui {

namespace {

/// The caption of a stage's panel, longest wording first.
QStringList captionOf(const core::PipelineStage& st, bool causal)
{
    const std::string& k = st.key;
    if (k == "embedding")
        return {QStringLiteral("e(w\u209c) token embedding"), QStringLiteral("e(w\u209c)")};
    if (k == "position")
        return {QStringLiteral("+ PE(t) position vector"), QStringLiteral("+ PE(t)")};
    if (k == "input")
        return st.label.find("PE") != std::string::npos
            ? QStringList{QStringLiteral("x\u209c = e(w\u209c) + PE(t)"), QStringLiteral("x\u209c")}
            : QStringList{QStringLiteral("x\u209c = e(w\u209c)"), QStringLiteral("x\u209c")};
    if (k == "w_q")
        return {QStringLiteral("W_Q (W_K alike)"), QStringLiteral("W_Q")};
    if (k == "q")
        return {QStringLiteral("q = W_Q x (k alike)"), QStringLiteral("q = W_Q x"), QStringLiteral("q")};
    if (k == "q_rotated")
        return {QStringLiteral("R(t) q rotated"), QStringLiteral("R(t) q")};
    if (k == "scores")
        return {QStringLiteral("q\u00b7k / \u221ad"), QStringLiteral("q\u00b7k")};
    if (k == "bias" && st.label.rfind("position part", 0) == 0) // a score scheme's own position terms
        return {QStringLiteral("position terms"), QStringLiteral("terms")};
    if (k == "bias")
        return {QStringLiteral("+ bias b(m, n)"), QStringLiteral("+ b(m, n)"), QStringLiteral("+ b")};
    if (k == "logits")
        return {QStringLiteral("logits with terms"), QStringLiteral("logits")};
    if (k == "mask")
        return causal ? QStringList{QStringLiteral("causal mask"), QStringLiteral("mask")}
                      : QStringList{QStringLiteral("no mask"), QStringLiteral("mask")};
    if (k == "weights")
        return {QStringLiteral("softmax weights"), QStringLiteral("weights"), QStringLiteral("α")};
    return {QString::fromStdString(k)};
}

/// An arrow from @p a to @p b with a head of @p head pixels.
void drawArrow(QPainter& p, QPointF a, QPointF b, double head)
{
    p.drawLine(a, b);
    const double ang = std::atan2(b.y() - a.y(), b.x() - a.x());
    QPainterPath tip;
    tip.moveTo(b);
    tip.lineTo(b - QPointF(std::cos(ang - 0.45), std::sin(ang - 0.45)) * head);
    tip.lineTo(b - QPointF(std::cos(ang + 0.45), std::sin(ang + 0.45)) * head);
    tip.closeSubpath();
    p.save();
    p.setBrush(p.pen().color());
    p.drawPath(tip);
    p.restore();
}

QString degrees(double radians)
{
    return formatNumber(radians * 180.0 / std::numbers::pi, 3) + QStringLiteral("\u00b0");
}

} // namespace

PipelineView::PipelineView(WorkbenchState* state, Computation* computation, QWidget* parent)
    : View(state, computation, parent)
    , m_figure(computation, [this](bool later) {
        buildImages();
        if (later)
            refresh();
    })
{
    connect(state, &WorkbenchState::cursorChanged, this, [this] {
        recompute();
        refresh();
    });
    connect(state, &WorkbenchState::viewOptionsChanged, this, [this] { recompute(); });
    // Its numbers do not wait for the encoding table: a new set-up recomputes them at once.
    connect(state, &WorkbenchState::setupChanged, this, [this] {
        recompute();
        refresh();
    });
    recompute();
}

void PipelineView::recompute()
{
    // The images follow the theme's grid colour too, so they are rebuilt whether or not the numbers changed (new
    // numbers: when they are delivered).
    if (!m_figure.update(FigureSnapshot::of(*m_state)) && !m_figure.isPending())
        buildImages();
}

void PipelineView::buildImages()
{
    m_images.clear();
    if (!data().error.isEmpty())
        return;
    const QRgb masked = theme().grid.rgb();
    if (data().nope) {
        const ColorMap map(ColorMapKind::Diverging);
        m_images.push_back(matrixToImage(data().nope->output.cast<float>(), map, data().nopeRange, masked));
        m_images.push_back(matrixToImage(data().nope->shuffledOutput.cast<float>(), map, data().nopeRange, masked));
        return;
    }
    for (std::size_t i = 0; i < data().pipeline.stages.size(); ++i) {
        const core::PipelineStage& st = data().pipeline.stages[i];
        const bool unit = st.key == "mask" || st.key == "weights";
        const ColorMap map(unit ? ColorMapKind::Viridis : ColorMapKind::Diverging);
        m_images.push_back(matrixToImage(st.values, map, data().ranges[i], masked));
    }
}

QWidget* PipelineView::controls()
{
    if (m_controls)
        return m_controls;
    m_controls = new QWidget(this);
    auto* lay = new QHBoxLayout(m_controls);
    lay->setContentsMargins(0, 0, 0, 0);
    auto* mode = new QComboBox(m_controls);
    mode->setObjectName(QStringLiteral("pipelineMode"));
    mode->addItems({tr("stages"), tr("NoPE and the mask")});
    auto* pair = new QSpinBox(m_controls);
    pair->setObjectName(QStringLiteral("pipelinePair"));
    pair->setPrefix(tr("pair "));
    pair->setRange(0, core::maxPipelinePair);
    pair->setToolTip(tr("The rotation pair drawn where adding and rotating are compared"));
    lay->addWidget(mode);
    lay->addWidget(pair);
    auto sync = [this, mode, pair] {
        const ViewOptions& o = m_state->viewOptions();
        QSignalBlocker b1(mode), b2(pair);
        mode->setCurrentIndex(int(o.pipelineMode));
        pair->setValue(o.pipelinePair);
        pair->setVisible(o.pipelineMode == PipelineMode::Stages);
    };
    sync();
    connect(m_state, &WorkbenchState::viewOptionsChanged, m_controls, sync);
    connect(mode, &QComboBox::currentIndexChanged, this,
            [this](int i) { m_state->setProperty(QStringLiteral("pipeline_mode"), i); });
    connect(pair, &QSpinBox::valueChanged, this,
            [this](int v) { m_state->setProperty(QStringLiteral("pipeline_pair"), v, true); });
    return m_controls;
}

int PipelineView::stageIndex(const QString& key) const
{
    const auto& stages = data().pipeline.stages;
    for (std::size_t i = 0; i < stages.size(); ++i)
        if (QString::fromStdString(stages[i].key) == key)
            return int(i);
    return -1;
}

QStringList PipelineView::panelKeys() const
{
    QStringList keys;
    if (!data().error.isEmpty() || data().nope)
        return keys;
    if (stageIndex(QStringLiteral("position")) >= 0)
        keys << QStringLiteral("embedding") << QStringLiteral("position");
    keys << QStringLiteral("input") << QStringLiteral("w_q") << QStringLiteral("q");
    if (stageIndex(QStringLiteral("q_rotated")) >= 0)
        keys << QStringLiteral("q_rotated");
    keys << QStringLiteral("scores");
    if (stageIndex(QStringLiteral("bias")) >= 0)
        keys << QStringLiteral("bias");
    else if (stageIndex(QStringLiteral("logits")) >= 0)
        keys << QStringLiteral("logits");
    keys << QStringLiteral("mask") << QStringLiteral("weights");
    return keys;
}

void PipelineView::renderContent(QPainter& p, const QRectF& target)
{
    const Theme th = theme();
    p.fillRect(target, th.background);
    if (!data().error.isEmpty()) {
        drawNotApplicable(p, target, th, tr("Cannot compute the pipeline"), data().error);
        return;
    }
    if (data().nope)
        renderNope(p, target);
    else
        renderStages(p, target);
}

/// One paint of the pipeline figure (renderStages or renderNope draws with one): the fonts and the measures both
/// modes share, and their parts in turn. Stages: the header and the entry line, the grid of stage panels, the
/// footer, the added-vs-rotated side panel. NoPE: the header, the shuffle panel, the read-back panel.
struct PipelineView::Painter {
    const PipelineView& v;
    QPainter& p;
    TextLayout& text;
    const QRectF target;
    const Theme th;
    const PipelineData& d;
    const double s, pad;
    const QFont body, small;
    const QFontMetricsF fm, fs;
    const double em;

    Painter(const PipelineView& view, QPainter& painter, TextLayout& layout, const QRectF& area, const Theme& theme)
        : v(view)
        , p(painter)
        , text(layout)
        , target(area)
        , th(theme)
        , d(view.data())
        , s(sizeScale(area))
        , pad(8 * s)
        , body(th.font(10 * s))
        , small(th.font(9 * s))
        , fm(body)
        , fs(small)
        , em(fm.height())
    { }

    /// The header across the top; returns its area.
    QRectF drawHeading(const HeaderTexts& header)
    {
        const QRectF headArea(target.left() + pad, target.top() + pad * 0.5, target.width() - 2 * pad,
                              headerHeight(target.width() - 2 * pad, th, s, header));
        drawHeader(text, headArea, th, s, header);
        return headArea;
    }

    // --- Stages --------------------------------------------------------------------------------------------------

    /// Where the stages go: the panels' grid, the side panel (when there is width for it) and the footer.
    struct StagesLayout {
        QRectF grid, sideRect, footer;
        bool side = false;
    };

    void drawStages()
    {
        const StagesLayout l = layOutStages(drawStagesHeading());
        drawStagePanels(l.grid);
        const QString word = drawStagesFooter(l.footer);
        if (l.side)
            drawAddOrRotate(l.sideRect, word);
    }

    /// Header: the variant; where the position enters; head and mask. Under it where the position enters, in
    /// words: up to two lines of the smaller font. Returns the bottom of that line.
    double drawStagesHeading()
    {
        const core::PipelineResult& pl = d.pipeline;
        const bool causal = d.request.mask == core::MaskKind::Causal;
        const QString where = QString::fromLatin1(core::positionEntryName(pl.entry).data());
        const QRectF headArea = drawHeading({v.m_state->figureLabel(),
                                             {tr("position enters: %1").arg(where), where},
                                             {tr("head %1 of %2 \u00b7 %3")
                                                  .arg(d.request.head)
                                                  .arg(d.request.heads)
                                                  .arg(causal ? tr("causal") : tr("bidirectional")),
                                              causal ? tr("causal") : tr("bidirectional")}});
        const QRectF entryBox(headArea.left(), headArea.bottom(), headArea.width(), fs.height() * 2.05);
        // An iRoPE NoPE layer says so first ("layer 3: NoPE, no rotation"); its temperature is the sentence's.
        const QString layer = v.noRotationSummary().section(QStringLiteral(" \u00b7 "), 0, 0);
        const QRectF used = text.drawWrapped(entryBox, Qt::AlignLeft | Qt::AlignTop, small, th.accent,
                                             (layer.isEmpty() ? QString() : layer + QStringLiteral(": "))
                                                 + QString::fromStdString(pl.entryText));
        return headArea.bottom() + (used.isEmpty() ? 0.0 : used.bottom() - headArea.bottom());
    }

    StagesLayout layOutStages(double entryBottom)
    {
        StagesLayout l;
        const double left = target.left() + pad, width = target.width() - 2 * pad;
        l.footer = QRectF(left, target.bottom() - em * 1.25 - pad * 0.5, width, em * 1.2);
        // The side panel (added vs rotated) takes the right part when there is width for it.
        const double top = entryBottom + pad * 0.5;
        const double bottom = l.footer.top() - pad * 0.5;
        l.side = d.vector.has_value() && target.width() >= 20 * em;
        const double sideW = l.side ? std::max(8.0 * em, target.width() * 0.27) : 0.0;
        l.grid
            = QRectF(target.left() + pad, top, target.width() - 2 * pad - sideW - (l.side ? pad : 0.0), bottom - top);
        l.sideRect = QRectF(l.grid.right() + pad, top, sideW, bottom - top);
        return l;
    }

    /// Panels: the column count that gives the largest heatmaps; an arrow from each panel to the next in its row.
    void drawStagePanels(const QRectF& grid)
    {
        const QStringList keys = v.panelKeys();
        const int n = int(keys.size());
        const double gap = em * 1.1;     // room for the arrow between panels
        const double caption = em * 1.2; // caption above each heatmap
        int bestCols = 1;
        double bestSide = 0;
        for (int c = 1; c <= n; ++c) {
            const int rows = (n + c - 1) / c;
            const double cellW = (grid.width() + gap) / c - gap;
            const double cellH = grid.height() / rows - caption - em * 0.3;
            const double side = std::min(cellW, cellH);
            if (side > bestSide) {
                bestSide = side;
                bestCols = c;
            }
        }
        const int cols = bestCols;
        const double cellW = (grid.width() + gap) / cols - gap;
        const double rowH = grid.height() / ((n + cols - 1) / cols);
        QPointF previousRight;
        for (int i = 0; i < n; ++i) {
            const int idx = v.stageIndex(keys[i]);
            if (idx < 0)
                continue;
            const int r = i / cols, c = i % cols;
            const QRectF img = drawStagePanel(
                idx, QRectF(grid.left() + c * (cellW + gap), grid.top() + r * rowH, cellW, rowH), caption);
            const QPointF left(img.left() - 3 * s, img.center().y());
            if (c > 0 && !previousRight.isNull()) {
                p.setPen(QPen(th.muted, 1.5 * s));
                drawArrow(p, QPointF(previousRight.x() + 3 * s, left.y()), left, 5 * s);
            }
            previousRight = QPointF(img.right(), img.center().y());
        }
    }

    /// Stage @p idx's caption and heatmap in @p cell, framed where the position enters, with the followed query
    /// row outlined; returns the heatmap's rectangle.
    QRectF drawStagePanel(int idx, const QRectF& cell, double caption)
    {
        const core::PipelineStage& st = d.pipeline.stages[std::size_t(idx)];
        const QRectF cap(cell.left(), cell.top(), cell.width(), caption);
        const double availH = cell.height() - caption - em * 0.3;
        // Every stage in the same square (a 10 x 128 stage gets tall cells, so its rows stay visible).
        const double rowsM = double(st.values.rows());
        const double side = std::max(0.0, std::min(cell.width(), availH));
        const QRectF img(cell.left() + (cell.width() - side) / 2, cap.bottom() + em * 0.15, side, side);
        text.draw(cap, Qt::AlignHCenter | Qt::AlignBottom, small, st.entry ? th.accent : th.foreground,
                  captionOf(st, d.request.mask == core::MaskKind::Causal));
        p.setRenderHint(QPainter::SmoothPixmapTransform, false);
        p.drawImage(img, v.m_images[std::size_t(idx)]);
        p.setBrush(Qt::NoBrush);
        p.setPen(st.entry ? QPen(th.accent, 3 * s) : QPen(th.muted, 1));
        p.drawRect(st.entry ? img.adjusted(-2 * s, -2 * s, 2 * s, 2 * s) : img);
        // The followed query row, in every stage that has one row per token or query.
        if ((st.rowAxis == "token" || st.rowAxis == "query") && d.followed < st.values.rows()) {
            const double rh = img.height() / rowsM;
            p.setPen(QPen(th.cursor, std::max(1.0, 1.5 * s)));
            p.drawRect(QRectF(img.left(), img.top() + d.followed * rh, img.width(), rh));
        }
        return img;
    }

    /// Footer: the followed row. Returns the followed token's word.
    QString drawStagesFooter(const QRectF& footer)
    {
        const core::PipelineResult& pl = d.pipeline;
        const int followed = d.followed;
        const QString word
            = followed < int(pl.tokens.size()) ? QString::fromStdString(pl.tokens[std::size_t(followed)]) : QString();
        QStringList foot;
        const QString frame = tr("framed: where the position enters");
        if (!d.followNote.isEmpty())
            foot << tr("row %1 '%2' outlined (%3) \u00b7 %4").arg(followed).arg(word, d.followNote, frame);
        foot << tr("query %1 '%2' outlined in every stage \u00b7 %3").arg(followed).arg(word, frame)
             << tr("query %1 '%2' outlined").arg(followed).arg(word);
        text.draw(footer, Qt::AlignLeft | Qt::AlignVCenter, small, th.muted, foot);
        return word;
    }

    /// Added vs rotated: the pair's plane, then the norms and angles over all d dimensions.
    void drawAddOrRotate(const QRectF& sideRect, const QString& word)
    {
        const core::PositionVectorDemo& vec = *d.vector;
        const QRectF sideTitle(sideRect.left(), sideRect.top(), sideRect.width(), em * 1.2);
        text.draw(sideTitle, Qt::AlignLeft | Qt::AlignVCenter, th.font(10 * s, true), th.foreground,
                  {tr("add or rotate: pair %1 at p = %2").arg(vec.pair).arg(vec.position),
                   tr("pair %1, p = %2").arg(vec.pair).arg(vec.position)});
        const QFont note = th.font(8 * s);
        const double noteH = QFontMetricsF(note).height();
        const double textH = 4 * noteH * 1.1;
        const double planeSide
            = std::max(0.0, std::min(sideRect.width(), sideRect.height() - sideTitle.height() - textH - em * 0.5));
        const QRectF plane(sideRect.left() + (sideRect.width() - planeSide) / 2, sideTitle.bottom() + em * 0.2,
                           planeSide, planeSide);
        if (planeSide > 2.5 * em)
            drawVectorPlane(vec, plane);
        double y = std::max(plane.bottom(), sideTitle.bottom()) + em * 0.3;
        // Every wording keeps its numbers whole: the shortest ones are the numbers alone.
        const auto line = [&](const QColor& col, const QStringList& words) {
            text.draw(QRectF(sideRect.left(), y, sideRect.width(), noteH), Qt::AlignLeft | Qt::AlignVCenter, note, col,
                      words, TextLayout::Fit::Drop);
            y += noteH * 1.1;
        };
        const QString n0 = formatNumber(vec.norm, 4), n1 = formatNumber(vec.normAdded, 4),
                      n2 = formatNumber(vec.normRotated, 4);
        const QString a1 = degrees(vec.angleAdded), a2 = degrees(vec.angleRotated);
        line(th.foreground, {tr("v = e('%1'): |v| = %2").arg(word, n0), tr("|v| = %1").arg(n0), n0});
        line(th.accent2,
             {tr("v + PE(%1) (%2): |\u00b7| = %3, %4 from v")
                  .arg(vec.position)
                  .arg(QString::fromStdString(vec.additiveScheme), n1, a1),
              tr("added: |\u00b7| = %1, %2").arg(n1, a1), tr("+PE: %1, %2").arg(n1, a1), n1});
        line(th.accent,
             {tr("R(%1) v (%2): |\u00b7| = %3, %4 from v")
                  .arg(vec.position)
                  .arg(QString::fromStdString(vec.rotaryScheme), n2, a2),
              tr("rotated: |\u00b7| = %1, %2").arg(n2, a2), tr("R: %1, %2").arg(n2, a2), n2});
        if (vec.scaleReason.empty())
            line(th.muted,
                 {tr("the rotation keeps the norm; pair %1 turns %2").arg(vec.pair).arg(degrees(vec.pairAngle)),
                  tr("rotation keeps the norm"), tr("norm kept")});
        else
            line(th.muted,
                 {tr("norm \u00d7 %1: %2").arg(formatNumber(vec.normScale, 4), QString::fromStdString(vec.scaleReason)),
                  tr("norm \u00d7 %1").arg(formatNumber(vec.normScale, 4))});
    }

    /// The pair's plane: axes, the vector's circle, the vector, the vector with a position added, and rotated.
    void drawVectorPlane(const core::PositionVectorDemo& vec, const QRectF& plane)
    {
        const auto at
            = [&](const std::vector<double>& x) { return QPointF(x[std::size_t(vec.dimA)], x[std::size_t(vec.dimB)]); };
        const QPointF a = at(vec.vector), b = at(vec.added), c = at(vec.rotated);
        const double reach
            = std::max({std::hypot(a.x(), a.y()), std::hypot(b.x(), b.y()), std::hypot(c.x(), c.y()), 1e-9});
        const double k = plane.width() * 0.46 / reach;
        const QPointF o = plane.center();
        const auto px = [&](QPointF q) { return QPointF(o.x() + q.x() * k, o.y() - q.y() * k); };
        p.setPen(QPen(th.grid, 1));
        p.drawLine(QPointF(plane.left(), o.y()), QPointF(plane.right(), o.y()));
        p.drawLine(QPointF(o.x(), plane.top()), QPointF(o.x(), plane.bottom()));
        const double r = std::hypot(a.x(), a.y()) * k;
        p.setPen(QPen(th.muted, 1, Qt::DashLine));
        p.drawEllipse(o, r, r);
        p.setPen(QPen(th.foreground, 2 * s));
        drawArrow(p, o, px(a), 7 * s);
        p.setPen(QPen(th.accent2, 2 * s));
        drawArrow(p, o, px(b), 7 * s);
        p.setPen(QPen(th.accent, 2 * s));
        drawArrow(p, o, px(c), 7 * s);
    }

    // --- NoPE ----------------------------------------------------------------------------------------------------

    void drawNope()
    {
        const QRectF headArea = drawHeading({tr("NoPE and the causal mask"),
                                             {tr("no position: only the mask carries order"), tr("no position")},
                                             {tr("head dimension %1").arg(v.m_state->dim()), QString()}});
        const double top = headArea.bottom() + pad * 0.5;
        const QRectF left(target.left() + pad, top, (target.width() - 3 * pad) * 0.55, target.bottom() - pad - top);
        const QRectF right(left.right() + pad, top, target.right() - pad - left.right() - pad, left.height());
        drawShuffle(left);
        drawReadBack(right);
    }

    /// Left: one attention layer without positions, on the sentence and on its shuffle; rows joined by the
    /// permutation; under them how far the outputs differ without and with the causal mask.
    void drawShuffle(const QRectF& left)
    {
        const core::NopeDemo& nd = *d.nope;
        text.draw(QRectF(left.left(), left.top(), left.width(), em * 1.15), Qt::AlignLeft | Qt::AlignVCenter,
                  th.font(10 * s, true), th.foreground,
                  {tr("bidirectional, no position: shuffle the words, the outputs shuffle alike"),
                   tr("shuffle the words: outputs shuffle alike"), tr("outputs shuffle alike")});
        const double notesH = 2 * em * 1.15;
        const QRectF area(left.left(), left.top() + em * 1.3, left.width(), left.height() - em * 1.3 - notesH);
        double wordW = 0;
        for (const auto& w : nd.words)
            wordW = std::max(wordW, fs.horizontalAdvance(QString::fromStdString(w)));
        const int n = int(nd.words.size());
        const double link = std::max(2.5 * em, area.width() * 0.12);
        const double rowH = std::min(area.height() - em * 1.2, n * em * 1.6) / std::max(1, n);
        const bool labels = rowH >= fs.height() * 0.95;
        const double matW = std::max(0.0, (area.width() - (labels ? 2 * (wordW + 4 * s) : 0.0) - link) / 2);
        const QRectF m1(area.left() + (labels ? wordW + 4 * s : 0.0), area.top() + em * 1.2, matW, rowH * n);
        const QRectF m2(m1.right() + link, m1.top(), matW, m1.height());
        text.draw(QRectF(m1.left(), area.top(), m1.width(), em * 1.1), Qt::AlignHCenter | Qt::AlignVCenter, small,
                  th.muted, {tr("outputs O (sentence)"), tr("O")});
        text.draw(QRectF(m2.left(), area.top(), m2.width(), em * 1.1), Qt::AlignHCenter | Qt::AlignVCenter, small,
                  th.muted, {tr("O\u2032 (shuffled)"), tr("O\u2032")});
        if (matW > em && rowH > 0)
            drawShuffledOutputs(m1, m2, rowH, labels);
        double y = left.bottom() - notesH;
        text.draw(QRectF(left.left(), y, left.width(), em * 1.1), Qt::AlignLeft | Qt::AlignVCenter, small,
                  th.foreground,
                  {tr("no mask: max |O\u2032(t) \u2212 O(\u03c0(t))| = %1 (rounding)")
                       .arg(formatNumber(nd.equivarianceError, 2)),
                   tr("no mask: max difference %1").arg(formatNumber(nd.equivarianceError, 2)),
                   tr("no mask: %1").arg(formatNumber(nd.equivarianceError, 2))});
        y += em * 1.15;
        text.draw(QRectF(left.left(), y, left.width(), em * 1.1), Qt::AlignLeft | Qt::AlignVCenter, small, th.accent,
                  {tr("causal mask: %1, the order leaks").arg(formatNumber(nd.causalError, 3)),
                   tr("causal: %1").arg(formatNumber(nd.causalError, 3))});
    }

    /// The two outputs O (in @p m1) and O' (in @p m2), the permutation's links, and the words beside the rows.
    void drawShuffledOutputs(const QRectF& m1, const QRectF& m2, double rowH, bool labels)
    {
        const core::NopeDemo& nd = *d.nope;
        const int n = int(nd.words.size());
        p.setRenderHint(QPainter::SmoothPixmapTransform, false);
        p.drawImage(m1, v.m_images[0]);
        p.drawImage(m2, v.m_images[1]);
        p.setPen(QPen(th.muted, 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(m1);
        p.drawRect(m2);
        p.setPen(QPen(th.accent, 1.2 * s));
        for (int t = 0; t < n; ++t) {
            const double yt = m2.top() + (t + 0.5) * rowH;
            const double ys = m1.top() + (double(nd.permutation[std::size_t(t)]) + 0.5) * rowH;
            p.drawLine(QPointF(m1.right() + 2 * s, ys), QPointF(m2.left() - 2 * s, yt));
        }
        if (labels)
            for (int t = 0; t < n; ++t) {
                const double y = m1.top() + (t + 0.5) * rowH;
                text.drawAt(QPointF(m1.left() - 4 * s, y), Qt::AlignRight | Qt::AlignVCenter, small, th.foreground,
                            {QString::fromStdString(nd.words[std::size_t(t)])});
                text.drawAt(QPointF(m2.right() + 4 * s, y), Qt::AlignLeft | Qt::AlignVCenter, small, th.foreground,
                            {QString::fromStdString(nd.shuffled[std::size_t(t)])});
            }
    }

    /// Right: uniform causal attention gives query i the weight 1/(i+1) on the first token; read the position back.
    void drawReadBack(const QRectF& right)
    {
        const core::NopeDemo& nd = *d.nope;
        text.draw(
            QRectF(right.left(), right.top(), right.width(), em * 1.15), Qt::AlignLeft | Qt::AlignVCenter,
            th.font(10 * s, true), th.foreground,
            {tr("causal, uniform: weight on token 0 is 1/(i+1)"), tr("weight on token 0: 1/(i+1)"), tr("1/(i+1)")});
        const int m = int(nd.recovered.size());
        const double maxPos = std::max(1, m - 1);
        const double tickW = fs.horizontalAdvance(QStringLiteral("0000")) + 6 * s;
        const QRectF plot(right.left() + tickW + em * 1.2, right.top() + em * 1.6, right.width() - tickW - em * 1.6,
                          right.height() - em * 1.6 - em * 2.6);
        if (plot.width() < 3 * em || plot.height() < 3 * em)
            return;
        const auto px = [&](double xv, double yv) {
            return QPointF(plot.left() + xv / maxPos * plot.width(), plot.bottom() - yv / maxPos * plot.height());
        };
        p.setPen(QPen(th.muted, 1));
        p.setBrush(Qt::NoBrush);
        p.drawRect(plot);
        p.setPen(QPen(th.grid, 1, Qt::DashLine));
        p.drawLine(px(0, 0), px(maxPos, maxPos));
        const int nt = std::max(2, int(plot.height() / (fs.height() * 2.2)));
        for (double t : integerTicks(0, maxPos, nt)) {
            text.drawAt(QPointF(plot.left() - 4 * s, px(0, t).y()), Qt::AlignRight | Qt::AlignVCenter, small,
                        th.foreground, {formatNumber(t, 4)});
            text.drawAt(QPointF(px(t, 0).x(), plot.bottom() + 3 * s), Qt::AlignHCenter | Qt::AlignTop, small,
                        th.foreground, {formatNumber(t, 4)});
        }
        text.draw(QRectF(plot.left(), plot.bottom() + 3 * s + fs.height(), plot.width(), fs.height()),
                  Qt::AlignHCenter | Qt::AlignTop, small, th.muted, {tr("true position i"), tr("i")});
        p.save();
        p.translate(right.left() + fs.height() * 0.1, plot.center().y());
        p.rotate(-90);
        text.draw(QRectF(-plot.height() / 2, 0, plot.height(), fs.height()), Qt::AlignHCenter | Qt::AlignTop, small,
                  th.muted, {tr("read back: 1/w \u2212 1"), tr("read back")});
        p.restore();
        p.setPen(Qt::NoPen);
        p.setBrush(th.accent);
        const double dot = std::max(2.0, std::min(4.5 * s, plot.width() / std::max(1, m) * 0.4));
        for (int i = 0; i < m; ++i)
            p.drawEllipse(px(i, nd.recovered[std::size_t(i)]), dot, dot);
    }
};

void PipelineView::renderStages(QPainter& p, const QRectF& target)
{
    TextLayout text(p, target);
    Painter(*this, p, text, target, theme()).drawStages();
}

void PipelineView::renderNope(QPainter& p, const QRectF& target)
{
    TextLayout text(p, target);
    Painter(*this, p, text, target, theme()).drawNope();
}

} // namespace poslab::ui
