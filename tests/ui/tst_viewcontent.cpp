// SPDX-License-Identifier: MIT
// What the views show ("defaults that teach" and the content defects): defaults with a visible key
// property, not-applicable states that explain themselves (iRoPE's NoPE layer), xPos's centre, the pairing
// colours of both layouts, hover read-outs that follow changes, the decay view's RoFormer bound, axes and
// legends, and the table's aliasing note in window and export alike. Every reference value is computed here
// from the cited formula, not by the code under test.
#include "core/encodingregistry.h"
#include "ui/figures/computation.h"
#include "ui/figures/decayfigure.h"
#include "ui/views/attentionview.h"
#include "ui/render/textlayout.h"
#include "ui/views/clockview.h"
#include "ui/render/plotutils.h"
#include "ui/views/curveitem.h"
#include "ui/views/decayview.h"
#include "ui/views/rotationview.h"
#include "ui/views/tableview.h"
#include "ui/views/view.h"
#include "ui/views/viewlist.h"
#include "ui/state/workbenchstate.h"

#include <QApplication>
#include <QBuffer>
#include <QChart>
#include <QGraphicsScene>
#include <QGraphicsSceneHoverEvent>
#include <QGraphicsView>
#include <QLocale>
#include <QMouseEvent>
#include <QPainter>
#include <QRegularExpression>
#include <QSvgGenerator>
#include <QSpinBox>
#include <QUndoStack>
#include <QTest>

#include <cmath>
#include <complex>
#include <memory>

using namespace poslab;
using namespace poslab::ui;

namespace {

/// Settles the computation: the table worker and the synchronous attention.
void settle(Computation& c)
{
    c.flush();
    c.waitForTable();
}

/// Shows @p view at @p size and waits until it is on screen with its computation settled and its chart's deferred
/// refits done. False if the window never appeared.
bool showSettled(QWidget& view, Computation& c, QSize size, int waitMs = 50)
{
    view.resize(size);
    view.show();
    if (!QTest::qWaitForWindowExposed(&view))
        return false;
    settle(c);
    QTest::qWait(waitMs);
    return true;
}

/// The view drawn into an SVG (the export path); returns the SVG text, where every drawn string appears.
QString svgOf(View& v, QSize size = QSize(1000, 700))
{
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    {
        QPainter p(&svg);
        v.render(p, QRectF(QPointF(0, 0), QSizeF(size)));
    }
    return QString::fromUtf8(buffer.data());
}

/// Sends a mouse move to @p w at @p at.
void moveMouse(QWidget& w, QPointF at)
{
    QMouseEvent e(QEvent::MouseMove, at, w.mapToGlobal(at), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &e);
}

/// Scans the widget for a place where @p readout is not empty (a hovered cell); returns that place.
template <class V> std::optional<QPointF> findHover(V& view)
{
    for (int y = 20; y < view.height(); y += 10)
        for (int x = 20; x < view.width(); x += 10) {
            moveMouse(view, QPointF(x, y));
            if (!view.hoverReadout().isEmpty())
                return QPointF(x, y);
        }
    return std::nullopt;
}

/// T5's bucket of a key k tokens before the query (rel = -k), Raffel et al. 2020 and Hugging Face
/// modeling_t5.py _relative_position_bucket, written out here independently.
int t5BucketBefore(long long k, bool bidirectional, int n, int maxDistance)
{
    int offset = 0;
    long long r = 0;
    if (bidirectional) {
        n /= 2;
        r = k; // rel < 0: bucket offset 0, r = |rel|
    } else {
        r = std::max<long long>(k, 0);
    }
    const int exact = n / 2;
    if (r < exact)
        return offset + int(r);
    const int large = exact + int(std::log(double(r) / exact) / std::log(double(maxDistance) / exact) * (n - exact));
    return offset + std::min(large, n - 1);
}

} // namespace

class TestViewContent : public QObject {
    Q_OBJECT
private slots:
    void defaultsShowTheKeyProperty()
    {
        // Cursor 0 shows every hand at 12 and every angle 0; r = 0 makes "unchanged" trivially true.
        WorkbenchState state;
        QVERIFY(state.cursor() > 0);
        QCOMPARE(state.animationTime(), double(state.cursor()));
        QVERIFY(state.viewOptions().shift != 0);
        // Random q, k hide the position pattern of these schemes: they open on constant content.
        for (const char* id : {"rope", "nope", "learned", "deberta"}) {
            QVERIFY(state.setScheme(id).isEmpty() || state.schemeId() == id);
            QCOMPARE(int(state.viewOptions().content), int(AttentionContent::Constant));
        }
        // A content the user picks stays when the scheme changes.
        ViewOptions o = state.viewOptions();
        o.content = AttentionContent::Random;
        state.setViewOptions(o);
        state.setScheme("alibi");
        QCOMPARE(int(state.viewOptions().content), int(AttentionContent::Random));
    }

    void attentionSaysWhatTheContentIs()
    {
        WorkbenchState state;
        Computation computation(&state);
        computation.setSynchronousAttention(true);
        AttentionView view(&state, &computation);
        state.setDim(32);
        state.setPositionCount(48);
        settle(computation);
        QVERIFY2(view.contentNote().contains("constant q = k"), qPrintable(view.contentNote()));
        QVERIFY(svgOf(view).contains("constant q = k"));
    }

    void rotationHeaderAgreesWithTheDistanceBox()
    {
        // The box asks m - n = 3; at the default cursor the header must say 3 as well.
        WorkbenchState state;
        Computation computation(&state);
        RotationView view(&state, &computation);
        settle(computation);
        const auto [m, n] = view.positions(false);
        QCOMPARE(int(m - n), state.viewOptions().keyDistance);
        QVERIFY(view.headerText().contains(QStringLiteral("m \u2212 n = 3")));
        // At cursor 1 the key would sit at -2: the header says the distance is held, not silently 1.
        state.setCursor(1);
        QVERIFY2(view.headerText().contains(QStringLiteral("m \u2212 n = 3 would put the key before position 0")),
                 qPrintable(view.headerText()));
    }

    void pinnedClockPairsFollowDimAndOnlyTheSlowestIsTheHourHand()
    {
        // The pins 0, 64, 127 stayed and pair 127 was called the hour hand with a period
        // of 11.12 tokens. Now the pins follow d in the same undo step, and the names belong to the scheme's own
        // fastest and slowest pairs.
        WorkbenchState state;
        Computation computation(&state);
        QCOMPARE(state.setScheme(QStringLiteral("sinusoidal")), QString());
        QCOMPARE(state.setDim(256), QString());
        QCOMPARE(state.setProperty(QStringLiteral("clock_pairs"), QStringLiteral("0,64,127")), QString());
        QCOMPARE(state.setDim(4096), QString());
        QCOMPARE(state.viewOptions().clockPairs, QStringLiteral("0,1032,2047"));
        state.undoStack()->undo(); // one step: d and its pins together
        QCOMPARE(state.dim(), 256);
        QCOMPARE(state.viewOptions().clockPairs, QStringLiteral("0,64,127"));
        QCOMPARE(WorkbenchState::followDim(QStringLiteral("0-3, 63"), 64, 128), QStringLiteral("0-6, 127"));

        // Pins that are not the extremes: no pair is named after the hands.
        QCOMPARE(state.setDim(4096), QString());
        QCOMPARE(state.setProperty(QStringLiteral("clock_pairs"), QStringLiteral("0,64,127")), QString());
        ClockView view(&state, &computation);
        settle(computation);
        const auto texts = [&view] {
            QImage img(1366, 768, QImage::Format_ARGB32_Premultiplied);
            TextRecord record;
            {
                QPainter p(&img);
                view.render(p, QRectF(0, 0, 1366, 768));
            }
            QStringList out;
            for (const DrawnText& d : record.items())
                out << d.text;
            return out.join(QStringLiteral(" | "));
        };
        QString shown = texts();
        QVERIFY2(shown.contains(QStringLiteral("second hand")), qPrintable(shown)); // pair 0 is the fastest
        QVERIFY2(!shown.contains(QStringLiteral("hour hand")), qPrintable(shown));  // 127 of 2,048 is not the slowest
        QCOMPARE(state.setProperty(QStringLiteral("clock_pairs"), QStringLiteral("0,64,2047")), QString());
        settle(computation);
        shown = texts();
        QVERIFY2(shown.contains(QStringLiteral("pair 2047 \u00b7 hour hand")), qPrintable(shown));
    }

    void rotationDistanceBoxTakesANegativeDistance()
    {
        // The box stopped at 0 and "-4" was ignored. A negative
        // distance puts the key after the query; the score depends on m - n only, so it differs from +4's.
        WorkbenchState state;
        Computation computation(&state);
        RotationView view(&state, &computation);
        auto* box = view.controls()->findChild<QSpinBox*>(QStringLiteral("rotationDistance"));
        QVERIFY(box);
        state.setCursor(37);
        box->setValue(4);
        settle(computation);
        const double ahead = view.score(false);
        box->setValue(-4);
        settle(computation);
        QCOMPARE(state.viewOptions().keyDistance, -4);
        const auto [m, n] = view.positions(false);
        QCOMPARE(int(m), 37);
        QCOMPARE(int(n), 41);
        QVERIFY(view.headerText().contains(QStringLiteral("m \u2212 n = -4")));
        QVERIFY(view.score(false) != ahead);
    }

    void pairingColoursFollowTheLayout()
    {
        // half_split (GPT-NeoX, Hugging Face rotate_half): dim i pairs with i + r/2; interleaved: 2i with 2i+1.
        WorkbenchState state;
        Computation computation(&state);
        RotationView view(&state, &computation);
        state.setParam("layout", core::ParamValue::word("half_split"));
        settle(computation);
        const int r = 128;
        for (int i = 0; i < r / 2; i += 7) {
            QCOMPARE(view.pairColour(i), view.pairColour(i + r / 2));
            QCOMPARE(view.pairOfDim(i), view.pairOfDim(i + r / 2));
        }
        QVERIFY(view.pairColour(0) != view.pairColour(8)); // 0 pairs with 64, not with 8
        const auto dims = view.stripDims();
        QVERIFY(std::find(dims.begin(), dims.end(), 64) != dims.end()); // the partner of 0 is on the strip
        state.setParam("layout", core::ParamValue::word("interleaved"));
        settle(computation);
        QCOMPARE(view.pairColour(0), view.pairColour(1));
        QCOMPARE(view.pairColour(8), view.pairColour(9));
        QVERIFY(view.pairColour(0) != view.pairColour(64));
    }

    void iropeNopeLayerSaysSoInEveryView()
    {
        // Llama 4 (Hugging Face modeling_llama4.py): layer l is NoPE when (l + 1) % 4 == 0; the query there is
        // scaled by s(p) = ln(floor((p + 1) / 8192) + 1) * 0.1 + 1.
        WorkbenchState state;
        Computation computation(&state);
        computation.setSynchronousAttention(true);
        std::vector<std::unique_ptr<View>> views;
        for (View* v : createViews(&state, &computation))
            views.emplace_back(v);
        state.setScheme("irope");
        state.setDim(64);
        state.setPositionCount(10000);
        state.setParam("layer", core::ParamValue::integer(3));
        state.setCursor(9000);
        ViewOptions o = state.viewOptions();
        o.attentionSize = 64;
        state.setViewOptions(o);
        settle(computation);
        const double s = std::log(std::floor(9001.0 / 8192.0) + 1.0) * 0.1 + 1.0; // 1 + 0.1 ln 2
        const QString temperature = QString::number(s, 'g', 6);
        for (auto& v : views) {
            if (!v->isApplicable())
                continue; // the buckets view: iRoPE has no buckets
            const QString svg = svgOf(*v);
            if (v->exportName() == "attention") {
                QVERIFY2(svg.contains("NoPE, no rotation"), "attention view does not say the layer has no rotation");
                QVERIFY(svg.contains(temperature));
                continue;
            }
            // The pipeline draws the layer's stages (its sentence's positions, not the cursor's, set the temperature);
            // the family map places every scheme and has no layer.
            if (v->exportName() == "pipeline") {
                QVERIFY2(svg.contains("NoPE, no rotation"), "pipeline view does not say the layer has no rotation");
                continue;
            }
            // The length lab draws a run file; the patch grid and mixed sequence views the spatial set-up.
            if (v->exportName() == "families" || v->exportName() == "lengthlab" || v->exportName() == "patchgrid"
                || v->exportName() == "sequence")
                continue;
            QVERIFY2(svg.contains("This layer has no rotation"), qPrintable(v->exportName()));
            QVERIFY2(v->noRotationReason().contains(QStringLiteral("s = %1").arg(temperature)),
                     qPrintable(v->noRotationReason()));
            QVERIFY(v->noRotationReason().contains("p = 8,191")); // where s first exceeds 1
        }
        // A RoPE layer draws rotations again.
        state.setParam("layer", core::ParamValue::integer(2));
        settle(computation);
        for (auto& v : views)
            QVERIFY(v->noRotationReason().isEmpty());
    }

    void notApplicablePanesSayWhatToPick()
    {
        WorkbenchState state;
        Computation computation(&state);
        computation.setSynchronousAttention(true);
        std::vector<std::unique_ptr<View>> views;
        for (View* v : createViews(&state, &computation))
            views.emplace_back(v);
        for (const auto& s : core::schemes()) {
            state.setScheme(QString::fromStdString(s.id));
            settle(computation);
            for (auto& v : views) {
                if (v->isApplicable())
                    continue;
                const QString svg = svgOf(*v, QSize(900, 600));
                QVERIFY2(svg.contains("Pick") || svg.contains("pick"),
                         qPrintable(QStringLiteral("%1 on %2 says nothing to pick")
                                        .arg(v->exportName(), QString::fromStdString(s.id))));
            }
        }
    }

    void xposShowsItsCentre()
    {
        // torchscale xpos_relative_position.py: positions run from min_pos = -(L // 2), so the scale of position p
        // is zeta^((p - ceil(L/2))/scale_base); at p = 0, pair 0 (zeta_0 = 0.4d / 1.4d = 2/7), L = 1024 that is
        // (2/7)^(-1) = 3.5, which is what the table shows at p = 0.
        WorkbenchState state;
        Computation computation(&state);
        TableView table(&state, &computation);
        state.setScheme("xpos");
        settle(computation);
        QVERIFY2(table.xposNote().contains("c = 512"), qPrintable(table.xposNote()));
        QVERIFY(svgOf(table).contains("centred at c = 512"));
        const QString r = table.readout(0, 0);
        QVERIFY2(r.contains("value 3.5"), qPrintable(r));
        state.setPositionCount(4096);
        settle(computation);
        QVERIFY2(table.xposNote().contains("c = 2,048"), qPrintable(table.xposNote()));
        // The paper's absolute form (centring = absolute): c = 0, so pair 0 at p = 0 reads zeta^0 cos 0 = 1.
        state.setParamText("centring", "absolute");
        settle(computation);
        QVERIFY2(table.xposNote().contains("c = 0"), qPrintable(table.xposNote()));
        QVERIFY2(table.readout(0, 0).contains("value 1 "), qPrintable(table.readout(0, 0)));
        state.setScheme("rope");
        settle(computation);
        QVERIFY(table.xposNote().isEmpty());
    }

    void clockAndRotationHoverReadoutsFollowChanges()
    {
        WorkbenchState state;
        Computation computation(&state);
        ClockView clock(&state, &computation);
        RotationView rotation(&state, &computation);
        settle(computation);
        clock.resize(900, 500);
        rotation.resize(900, 500);
        clock.grab(); // a paint on screen lays the cells out
        rotation.grab();
        const auto at = findHover(clock);
        QVERIFY(at);
        const QString before = clock.hoverReadout();
        const QRegularExpression pairRe(QStringLiteral("pair (\\d+)"));
        const int pair = pairRe.match(before).captured(1).toInt();
        // RoPE (Su et al. 2021, eq. 15): theta_i = 10000^(-2i/d), d = 128; the hand stands at p * theta_i.
        auto angleText = [&](int p) {
            const double w = std::pow(10000.0L, -2.0L * pair / 128.0L);
            const double deg = std::fmod(double(p) * w, 2 * M_PI) * 180.0 / M_PI;
            return QString::number(deg, 'g', 4);
        };
        QVERIFY2(before.contains(angleText(state.cursor()).left(4)), qPrintable(before));
        state.setCursor(500);
        clock.grab();
        const QString after = clock.hoverReadout();
        QVERIFY(after != before);
        QVERIFY2(after.contains("p = 500") && after.contains(angleText(500).left(4)), qPrintable(after));

        const auto at2 = findHover(rotation);
        QVERIFY(at2);
        const QString r1 = rotation.hoverReadout();
        QVERIFY2(r1.contains("pair") && r1.contains("m = 600"), qPrintable(r1)); // m = cursor + r = 500 + 100
        ViewOptions o = state.viewOptions();
        o.shift = 7;
        state.setViewOptions(o);
        QVERIFY2(rotation.hoverReadout().contains("m = 507"), qPrintable(rotation.hoverReadout()));
    }

    void roformerBoundIsThePapersAndBoundsTheScore()
    {
        // Su et al. 2021, section 3.4.3 and figure 2: B(k) = (1/(d/2)) sum_{j=1}^{d/2} |S_j|,
        // S_j = sum_{l=0}^{j-1} e^(i k theta_l); |sum_j h_j e^(i k theta_j)| <= max|h_(j+1) - h_j| sum_j |S_j|,
        // so with q = k = 1 (h_j = 2) the score over its value at 0 never exceeds B(k).
        WorkbenchState state;
        Computation computation(&state);
        DecayView decay(&state, &computation);
        settle(computation);
        const auto& curves = decay.curves();
        QVERIFY(decay.rightAxisCurve() > 0);
        const auto& score = curves.front().points;
        const auto& bound = curves[std::size_t(decay.rightAxisCurve())].points;
        QCOMPARE(score.size(), bound.size());
        const int half = 64;
        for (qsizetype i = 0; i < score.size(); ++i) {
            QCOMPARE(score[i].x(), bound[i].x());
            QVERIFY2(score[i].y() <= bound[i].y() + 1e-9,
                     qPrintable(QStringLiteral("k = %1: score %2 above bound %3")
                                    .arg(score[i].x())
                                    .arg(score[i].y())
                                    .arg(bound[i].y())));
        }
        for (qsizetype i : {qsizetype(0), qsizetype(10), bound.size() - 1}) {
            const long double k = bound[i].x();
            std::complex<long double> S = 0;
            long double sum = 0;
            for (int l = 0; l < half; ++l) {
                const long double theta = std::pow(10000.0L, -2.0L * l / 128.0L);
                S += std::polar(1.0L, k * theta);
                sum += std::abs(S);
            }
            QVERIFY(std::fabs(double(sum / half) - bound[i].y()) < 1e-9 * double(sum));
        }
        QCOMPARE(bound.front().y(), (half + 1) / 2.0); // B(0) = (1/(d/2)) (1 + 2 + ... + d/2)
        QVERIFY(decay.caption().contains(QStringLiteral("never exceeds")));
    }

    void decayFigureIsWhatTheViewDraws()
    {
        // The decay figure (ui/figures/decayfigure.h) computes the curves from its inputs alone; the view draws
        // them as they are, the overlay's dashed curves are B's own figure, and the cursor is an input only of a
        // learned table (E(p).E(p+k) at p = the cursor).
        WorkbenchState state;
        Computation computation(&state);
        DecayView decay(&state, &computation);
        state.setScheme("alibi");
        settle(computation);
        const DecayPlot alibi = DecayFigure::compute(DecayFigure::inputsOf(FigureSnapshot::of(state)));
        QCOMPARE(alibi.curves.size(), std::size_t(8));
        QCOMPARE(decay.curves().size(), alibi.curves.size());
        for (std::size_t h = 0; h < alibi.curves.size(); ++h) {
            QCOMPARE(decay.curves()[h].name, alibi.curves[h].name);
            QCOMPARE(decay.curves()[h].points, alibi.curves[h].points);
            // Press et al. 2022, section 3: with 8 heads the slopes are 2^-1 ... 2^-8, head h's bias -m_h k.
            const double m = std::ldexp(1.0, -int(h) - 1);
            for (const QPointF& pt : alibi.curves[h].points)
                QVERIFY2(std::fabs(pt.y() + m * pt.x()) <= 1e-6 * std::max(1.0, m * pt.x()),
                         qPrintable(QStringLiteral("head %1, k = %2: %3").arg(h).arg(pt.x()).arg(pt.y())));
        }
        QVERIFY(decay.curves()[1].name.contains(QStringLiteral("m = 1/4")));

        // The cursor moves no curve but a learned table's.
        FigureSnapshot at = FigureSnapshot::of(state), moved = at;
        moved.cursor = at.cursor + 5;
        QVERIFY(DecayFigure::inputsOf(at) == DecayFigure::inputsOf(moved));
        at.setup.scheme = moved.setup.scheme = "learned";
        at.setup.params = moved.setup.params = core::defaultParams(core::schemeOrThrow("learned"));
        QVERIFY(!(DecayFigure::inputsOf(at) == DecayFigure::inputsOf(moved)));
        const DecayPlot learned = DecayFigure::compute(DecayFigure::inputsOf(moved));
        QVERIFY(!learned.curves.empty());
        QVERIFY2(learned.curves.front().name.contains(QStringLiteral("at p = %1").arg(moved.cursor)),
                 qPrintable(learned.curves.front().name));

        // Overlay: A (RoPE) solid, then B's (ALiBi's) curves dashed on the right axis, point for point B's figure.
        state.setScheme("rope");
        QVERIFY(state.setCompare({CompareMode::Overlay, QJsonObject{{"scheme", "alibi"}}}).isEmpty());
        settle(computation);
        const DecayPlot b = DecayFigure::compute(DecayFigure::inputsOf(FigureSnapshot::of(*state.compareState())));
        const auto& drawn = decay.curves();
        QCOMPARE(drawn.size(), 1 + b.curves.size());
        QVERIFY(!drawn.front().dashed);
        QCOMPARE(drawn.front().name, state.figureLabel());
        for (std::size_t h = 0; h < b.curves.size(); ++h) {
            QVERIFY(drawn[h + 1].dashed);
            QCOMPARE(drawn[h + 1].points, b.curves[h].points);
        }
        QVERIFY(decay.caption().contains(QStringLiteral("B's curves use the right axis")));
    }

    void decayAxesFitTheirData()
    {
        WorkbenchState state;
        Computation computation(&state);
        DecayView decay(&state, &computation);
        // ALiBi (Press et al. 2022): bias -m * k <= 0 for every head; the axis must not run to +200.
        state.setScheme("alibi");
        settle(computation);
        double hi = -1e300, lo = 1e300;
        for (const auto& c : decay.curves())
            for (const QPointF& p : c.points) {
                hi = std::max(hi, p.y());
                lo = std::min(lo, p.y());
            }
        QCOMPARE(hi, 0.0);
        // Every tick label is <= 0 (the top one is 0), and the axis ends within half a tick step of 0: room for
        // the top label, not another tick (it used to run to +200 with a "200" label).
        const QLocale en(QLocale::English);
        const QStringList alibiLabels = decay.yTickLabels();
        QVERIFY(alibiLabels.size() >= 2);
        double top = -1e300;
        for (const QString& l : alibiLabels)
            top = std::max(top, en.toDouble(l));
        QCOMPARE(top, 0.0);
        const double step = std::fabs(en.toDouble(alibiLabels[1]) - en.toDouble(alibiLabels[0]));
        QVERIFY2(decay.yRange().second < step / 2, qPrintable(QString::number(decay.yRange().second)));
        QVERIFY(decay.yRange().first <= lo);
        // FIRE's small biases: no tick reads "-0", "-0.0", "-0.00".
        state.setScheme("fire");
        settle(computation);
        const QStringList labels = decay.yTickLabels();
        QVERIFY(!labels.isEmpty());
        for (const QString& l : labels)
            QVERIFY2(!QRegularExpression(QStringLiteral("^-0(\\.0*)?$")).match(l).hasMatch(),
                     qPrintable(labels.join(' ')));
    }

    void kerpleIsOneCurveWhenItsParametersAreShared()
    {
        // Kerple's r1, r2 are one pair for all heads here: eight identical lines would suggest eight heads.
        WorkbenchState state;
        Computation computation(&state);
        DecayView decay(&state, &computation);
        state.setScheme("kerple");
        settle(computation);
        QCOMPARE(int(decay.curves().size()), 1);
        QVERIFY2(decay.curves().front().name.contains("shared"), qPrintable(decay.curves().front().name));
        // Kerple-log (Chi et al. 2022, eq. 5): -r1 ln(1 + r2 k), r1 = r2 = 1.
        const QPointF p = decay.curves().front().points.back();
        QVERIFY(std::fabs(p.y() + std::log1p(p.x())) < 1e-9);
    }

    void t5OnALogAxisWithItsBucketEdges()
    {
        WorkbenchState state;
        Computation computation(&state);
        DecayView decay(&state, &computation);
        state.setScheme("t5");
        settle(computation);
        QVERIFY(decay.logDistance());
        std::vector<double> expected;
        for (long long k = 1; k < state.positionCount(); ++k)
            if (t5BucketBefore(k, true, 32, 128) != t5BucketBefore(k - 1, true, 32, 128))
                expected.push_back(double(k));
        QCOMPARE(decay.bucketEdges(), expected);
        QVERIFY(decay.xTickLabels().contains("1,000") || decay.xTickLabels().contains("100"));
    }

    void debertaShowsTheTableRowEachDistanceReads()
    {
        // DeBERTa's position terms read content, but the relative-position row each distance reads does not:
        // Hugging Face modeling_deberta_v2.py make_log_bucket_position (b = 256, mid = 128, M = 512), then
        // disentangled_attention_bias clamps delta + att_span to [0, 2 att_span - 1], att_span = 256. Written out
        // here in double; at these defaults float32 and float64 agree for every |delta| <= 2048.
        auto row = [](long long k) {
            const double mid = 128, maxPos = 512;
            long long bucket = k;
            if (k > mid)
                bucket = (long long)std::ceil(std::log(k / mid) / std::log((maxPos - 1) / mid) * (mid - 1))
                    + (long long)mid;
            return std::min(bucket, 255LL);
        };
        WorkbenchState state;
        Computation computation(&state);
        DecayView decay(&state, &computation);
        state.setScheme("deberta");
        settle(computation);
        QVERIFY(decay.supports(state.scheme()));
        QVERIFY(decay.logDistance());
        QCOMPARE(decay.curves().size(), std::size_t(1));
        int checked = 0;
        for (const QPointF& pt : decay.curves().front().points) {
            QCOMPARE(pt.y(), double(row((long long)pt.x())));
            ++checked;
        }
        QVERIFY(checked > 100);
        QCOMPARE(decay.curves().front().points.back().y(), 255.0); // every distance past 511 reads row 255
        std::vector<double> expected;
        for (long long k = 1; k < state.positionCount(); ++k)
            if (row(k) != row(k - 1))
                expected.push_back(double(k));
        QCOMPARE(decay.bucketEdges(), expected);
    }

    void pinsNameWhatDiffers()
    {
        WorkbenchState state;
        Computation computation(&state);
        DecayView decay(&state, &computation);
        state.setParamText("rope_theta", "10000");
        settle(computation);
        decay.pin();
        state.setParamText("rope_theta", "500000");
        settle(computation);
        decay.pin();
        const QStringList names = decay.seriesNames();
        const QStringList pins = names.filter("pinned");
        QCOMPARE(pins.size(), 2);
        QVERIFY2(pins[0] != pins[1], qPrintable(pins.join(" | ")));
        QVERIFY2(pins[0].contains("rope_theta = 10000"), qPrintable(pins[0]));
        QVERIFY2(pins[1].contains("rope_theta = 500000"), qPrintable(pins[1]));
    }

    void decayChartDrawnOncePerNewCurve()
    {
        // A new curve on screen, repainted at once (as the workbench bench does after each slider step): the chart
        // is drawn once, already laid out for its new title (it names the new rope_theta). The layout used to be
        // posted, and moved the chart's items after that repaint: every step drew the whole chart twice.
        WorkbenchState state;
        Computation computation(&state);
        DecayView decay(&state, &computation);
        QVERIFY(showSettled(decay, computation, QSize(700, 450)));
        QGraphicsView* chartView = decay.chart()->scene() ? decay.chart()->scene()->views().value(0) : nullptr;
        QVERIFY(chartView && chartView->isVisible());
        struct PaintCount : QObject {
            int paints = 0;
            bool eventFilter(QObject*, QEvent* e) override
            {
                paints += e->type() == QEvent::Paint;
                return false;
            }
        } counter;
        chartView->viewport()->installEventFilter(&counter);
        const QString before = decay.chartTitle();
        state.setParamText("rope_theta", "20000");
        settle(computation);
        QVERIFY2(decay.chartTitle() != before, qPrintable(before));
        decay.repaint();
        QTest::qWait(50);
        QCOMPARE(counter.paints, 1);
        chartView->viewport()->removeEventFilter(&counter);
    }

    void curveDashesFollowThePensPattern()
    {
        // QPen::dashPattern is in pen widths: a dotted pen 2 wide has 2 px dots and 4 px gaps (1, 2 widths).
        QPen dotted(Qt::black, 2.0);
        dotted.setStyle(Qt::DotLine);
        QCOMPARE(dotted.dashPattern(), (QList<qreal>{1, 2}));
        const QList<QLineF> dots = dashSegments(QPolygonF({QPointF(0, 0), QPointF(100, 0)}), dotted);
        QCOMPARE(dots.size(), 17); // dots start at 0, 6, ..., 96
        for (qsizetype i = 0; i < dots.size(); ++i) {
            QCOMPARE(dots[i].p1(), QPointF(6.0 * double(i), 0));
            QCOMPARE(dots[i].p2(), QPointF(std::min(6.0 * double(i) + 2, 100.0), 0));
        }
        // A dash that runs over a corner continues on the next segment: 4 widths of a dashed pen 1 wide, 3 px
        // before the corner at (3, 0) and 1 px after it; then a gap of 2 and the next dash.
        QPen dashed(Qt::black, 1.0);
        dashed.setStyle(Qt::DashLine);
        const QList<QLineF> bent = dashSegments(QPolygonF({QPointF(0, 0), QPointF(3, 0), QPointF(3, 10)}), dashed);
        QVERIFY(bent.size() >= 3);
        QCOMPARE(bent[0], QLineF(QPointF(0, 0), QPointF(3, 0)));
        QCOMPARE(bent[1], QLineF(QPointF(3, 0), QPointF(3, 1)));
        QCOMPARE(bent[2], QLineF(QPointF(3, 3), QPointF(3, 7)));
        // A solid pen: the segments themselves; a value that is not a number breaks the line.
        const double nan = std::nan("");
        const QList<QLineF> solid
            = dashSegments(QPolygonF({QPointF(0, 0), QPointF(1, 1), QPointF(2, nan), QPointF(3, 3), QPointF(4, 4)}),
                           QPen(Qt::black, 2.6));
        QCOMPARE(solid, (QList<QLineF>{QLineF(0, 0, 1, 1), QLineF(3, 3, 4, 4)}));
    }

    void decayCurvesDrawnWhereTheChartMapsThem()
    {
        // The curve item draws each curve at the chart's own positions for its values (QChart::mapToPosition
        // through the series' axes), and hovering a drawn point reads that curve's value there.
        WorkbenchState state;
        Computation computation(&state);
        DecayView decay(&state, &computation);
        QVERIFY(showSettled(decay, computation, QSize(800, 500)));
        CurveItem* item = nullptr;
        for (QGraphicsItem* it : decay.chart()->scene()->items())
            if (auto* c = dynamic_cast<CurveItem*>(it))
                item = c;
        QVERIFY(item);
        QCOMPARE(item->curves().size(), decay.curves().size()); // RoPE: the score and its bound
        const auto series = decay.chart()->series();
        for (std::size_t i = 0; i < decay.curves().size(); ++i) {
            const CurveItem::Curve& drawn = item->curves()[i];
            QCOMPARE(drawn.points, decay.curves()[i].points); // a linear distance axis: x is the distance
            const QPolygonF at = item->toPlot(drawn);
            auto* s = qobject_cast<QAbstractSeries*>(series.value(qsizetype(i) + 1)); // after the bucket-edge series
            QVERIFY(s);
            QCOMPARE(s->name(), decay.seriesNames().value(qsizetype(i)));
            for (qsizetype j = 0; j < drawn.points.size(); j += 37) {
                const QPointF want = decay.chart()->mapToPosition(drawn.points[j], s);
                QVERIFY2(QLineF(at[j], want).length() < 0.01,
                         qPrintable(QStringLiteral("curve %1 point %2").arg(i).arg(j)));
            }
        }
        // Hover the score curve's 40th point: the read-out names the curve and its value at that distance.
        const CurveItem::Curve& score = item->curves()[0];
        const QPointF over = item->toPlot(score)[40];
        QGraphicsSceneHoverEvent hover(QEvent::GraphicsSceneHoverMove);
        hover.setPos(over);
        hover.setScenePos(item->mapToScene(over));
        decay.chart()->scene()->sendEvent(item, &hover);
        const QString readout = decay.readoutText();
        QVERIFY2(readout.contains(QStringLiteral("value %1").arg(QString::number(score.points[40].y(), 'g', 6))),
                 qPrintable(readout));
        QVERIFY2(readout.startsWith(decay.curves()[0].name), qPrintable(readout));
        // The same through the window: the mouse moved over the bound's 60th point reads the bound there.
        const CurveItem::Curve& bound = item->curves()[1];
        QGraphicsView* view = decay.chart()->scene()->views().value(0);
        QVERIFY(view);
        const QPoint at = view->mapFromScene(item->mapToScene(item->toPlot(bound)[60]));
        QTest::mouseMove(view->viewport(), at);
        QTRY_VERIFY2(decay.readoutText().startsWith(decay.curves()[1].name), qPrintable(decay.readoutText()));
        QVERIFY2(decay.readoutText().contains(
                     QLocale(QLocale::English).toString(qint64(std::llround(bound.points[60].x())))),
                 qPrintable(decay.readoutText()));
    }

    void narrowDecayChartCutsNoAxisTitle()
    {
        // A narrow chart (a compare half at 1600 x 1000 is about 200 px wide): Qt Charts squeezes the axes and
        // cut the y titles to "...", drawn as a lone rotated ellipsis. They are left out there; a wide chart keeps
        // them whole.
        WorkbenchState state;
        Computation computation(&state);
        DecayView decay(&state, &computation);
        auto chartTexts = [&] {
            QStringList out;
            for (QGraphicsItem* it : decay.chart()->scene()->items())
                if (auto* t = dynamic_cast<QGraphicsTextItem*>(it); t && t->isVisible() && !t->toPlainText().isEmpty())
                    out << t->toPlainText();
            return out;
        };
        QVERIFY(showSettled(decay, computation, QSize(210, 420), 100));
        QVERIFY(decay.chart()->plotArea().width() > 50);
        // (The legend may still cut its long labels, with the whole label as a tooltip: that says something.)
        QVERIFY2(!chartTexts().contains(QStringLiteral("...")), qPrintable(chartTexts().join(" | ")));
        decay.resize(900, 560);
        QTest::qWait(100);
        const QStringList wide = chartTexts();
        QVERIFY2(wide.contains(QStringLiteral("score \u00f7 score at k = 0")), qPrintable(wide.join(" | ")));
        QVERIFY2(wide.contains(QStringLiteral("distance k (tokens)")), qPrintable(wide.join(" | ")));
        QVERIFY2(!wide.contains(QStringLiteral("...")), qPrintable(wide.join(" | ")));
    }

    void attentionRedrawsOnceForANewValue()
    {
        // A new rope_theta: the table's result arrives first (a small table is computed at once) while the scores
        // are still on the worker. The attention view draws its own scores only, so it waits for them and redraws
        // once when they land; redrawing for the table would paint the old scores again.
        WorkbenchState state;
        Computation computation(&state);
        AttentionView view(&state, &computation);
        computation.flush();
        computation.waitForTable();
        computation.waitForAttention();
        const int before = view.refreshCount();
        const auto old = view.output();
        QVERIFY(old);
        const quint64 published = computation.publishedCount();
        state.setParamText("rope_theta", "20000");
        computation.flush(); // publishes the table at once, then starts the scores
        QCOMPARE(computation.publishedCount(), published + 1);
        QCOMPARE(view.refreshCount(), before);
        QCOMPARE(view.output(), old);
        computation.waitForAttention();
        QCOMPARE(view.refreshCount(), before + 1);
        QVERIFY(view.output() != old);
        QCOMPARE(view.output()->setup.params.real("rope_theta"), 20000.0);
    }

    void decayReadoutFollowsParameterChanges()
    {
        WorkbenchState state;
        Computation computation(&state);
        DecayView decay(&state, &computation);
        state.setScheme("alibi");
        settle(computation);
        const double k = decay.curves().front().points[33].x(); // a sampled distance
        decay.hoverAt(0, k);
        const QString before = decay.readoutText();
        // ALiBi head 0 of 8: slope 2^-1, bias -k/2 (Press et al. 2022, section 3).
        QVERIFY2(before.contains(QStringLiteral("value %1").arg(QString::number(-k / 2, 'g', 6))), qPrintable(before));
        ViewOptions o = state.viewOptions();
        o.heads = 16; // head 0's slope becomes 2^-0.5
        state.setViewOptions(o);
        settle(computation);
        const QString after = decay.readoutText();
        QVERIFY2(after.contains(QStringLiteral("value %1").arg(QString::number(-k * std::pow(2.0, -0.5), 'g', 6))),
                 qPrintable(after));
    }

    void aliasingIsNeverSilent()
    {
        // Llama 3.1's scaled RoPE over 32768 positions on a 1366 x 768 figure: many positions per pixel row.
        WorkbenchState state;
        Computation computation(&state);
        TableView table(&state, &computation);
        state.setParamText("rope_theta", "500000");
        state.setParamText("rope_type", "llama3");
        state.setParamText("factor", "8");
        state.setParamText("original_max_position_embeddings", "8192");
        state.setPositionCount(32768);
        settle(computation);
        const QString note = table.aliasingNote(600);
        QVERIFY2(note.contains("32,768 positions on 600 pixel rows"), qPrintable(note));
        QVERIFY(note.contains("aliasing"));
        // Pairs with period 2 pi / theta_i below 2 * (32768 / 600) tokens alias; pair 0 has period 2 pi.
        QVERIFY(note.contains("up to pair"));
        // The export draws the same note.
        QVERIFY(svgOf(table, QSize(1366, 768)).contains("aliasing"));
        // 64 positions on hundreds of rows: nothing to say.
        state.setPositionCount(64);
        settle(computation);
        QVERIFY2(table.aliasingNote(600).isEmpty(), qPrintable(table.aliasingNote(600)));
    }

    void svgTableIsSharpAtTheFiguresSize()
    {
        WorkbenchState state;
        Computation computation(&state);
        TableView table(&state, &computation);
        state.setScheme("sinusoidal");
        settle(computation);
        const QString svg = svgOf(table, QSize(900, 600));
        const QRegularExpression image(QStringLiteral("xlink:href=\"data:image/png;base64,([^\"]+)\""));
        const auto m = image.match(svg);
        QVERIFY(m.hasMatch());
        const QImage embedded = QImage::fromData(QByteArray::fromBase64(m.captured(1).toLatin1()), "PNG");
        // Wider than the 128 columns and taller than a few hundred rows: at least the plot's own pixels.
        QVERIFY2(embedded.width() >= 600 && embedded.height() >= 400,
                 qPrintable(QStringLiteral("%1 x %2").arg(embedded.width()).arg(embedded.height())));
        // A small window: vector cells, no picture at all.
        table.resize(600, 400);
        table.setWindow(QRectF(8, 100, 16, 40));
        QVERIFY(!image.match(svgOf(table, QSize(600, 400))).hasMatch());
    }
};

QTEST_MAIN(TestViewContent)
#include "tst_viewcontent.moc"
