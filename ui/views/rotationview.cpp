// SPDX-License-Identifier: MIT
#include "ui/views/rotationview.h"

#include "core/encodingregistry.h"
#include "core/rotary.h"
#include "ui/render/figuretitle.h"
#include "ui/render/plotutils.h"
#include "ui/views/cellwordings.h"

#include <QComboBox>
#include <QFontMetricsF>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QSpinBox>

#include <algorithm>
#include <cmath>

namespace poslab::ui {

RotationView::RotationView(WorkbenchState* state, Computation* computation, QWidget* parent)
    : View(state, computation, parent)
{
    setMouseTracking(true);
    connect(state, &WorkbenchState::cursorChanged, this, &View::refresh);
    resultChanged();
}

bool RotationView::supports(const core::SchemeDescriptor& scheme) const
{
    return scheme.rotary != nullptr;
}

QString RotationView::notApplicableReason() const
{
    return tr("%1 does not rotate queries and keys. Pick RoPE, xPos, YaRN or iRoPE to see rotation planes.")
        .arg(shortSchemeName(m_state->scheme()));
}

void RotationView::resultChanged()
{
    m_valid = false;
    m_dimPair.clear();
    if (!m_result || !m_result->rotary || !m_result->error.isEmpty())
        return;
    m_qSpec = m_result->sides.query;
    m_dimPair.assign(std::size_t(m_result->setup.dim), -1);
    for (int i = 0; i < m_qSpec.rotaryDim / 2; ++i) {
        const auto [a, b] = core::pairDims(m_qSpec.layout, m_qSpec.rotaryDim, i);
        m_dimPair[std::size_t(a)] = m_dimPair[std::size_t(b)] = i;
    }
    m_valid = true;
}

int RotationView::pairOfDim(int dim) const
{
    return dim >= 0 && dim < int(m_dimPair.size()) ? m_dimPair[std::size_t(dim)] : -1;
}

QColor RotationView::pairColour(int dim) const
{
    const Theme th = theme();
    const int pair = pairOfDim(dim);
    if (pair < 0)
        return th.grid;
    // Golden-ratio hues: neighbouring pairs get far-apart colours.
    return QColor::fromHsvF(std::fmod(pair * 0.61803398875, 1.0), 0.45, th.kind == ThemeKind::Dark ? 0.75 : 0.95);
}

std::vector<int> RotationView::stripDims() const
{
    std::vector<int> out;
    const int r = m_valid ? m_qSpec.rotaryDim : 0;
    if (r < 2)
        return out;
    if (m_qSpec.layout == core::PairLayout::HalfSplit) {
        // The first pairs' two halves: dims 0.. and their partners r/2.. (a gap between when r/2 is larger).
        const int n = std::min(8, r / 2);
        for (int i = 0; i < n; ++i)
            out.push_back(i);
        if (n < r / 2)
            out.push_back(-1);
        for (int i = 0; i < n; ++i)
            out.push_back(r / 2 + i);
    } else {
        for (int i = 0; i < std::min(16, r); ++i)
            out.push_back(i);
    }
    return out;
}

QStringList RotationView::headerNote() const
{
    const auto [m, n] = positions(false);
    const int asked = m_state->viewOptions().keyDistance;
    QStringList parts;
    if (m - n != asked)
        parts << tr("m \u2212 n = %1 would put the key before position 0").arg(asked);
    if (m_valid && !m_qSpec.xposZeta.empty())
        // torchscale centres xPos's exponent at c; the centre cancels in q.k, not in q and k themselves.
        parts << tr("xPos centre c = %1").arg(formatNumber(m_qSpec.xposCentre, 7));
    if (parts.isEmpty())
        return {};
    return {parts.join(QStringLiteral(" \u00b7 ")), parts.front()};
}

QString RotationView::headerText() const
{
    const auto [m, n] = positions(false);
    QString h = tr("m \u2212 n = %1: query m = %2, key n = %3")
                    .arg(formatNumber(m - n, 7), formatNumber(m, 7), formatNumber(n, 7));
    const QStringList note = headerNote();
    if (!note.isEmpty())
        h += QStringLiteral("; ") + note.front();
    return h;
}

core::RotationPlanes RotationView::planes(bool shifted) const
{
    const auto [m, n] = positions(shifted);
    for (const PlanesMemo& memo : m_planesMemo)
        if (memo.result && memo.result == m_result && memo.m == m && memo.n == n)
            return memo.planes;
    PlanesMemo& memo = m_planesMemo[shifted ? 1 : 0];
    memo = {m_result, m, n, AnglesFigure::planes(*m_result, m, n)};
    return memo.planes;
}

std::pair<core::Position, core::Position> RotationView::positions(bool shifted) const
{
    FigureSnapshot s;
    s.cursor = m_state->cursor();
    s.options = m_state->viewOptions();
    return AnglesFigure::rotationPositions(s, shifted);
}

double RotationView::score(bool shifted) const
{
    if (!m_valid)
        return 0.0;
    return planes(shifted).score;
}

std::vector<int> RotationView::shownPairs() const
{
    const int pairs = m_valid ? m_qSpec.rotaryDim / 2 : 0;
    std::vector<int> out;
    if (pairs == 0)
        return out;
    const QString text = m_state->viewOptions().clockPairs.trimmed();
    if (!text.isEmpty() && AnglesFigure::parsePairs(text, pairs, &out).isEmpty() && !out.empty()) {
        if (out.size() > 6)
            out.resize(6);
        return out;
    }
    const int n = std::min(pairs, 4);
    for (int k = 0; k < n; ++k)
        out.push_back(n == 1 ? 0 : int(std::lround(double(k) * (pairs - 1) / (n - 1))));
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

QWidget* RotationView::controls()
{
    if (m_controls)
        return m_controls;
    m_controls = new QWidget(this);
    auto* lay = new QHBoxLayout(m_controls);
    lay->setContentsMargins(0, 0, 0, 0);
    auto* dist = new QSpinBox(m_controls);
    dist->setObjectName(QStringLiteral("rotationDistance"));
    dist->setPrefix(QStringLiteral("m\u2212n "));
    dist->setRange(-(1 << 20), 1 << 20); // signed: a negative distance puts the key after the query
    dist->setToolTip(tr("Distance m \u2212 n from the key back to the query (negative: the key comes after it); the "
                        "query sits at the cursor m"));
    auto* shift = new QSpinBox(m_controls);
    shift->setObjectName(QStringLiteral("rotationShift"));
    shift->setPrefix(QStringLiteral("r "));
    shift->setRange(0, 1 << 20);
    shift->setToolTip(tr("Move both positions by r: the score does not change"));
    auto* layout = new QComboBox(m_controls);
    layout->setObjectName(QStringLiteral("rotationLayout"));
    layout->addItems({QStringLiteral("half_split"), QStringLiteral("interleaved")});
    layout->setToolTip(tr("Which dimensions pair up (the scheme's layout parameter)"));
    lay->addWidget(dist);
    lay->addWidget(shift);
    lay->addWidget(layout);
    auto sync = [this, dist, shift, layout] {
        QSignalBlocker b1(dist), b2(shift), b3(layout);
        dist->setValue(m_state->viewOptions().keyDistance);
        shift->setValue(m_state->viewOptions().shift);
        const bool has = m_state->params().has("layout");
        layout->setEnabled(has);
        m_controls->setEnabled(isApplicable());
        if (has)
            layout->setCurrentText(QString::fromStdString(m_state->params().choice("layout")));
    };
    sync();
    connect(m_state, &WorkbenchState::viewOptionsChanged, m_controls, sync);
    connect(m_state, &WorkbenchState::paramsChanged, m_controls, sync);
    connect(m_state, &WorkbenchState::schemeChanged, m_controls, sync);
    connect(dist, &QSpinBox::valueChanged, this, [this](int v) {
        ViewOptions o = m_state->viewOptions();
        o.keyDistance = v;
        m_state->setViewOptions(o);
    });
    connect(shift, &QSpinBox::valueChanged, this, [this](int v) {
        ViewOptions o = m_state->viewOptions();
        o.shift = v;
        m_state->setViewOptions(o);
    });
    connect(layout, &QComboBox::activated, this, [this, layout] {
        if (m_state->params().has("layout"))
            m_state->setParam(QStringLiteral("layout"), core::ParamValue::word(layout->currentText().toStdString()));
    });
    return m_controls;
}

void RotationView::drawLayoutStrip(QPainter& p, TextLayout& text, const QRectF& r, double s) const
{
    const Theme th = theme();
    const bool half = m_qSpec.layout == core::PairLayout::HalfSplit;
    const std::vector<int> dims = stripDims();
    const QFont f = th.font(9.5 * s);
    const QFontMetricsF fm(f);
    const int rd = m_qSpec.rotaryDim;
    const int shown = int(std::count_if(dims.begin(), dims.end(), [](int d) { return d >= 0; }));
    const QString first = tr("first %1 of r = %2 dims").arg(shown).arg(rd);
    const QStringList wordings = half
        ? QStringList{tr("half_split: dim i pairs with i + r/2 = i + %1 (GPT-NeoX, Hugging Face)").arg(rd / 2),
                      tr("half_split: dim i pairs with i + %1").arg(rd / 2),
                      tr("half_split: i pairs with i + %1").arg(rd / 2)}
        : QStringList{tr("interleaved: dims 2i and 2i+1 pair (GPT-J, Meta, RoFormer)") + QStringLiteral("  \u00b7  ")
                          + first,
                      tr("interleaved: dims 2i and 2i+1 pair (GPT-J, Meta, RoFormer)"),
                      tr("interleaved: 2i pairs with 2i+1") + QStringLiteral("  \u00b7  ") + first,
                      tr("interleaved: 2i pairs with 2i+1")};
    text.draw(QRectF(r.left(), r.top(), r.width(), fm.height()), Qt::AlignLeft | Qt::AlignVCenter, f, th.muted,
              wordings);
    const double top = r.top() + fm.height() + 2 * s;
    const double h = std::max(8.0, r.bottom() - top - fm.height() * 0.2);
    const double w = r.width() / std::max<std::size_t>(1, dims.size());
    // Cell labels in a font small enough that the widest number fits its cell with a gap (so none is dropped).
    QFont cellFont = f;
    {
        int widest = 0;
        for (int d : dims)
            widest = std::max(widest, d);
        const double need = QFontMetricsF(f).horizontalAdvance(QString::number(widest)) + 4;
        if (need > w - 2 && need > 0)
            cellFont.setPointSizeF(std::max(f.pointSizeF() * 0.6, f.pointSizeF() * (w - 2) / need));
    }
    for (std::size_t k = 0; k < dims.size(); ++k) {
        const int dim = dims[k];
        QRectF box(r.left() + double(k) * w + 1, top, w - 2, h);
        if (dim < 0) {
            text.draw(box, Qt::AlignCenter, f, th.muted, {QStringLiteral("\u2026")}, TextLayout::Fit::Drop);
            continue;
        }
        p.setPen(QPen(th.grid, 1));
        p.setBrush(pairColour(dim));
        p.drawRect(box);
        text.draw(box, Qt::AlignCenter, cellFont, Qt::black, {QString::number(dim)}, TextLayout::Fit::Drop);
    }
}

QString RotationView::hoverReadout() const
{
    if (!m_valid || !m_hover)
        return {};
    for (const auto& [rect, i] : m_cells) {
        if (!rect.contains(*m_hover))
            continue;
        // Computed now from the current state, so the read-out follows every change of cursor, r or layout.
        const auto [ms, ns] = positions(true);
        const auto [a, b] = core::pairDims(m_qSpec.layout, m_qSpec.rotaryDim, i);
        if (withholdsReadoutValues()) // View::withholdsReadoutValues: the plane named, its angles after the guess
            return withheldReadout(tr("pair %1 (dims %2, %3)").arg(i).arg(a).arg(b));
        const double theta = m_qSpec.invFreq[std::size_t(i)];
        const core::RotationPlanes pl = planes(true);
        const std::size_t at = std::size_t(i);
        auto deg = [](double rad) { return formatNumber(rad * 180.0 / M_PI, 4) + QStringLiteral("\u00b0"); };
        return tr("pair %1 (dims %2, %3)  \u00b7  \u03b8 = %4 rad/token  \u00b7  q turned %5 (m = %6), k turned %7 "
                  "(n = %8), apart %9  \u00b7  q\u00b7k part %10")
            .arg(i)
            .arg(a)
            .arg(b)
            .arg(formatNumber(theta, 4), deg(pl.queryAngle[at]))
            .arg(ms)
            .arg(deg(pl.keyAngle[at]))
            .arg(ns)
            .arg(deg(pl.gapAngle[at]), formatNumber(pl.pairScore[at], 4));
    }
    return {};
}

void RotationView::mouseMoveEvent(QMouseEvent* e)
{
    m_hover = e->position();
    update();
}

void RotationView::leaveEvent(QEvent*)
{
    m_hover.reset();
    update();
}

/// One paint of the rotation planes (RotationView::renderContent draws with one): the heading and scores, the
/// layout strip, the grid of planes with their wording levels (worked out once, layOut()), each plane and its
/// labels, the legend. Nested, so that it reads the view's rotation and records the on-screen cells.
struct RotationView::Painter {
    RotationView& v;
    QPainter& p;
    TextLayout& text;
    const QRectF target;
    const Theme th;
    const double s, pad;
    const bool pending; ///< a step's prediction is due (WorkbenchState::answerPending)
    const QFont small, bold;
    const QFontMetricsF sfm, lf;
    // Geometry (layOut()).
    QRectF strip;           ///< the layout strip at the bottom
    QRectF area;            ///< the planes' grid
    std::vector<int> pairs; ///< the pairs drawn
    int cols = 1;
    double cw = 0, ch = 0, labelH = 0;
    core::RotationPlanes pl; ///< q and k before and after the (shifted) rotation
    int nameLevel = 0, partLevel = 0;

    Painter(RotationView& view, QPainter& painter, TextLayout& layout, const QRectF& area, const Theme& theme)
        : v(view)
        , p(painter)
        , text(layout)
        , target(area)
        , th(theme)
        , s(sizeScale(area))
        , pad(8 * s)
        , pending(view.m_state->answerPending())
        , small(th.font(9.5 * s))
        , bold(th.font(10 * s, true))
        , sfm(small)
        , lf(bold)
    { }

    void draw()
    {
        const double y = drawHeading();
        const double stripH = sfm.height() * 2.6;
        strip = QRectF(target.left() + pad, target.bottom() - pad * 0.5 - stripH, target.width() - 2 * pad, stripH);
        v.drawLayoutStrip(p, text, strip, s);
        layOut(y);
        for (int idx = 0; idx < int(pairs.size()); ++idx)
            drawPlane(idx);
        drawLegend();
    }

    /// Header: the variant and m - n first (what the distance box sets), then the two scores. The note says
    /// when the key is held at position 0 and names xPos's centre. Returns the y below the scores.
    double drawHeading()
    {
        const auto [m, n] = v.positions(false);
        const int r = v.m_state->viewOptions().shift;
        const double sc = v.score(false), scs = v.score(true);
        const QString d = formatNumber(m - n, 7), mm = formatNumber(m, 7), nn = formatNumber(n, 7);
        const QString where = tr("m \u2212 n = %1: query m = %2, key n = %3").arg(d, mm, nn);
        const QString whereMid = tr("m \u2212 n = %1: m = %2, n = %3").arg(d, mm, nn);
        const QString whereShort = tr("m \u2212 n = %1").arg(d);
        double y = drawHeader(text, QRectF(target.left() + pad, target.top() + pad * 0.5, target.width() - 2 * pad, 0),
                              th, s, {v.m_state->figureLabel(), {where, whereMid, whereShort}, v.headerNote()});
        const QFont scoreFont = th.font(11 * s);
        const QFontMetricsF scfm(scoreFont);
        const QString v1 = formatNumber(sc, 6), v2 = formatNumber(scs, 6);
        const QStringList line1{tr("score q\u2032\u2098\u00b7k\u2032\u2099 = %1").arg(v1), tr("score = %1").arg(v1)};
        const bool same = std::abs(sc - scs) <= 1e-9 * std::max(1.0, std::abs(sc));
        const QString verdict = same ? tr("unchanged \u2713") : tr("changed by %1").arg(formatNumber(scs - sc, 3));
        const QString rr = formatNumber(r, 7);
        const QStringList line2{
            tr("shifted by r = %1:  q\u2032\u2098\u208a\u1d63\u00b7k\u2032\u2099\u208a\u1d63 = %2   %3")
                .arg(rr, v2, verdict),
            tr("shifted by r = %1: score = %2   %3").arg(rr, v2, verdict), tr("r = %1: %2 %3").arg(rr, v2, verdict),
            tr("r = %1: %2").arg(rr, verdict), verdict}; // the verdict is what the line says: it stays longest
        const QRectF row(target.left() + pad, y, target.width() - 2 * pad, scfm.height());
        // Predict, then see (WorkbenchState::answerPending): the two scores and the verdict answer 8.2 and 8.3, and
        // each pair's theta answers 8.1; they wait for the guess while the planes stay.
        const QStringList waiting{tr("score and verdict: after the guess"), tr("score: after the guess")};
        if (!text.draw(row, Qt::AlignLeft | Qt::AlignVCenter, scoreFont, pending ? th.muted : th.foreground,
                       pending ? waiting : line1)
                 .isEmpty())
            y += scfm.height();
        if (!pending
            && !text.draw(row.translated(0, y - row.top()), Qt::AlignLeft | Qt::AlignVCenter, scoreFont,
                          same ? th.accent3 : th.cursor, line2)
                    .isEmpty())
            y += scfm.height();
        return y;
    }

    QStringList nameWordings(int i) const
    {
        const auto [a, b] = core::pairDims(v.m_qSpec.layout, v.m_qSpec.rotaryDim, i);
        return QStringList{tr("pair %1 (dims %2, %3)").arg(i).arg(a).arg(b), tr("pair %1").arg(i), QString::number(i)};
    }

    QStringList partWordings(int i) const
    {
        const QString th3 = formatNumber(v.m_qSpec.invFreq[std::size_t(i)], 3);
        const QString part = formatNumber(pl.pairScore[std::size_t(i)], 3);
        return QStringList{tr("\u03b8 = %1 \u00b7 q\u00b7k part %2").arg(th3, part),
                           tr("\u03b8 %1 \u00b7 %2").arg(th3, part), tr("\u03b8 %1").arg(th3)};
    }

    /// The grid of planes below @p y and above the legend's line: the columns that give the largest planes, and
    /// one wording level for every cell's labels (the longest all of them hold, with a gap).
    void layOut(double y)
    {
        pairs = v.shownPairs();
        const int np = int(pairs.size());
        if (v.onScreen())
            v.m_cells.clear();
        area = QRectF(target.left() + pad, y + pad * 0.5, target.width() - 2 * pad,
                      strip.top() - y - pad - sfm.height() - 2 * s);
        labelH = sfm.height() * 2.2;
        int rows = 1;
        cols = np;
        double best = 0;
        for (int c = 1; c <= np; ++c) {
            const int rr = (np + c - 1) / c;
            const double size = std::min(area.width() / c, area.height() / rr - labelH);
            if (size > best) {
                best = size;
                cols = c;
                rows = rr;
            }
        }
        cw = area.width() / cols;
        ch = area.height() / rows;
        pl = v.planes(true);
        nameLevel = fittingLevel(lf, cw - 4 - lf.height(), pairs, [&](int i) { return nameWordings(i); });
        partLevel = fittingLevel(sfm, cw - 4 - sfm.height(), pairs, [&](int i) { return partWordings(i); });
    }

    /// An angle arc about @p c: from the unrotated vector (@p x0, @p y0), sweeping @p sweep.
    void drawAngleArc(QPointF c, double x0, double y0, double sweep, double radius, const QColor& col)
    {
        const double start = std::atan2(y0, x0);
        QColor cc = col;
        cc.setAlphaF(0.85);
        p.setPen(QPen(cc, 1.6 * s));
        p.setBrush(Qt::NoBrush);
        p.drawArc(QRectF(c.x() - radius, c.y() - radius, 2 * radius, 2 * radius),
                  int(std::lround(start / M_PI * 180 * 16)), int(std::lround(sweep / M_PI * 180 * 16)));
    }

    /// A vector from @p c to @p tip; solid ones with an arrow head.
    void drawArrow(QPointF c, QPointF tip, const QColor& col, qreal width, Qt::PenStyle style)
    {
        p.setPen(QPen(col, width, style, Qt::RoundCap));
        p.drawLine(c, tip);
        const QPointF d = tip - c;
        const double len = std::hypot(d.x(), d.y());
        if (len < 1e-6 || style != Qt::SolidLine)
            return;
        const QPointF u = d / len, nrm(-u.y(), u.x());
        const double hs = 7 * s;
        QPolygonF head({tip, tip - u * hs + nrm * hs * 0.5, tip - u * hs - nrm * hs * 0.5});
        p.setBrush(col);
        p.setPen(Qt::NoPen);
        p.drawPolygon(head);
    }

    /// The idx-th plane: its circle and axes, the angle arcs, q and k before (dashed) and after the rotation, and
    /// its labels.
    void drawPlane(int idx)
    {
        const int i = pairs[std::size_t(idx)];
        const auto [a, b] = core::pairDims(v.m_qSpec.layout, v.m_qSpec.rotaryDim, i);
        const QRectF cell(area.left() + (idx % cols) * cw, area.top() + (idx / cols) * ch, cw, ch);
        if (v.onScreen())
            v.m_cells.emplace_back(cell, i);
        const double R = std::max(6.0, std::min(cw, ch - labelH) * 0.42);
        const QPointF c(cell.center().x(), cell.top() + (ch - labelH) / 2);
        const auto at = [](const std::vector<double>& x, int dim) { return x[std::size_t(dim)]; };
        const QPointF q0(at(pl.queryBefore, a), at(pl.queryBefore, b)), k0(at(pl.keyBefore, a), at(pl.keyBefore, b));
        const QPointF q1(at(pl.query, a), at(pl.query, b)), k1(at(pl.key, a), at(pl.key, b));
        const double norm = std::max({std::hypot(q0.x(), q0.y()), std::hypot(k0.x(), k0.y()),
                                      std::hypot(q1.x(), q1.y()), std::hypot(k1.x(), k1.y()), 1e-12});
        auto pt = [&](QPointF u) { return QPointF(c.x() + u.x() / norm * R, c.y() - u.y() / norm * R); };
        p.setPen(QPen(th.grid, 1 * s));
        p.setBrush(th.panel);
        p.drawEllipse(c, R, R);
        p.drawLine(QPointF(c.x() - R, c.y()), QPointF(c.x() + R, c.y()));
        p.drawLine(QPointF(c.x(), c.y() - R), QPointF(c.x(), c.y() + R));
        // Angle arcs: from the unrotated vector, sweeping m*theta_i (query) and n*theta_i (key).
        drawAngleArc(c, q0.x(), q0.y(), pl.queryAngle[std::size_t(i)], R * 0.35, th.accent);
        drawAngleArc(c, k0.x(), k0.y(), pl.keyAngle[std::size_t(i)], R * 0.5, th.accent2);
        QColor faintQ = th.accent, faintK = th.accent2;
        faintQ.setAlphaF(0.45);
        faintK.setAlphaF(0.45);
        drawArrow(c, pt(q0), faintQ, 1.3 * s, Qt::DashLine);
        drawArrow(c, pt(k0), faintK, 1.3 * s, Qt::DashLine);
        drawArrow(c, pt(q1), th.accent, 2.6 * s, Qt::SolidLine);
        drawArrow(c, pt(k1), th.accent2, 2.6 * s, Qt::SolidLine);
        // Labels at the common wording level; a label that still does not fit is left out.
        double ly = c.y() + R + 3 * s;
        text.draw(QRectF(cell.left() + 2, ly, cell.width() - 4, lf.height()), Qt::AlignHCenter | Qt::AlignTop, bold,
                  th.foreground, nameWordings(i).mid(nameLevel), TextLayout::Fit::Drop);
        ly += lf.height();
        if (!pending)
            text.draw(QRectF(cell.left() + 2, ly, cell.width() - 4, sfm.height()), Qt::AlignHCenter | Qt::AlignTop,
                      small, th.muted, partWordings(i).mid(partLevel), TextLayout::Fit::Drop);
    }

    /// Legend, one line above the layout strip; an entry that does not fit is left out. The hover read-out takes
    /// its place while the mouse is on a plane.
    void drawLegend()
    {
        double lx = target.left() + pad;
        const double ly = strip.top() - sfm.height() - 2 * s;
        if (const QString hover = v.showsHints() ? v.hoverReadout() : QString(); !hover.isEmpty()) {
            text.draw(QRectF(lx, ly, target.width() - 2 * pad, sfm.height()), Qt::AlignLeft | Qt::AlignTop, small,
                      th.foreground, {hover});
            return;
        }
        for (const auto& [label, col] : {std::pair{tr("\u2501 q rotated by m\u03b8\u1d62"), th.accent},
                                         std::pair{tr("\u2501 k rotated by n\u03b8\u1d62"), th.accent2},
                                         std::pair{tr("\u2504 before rotation"), th.muted}}) {
            const QRectF drawn = text.drawAt(QPointF(lx, ly), Qt::AlignLeft | Qt::AlignTop, small, col, {label});
            if (drawn.isEmpty())
                break;
            lx = drawn.right() + 14 * s;
        }
    }
};

void RotationView::renderContent(QPainter& p, const QRectF& target)
{
    const Theme th = theme();
    p.fillRect(target, th.background);
    if (!m_valid)
        return;
    TextLayout text(p, target);
    Painter(*this, p, text, target, th).draw();
}

} // namespace poslab::ui
