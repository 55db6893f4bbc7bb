// SPDX-License-Identifier: MIT
// The attention figure (ui/figures/attentionfigure.h): one scores request behind the view's head and the data
// export's heads, the sentence's words as positions, the inputs a recompute depends on, A − B's refusals, and the
// heatmap filling its compare half at projector size. Reference logits are RoFormer's (Su et al. 2021, eq. 16 and
// section 3.4.2): with q = k = (1, ..., 1) the rotated dot product of positions m and n is
// sum_i 2 cos((m - n) theta_i), theta_i = 10000^(-2i/d), scaled by 1/sqrt(d) (Vaswani et al. 2017, eq. 1).
#include "core/encodingregistry.h"
#include "core/errors.h"
#include "ui/figures/attentionfigure.h"
#include "ui/figures/computation.h"
#include "ui/render/textlayout.h"
#include "ui/state/workbenchstate.h"
#include "ui/views/attentionview.h"

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QTest>

#include <cmath>

using namespace poslab;
using namespace poslab::ui;

namespace {

FigureSnapshot ropeSnapshot(int positions, int dim)
{
    FigureSnapshot s;
    s.setup.scheme = "rope";
    s.setup.params = core::defaultParams(core::schemeOrThrow("rope"));
    s.setup.dim = dim;
    s.setup.positionCount = positions;
    s.options.attentionSize = positions;
    s.options.content = AttentionContent::Constant;
    s.options.softmax = false;
    s.options.heads = 3;
    s.options.head = 1;
    return s;
}

} // namespace

class TestAttentionFigure : public QObject {
    Q_OBJECT
private slots:
    void headIsRoFormersLogitAndTheExportsHead()
    {
        const int n = 9, d = 16;
        const FigureSnapshot s = ropeSnapshot(n, d);
        const AttentionOutput a = computeFigure<AttentionFigure>(s);
        QVERIFY2(a.error.isEmpty(), qPrintable(a.error));
        QCOMPARE(a.matrix.rows(), n);
        QCOMPARE(a.matrix.cols(), n);
        QCOMPARE(a.head, 1);
        QCOMPARE(a.heads, 3);
        for (int m = 0; m < n; ++m)
            for (int k = 0; k < n; ++k) {
                if (k > m) { // causal: keys after the query are masked
                    QVERIFY(std::isnan(a.matrix(m, k)));
                    continue;
                }
                double ref = 0;
                for (int i = 0; i < d / 2; ++i)
                    ref += 2 * std::cos(double(m - k) * std::pow(10000.0, -2.0 * i / d));
                ref /= std::sqrt(double(d));
                QVERIFY2(std::abs(a.matrix(m, k) - ref) < 1e-4,
                         qPrintable(QStringLiteral("(%1, %2): %3 vs %4").arg(m).arg(k).arg(a.matrix(m, k)).arg(ref)));
            }
        // The export: every head from the same request, the view's head among them value for value.
        QStringList notes;
        const core::ComputeResult e = AttentionFigure::dataExport(s, &notes);
        QCOMPARE(e.shape, (std::vector<std::size_t>{3, std::size_t(n), std::size_t(n)}));
        for (int m = 0; m < n; ++m)
            for (int k = 0; k <= m; ++k)
                QCOMPARE(float(e.data[std::size_t((1 * n + m) * n + k)]), a.matrix(m, k));
        QVERIFY(notes.join(' ').contains(QLatin1String("the figure shows head 1")));
        // The request both start from: queries = keys = 0 .. n-1, every head, the scores quantity.
        const core::ComputeRequest req = AttentionFigure::request(AttentionFigure::inputsOf(s));
        QCOMPARE(req.quantity, core::Quantity::Scores);
        QCOMPARE(req.heads, 3);
        QCOMPARE(req.context.positions.size(), std::size_t(n));
        QVERIFY(!req.keys);
    }

    void sentenceWordsArePositions()
    {
        FigureSnapshot s = ropeSnapshot(512, 16);
        s.options.content = AttentionContent::Sentence;
        s.options.sentence = QStringLiteral("the cat sat on the mat");
        const AttentionOutput a = computeFigure<AttentionFigure>(s);
        QVERIFY2(a.error.isEmpty(), qPrintable(a.error));
        QCOMPARE(a.matrix.rows(), 6);
        QCOMPARE(a.tokens, (std::vector<std::string>{"the", "cat", "sat", "on", "the", "mat"}));
        QCOMPARE(AttentionFigure::dataExport(s, nullptr).shape, (std::vector<std::size_t>{3, 6, 6}));
        // A sentence that is one content keyword is still a sentence of one word, in the view and the export.
        s.options.sentence = QStringLiteral("random");
        const AttentionOutput one = computeFigure<AttentionFigure>(s);
        QVERIFY2(one.error.isEmpty(), qPrintable(one.error));
        QCOMPARE(one.tokens, (std::vector<std::string>{"random"}));
        QCOMPARE(AttentionFigure::dataExport(s, nullptr).shape, (std::vector<std::size_t>{3, 1, 1}));
        // An empty sentence: core's one message, in the figure and from the export.
        s.options.sentence = QStringLiteral("   ");
        QVERIFY(computeFigure<AttentionFigure>(s).error.contains(QLatin1String("the sentence is empty")));
        QVERIFY_THROWS_EXCEPTION(core::InputError, AttentionFigure::dataExport(s, nullptr));
    }

    void inputsAreWhatTheScoresDependOn()
    {
        const FigureSnapshot s = ropeSnapshot(16, 16);
        FigureSnapshot other = s;
        other.options.colorMap = ColorMapChoice::Cividis; // drawing only
        other.cursor = 5;
        QVERIFY(AttentionFigure::inputsOf(s) == AttentionFigure::inputsOf(other));
        other.options.head = 2;
        QVERIFY(!(AttentionFigure::inputsOf(s) == AttentionFigure::inputsOf(other)));
        other = s;
        other.options.trainedLength = 8; // the trained window T the view marks
        QVERIFY(!(AttentionFigure::inputsOf(s) == AttentionFigure::inputsOf(other)));
        QCOMPARE(computeFigure<AttentionFigure>(other).trainedLength, std::optional<core::Position>(8));
        QCOMPARE(computeFigure<AttentionFigure>(s).trainedLength, std::nullopt);
        // Trained runs matter to the source "trained" only, and then by their models, not their progress.
        auto runs = std::make_shared<TrainedRuns>();
        runs->models = 1;
        other = s;
        other.trainedRuns = runs;
        QVERIFY(AttentionFigure::inputsOf(s) == AttentionFigure::inputsOf(other));
        other.options.attentionSource = AttentionSource::Trained;
        FigureSnapshot progressed = other;
        auto later = std::make_shared<TrainedRuns>(*runs);
        later->progress = {0.5};
        progressed.trainedRuns = later;
        QVERIFY(AttentionFigure::inputsOf(other) == AttentionFigure::inputsOf(progressed));
        later->models = 2;
        QVERIFY(!(AttentionFigure::inputsOf(other) == AttentionFigure::inputsOf(progressed)));
        QVERIFY(computeFigure<AttentionFigure>(other).error.startsWith(QLatin1String("No trained model")));
    }

    void differenceNeedsOneSizeAndQuantity()
    {
        const AttentionOutput a = computeFigure<AttentionFigure>(ropeSnapshot(6, 16));
        FigureSnapshot bs = ropeSnapshot(6, 16);
        bs.setup.params.set("rope_theta", core::ParamValue::real(500.0));
        const AttentionOutput b = computeFigure<AttentionFigure>(bs);
        const AttentionDifference d = AttentionFigure::difference(a, &b);
        QVERIFY(d.problem.isEmpty());
        QVERIFY(d.matrix);
        QCOMPARE((*d.matrix)(3, 1), a.matrix(3, 1) - b.matrix(3, 1));
        QVERIFY(std::isnan((*d.matrix)(1, 3))); // masked in both
        QCOMPARE(d.range.hi, -d.range.lo);
        QVERIFY(AttentionFigure::difference(a, nullptr).problem.startsWith(QLatin1String("B has no attention scores")));
        const AttentionOutput small = computeFigure<AttentionFigure>(ropeSnapshot(4, 16));
        const QString sizes = AttentionFigure::difference(a, &small).problem;
        QVERIFY2(sizes.contains(QStringLiteral("A is 6 \u00d7 6, B is 4 \u00d7 4")), qPrintable(sizes));
        bs.options.softmax = true;
        const AttentionOutput probs = computeFigure<AttentionFigure>(bs);
        QVERIFY(AttentionFigure::difference(a, &probs).problem.contains(
            QLatin1String("A shows logits, B shows probabilities")));
    }

    /// Compare side by side at projector size (lesson 8.2's halves): each heatmap is the largest square its half
    /// The footer names grey as masked cells only where a causal mask greys some (a bidirectional map has none:
    /// lesson 1.5 said "grey: masked" under a map without one).
    void footerNamesTheMaskOnlyWhereThereIsOne()
    {
        for (bool causal : {true, false}) {
            WorkbenchState state;
            Computation computation(&state);
            computation.setSynchronousAttention(true);
            AttentionView view(&state, &computation);
            QVERIFY(state.setScheme("rope").isEmpty());
            QVERIFY(state.setPositionCount(8).isEmpty());
            QVERIFY(state.setProperty(QStringLiteral("softmax"), false).isEmpty());
            QVERIFY(state.setProperty(QStringLiteral("causal"), causal).isEmpty());
            computation.flush();
            QImage img(1200, 800, QImage::Format_ARGB32_Premultiplied);
            TextRecord record;
            {
                QPainter p(&img);
                view.render(p, QRectF(0, 0, 1200, 800));
            }
            QStringList texts;
            for (const DrawnText& t : record.items())
                texts << t.text;
            const QString all = texts.join(QStringLiteral(" | "));
            QVERIFY2(all.contains(QStringLiteral("logits")), qPrintable(all)); // the footer was drawn
            QVERIFY2(all.contains(QStringLiteral("grey: masked")) == causal, qPrintable(all));
        }
    }

    /// leaves beside the labels drawn left of it and the colour bar with its labels right of it.
    void heatmapFillsItsHalf_data()
    {
        QTest::addColumn<double>("fontScale");
        QTest::addColumn<bool>("sentence");
        for (double f : {1.0, 1.5, 2.0}) {
            QTest::addRow("numbers, font %g", f) << f << false;
            QTest::addRow("words, font %g", f) << f << true;
        }
    }
    void heatmapFillsItsHalf()
    {
        QFETCH(double, fontScale);
        QFETCH(bool, sentence);
        WorkbenchState state;
        Computation computation(&state);
        computation.setSynchronousAttention(true);
        AttentionView view(&state, &computation);
        QVERIFY(state.setScheme("rope").isEmpty());
        QVERIFY(state.setPositionCount(101).isEmpty());
        QVERIFY(state.setProperty(QStringLiteral("font_scale"), fontScale).isEmpty());
        QVERIFY(state.setProperty(QStringLiteral("content"), sentence ? 2 : 1).isEmpty());
        QVERIFY(state.setProperty(QStringLiteral("sentence"), QStringLiteral("dog x x x cat")).isEmpty());
        QVERIFY(state.compareWithCopy(CompareMode::SideBySide).isEmpty());
        view.resize(784, 843); // a view of lesson 8.2 presented (two views side by side): halves of 392 px
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        computation.flush();
        if (Computation* b = Computation::compareComputation(state, computation))
            b->flush();
        QTest::qWait(20);
        QVERIFY(view.showsHalves());
        TextRecord record;
        view.grab();
        for (bool sideB : {false, true}) {
            const QRectF half = sideB ? view.twinArea() : view.contentArea();
            const int n = sentence ? 5 : 101;
            const auto first = view.cellCentre(0, 0, sideB), last = view.cellCentre(n - 1, n - 1, sideB);
            QVERIFY(first && last);
            const double cell = (last->x() - first->x()) / (n - 1);
            const QRectF plot(first->x() - cell / 2, first->y() - cell / 2, cell * n, cell * n);
            // The labels beside the plot: left of it (row labels, the turned axis title) and right of it (the
            // colour bar's labels), inside this half and level with the plot.
            double left = plot.left(), right = plot.right(), line = 0;
            for (const DrawnText& t : record.items()) {
                if (!half.contains(t.rect.center()) || t.rect.bottom() < plot.top() || t.rect.top() > plot.bottom())
                    continue;
                if (t.rect.right() <= plot.left() + 1)
                    left = std::min(left, t.rect.left());
                else if (t.rect.left() >= plot.right() - 1) {
                    right = std::max(right, t.rect.right());
                    line = std::max(line, t.rect.height()); // a line of the tick font
                }
            }
            QVERIFY(right > plot.right()); // the colour bar's labels were found
            // What the half allows: its width less those labels (the colour bar lies between the plot and its
            // labels) and half a line's margin at either edge.
            const double allowed = half.width() - (plot.left() - left) - (right - plot.right()) - line;
            QVERIFY2(half.height() > half.width(), "the half is tall: its width bounds the square");
            QVERIFY2(plot.width() >= 0.95 * allowed,
                     qPrintable(QStringLiteral("%1: side %2 of %3 allowed (half %4 wide)")
                                    .arg(sideB ? "B" : "A")
                                    .arg(plot.width())
                                    .arg(allowed)
                                    .arg(half.width())));
            QVERIFY2(plot.right() <= half.right() && right <= half.right() + 1, "the labels stay in the half");
        }
    }
};

QTEST_MAIN(TestAttentionFigure)
#include "tst_attentionfigure.moc"
