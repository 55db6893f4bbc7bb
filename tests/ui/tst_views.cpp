// SPDX-License-Identifier: MIT
// Every view renders offscreen, through render(), for every scheme in the registry: content where the view
// applies, a clear "not applicable" state otherwise.
#include "core/encodingregistry.h"
#include "ui/figures/computation.h"
#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"
#include "ui/views/tableview.h"
#include "ui/views/view.h"
#include "ui/views/viewlist.h"
#include "ui/state/workbenchstate.h"

#include <QBuffer>
#include <QImage>
#include <QRegularExpression>
#include <QSvgGenerator>
#include <QPainter>
#include <QSet>
#include <QTest>

#include <cmath>

using namespace poslab;
using namespace poslab::ui;

namespace {

int distinctColours(const QImage& img)
{
    QSet<QRgb> set;
    for (int y = 0; y < img.height(); y += 3)
        for (int x = 0; x < img.width(); x += 3)
            set.insert(img.pixel(x, y));
    return int(set.size());
}

} // namespace

class TestViews : public QObject {
    Q_OBJECT
private slots:
    void everyViewEveryScheme_data()
    {
        QTest::addColumn<QString>("scheme");
        for (const auto& s : core::schemes())
            QTest::newRow(s.id.c_str()) << QString::fromStdString(s.id);
    }

    void everyViewEveryScheme()
    {
        QFETCH(QString, scheme);
        WorkbenchState state;
        Computation computation(&state);
        computation.setSynchronousAttention(true);
        std::vector<std::unique_ptr<View>> views;
        for (View* v : createViews(&state, &computation))
            views.emplace_back(v);
        QVERIFY(state.setScheme(scheme).isEmpty() || state.schemeId() == scheme);
        state.setDim(64);
        state.setPositionCount(256);
        state.setCursor(20);
        computation.flush();
        QCOMPARE(computation.result()->setup.scheme, scheme.toStdString());
        QCOMPARE(computation.attention()->setup.scheme, scheme.toStdString());
        for (auto& v : views) {
            const bool applies = v->supports(state.scheme());
            QCOMPARE(v->isApplicable(), applies);
            for (QSize size : {QSize(640, 420), QSize(300, 200), QSize(1600, 1000)}) {
                const QImage img = v->renderImage(size);
                QVERIFY(!img.isNull());
                QCOMPARE(img.size(), size);
                QVERIFY2(distinctColours(img) > (applies ? 8 : 2),
                         qPrintable(QStringLiteral("%1 on %2 looks empty").arg(v->exportName(), scheme)));
            }
        }
    }

    void wholeNumberAxesTickWholeNumbers()
    {
        // Position and pair axes tick integers only.
        QCOMPARE(niceTicks(0, 4, 8), (std::vector<double>{0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4}));
        QCOMPARE(integerTicks(0, 4, 8), (std::vector<double>{0, 1, 2, 3, 4}));
        QCOMPARE(integerTicks(0, 9, 4), (std::vector<double>{0, 5})); // steps of 1 or more: niceTicks as it is
        QCOMPARE(integerTicks(0, 1023, 5), niceTicks(0, 1023, 5));
        // The attention view's axis at 5 positions, as drawn.
        WorkbenchState state;
        QCOMPARE(state.setProperty(QStringLiteral("attention_size"), 5), QString());
        QCOMPARE(state.setProperty(QStringLiteral("content"), QStringLiteral("constant")), QString());
        Computation computation(&state);
        const auto view = findView(u"attention")->create(&state, &computation);
        computation.flush();
        QImage img(1366, 768, QImage::Format_ARGB32_Premultiplied);
        TextRecord record;
        {
            QPainter p(&img);
            view->render(p, QRectF(0, 0, 1366, 768));
        }
        QStringList texts;
        for (const DrawnText& d : record.items())
            texts << d.text;
        QVERIFY2(texts.contains(QStringLiteral("4")) && !texts.contains(QStringLiteral("0.5"))
                     && !texts.contains(QStringLiteral("1.5")),
                 qPrintable(texts.join(QStringLiteral(" | "))));
        delete view;
    }

    void notApplicableStateIsDistinct()
    {
        // NoPE has no table: the table view must say so rather than draw an empty plot.
        WorkbenchState state;
        Computation computation(&state);
        TableView table(&state, &computation);
        state.setScheme("nope");
        computation.flush();
        QVERIFY(!table.isApplicable());
        const QImage na = table.renderImage(QSize(640, 420));
        state.setScheme("sinusoidal");
        computation.flush();
        QVERIFY(table.isApplicable());
        const QImage ok = table.renderImage(QSize(640, 420));
        QVERIFY(na != ok);
        QVERIFY(distinctColours(ok) > distinctColours(na));
    }

    void renderOntoAnyPainter()
    {
        WorkbenchState state;
        Computation computation(&state);
        std::vector<std::unique_ptr<View>> views;
        for (View* v : createViews(&state, &computation))
            views.emplace_back(v);
        // A painter on a larger image with an offset target: the view stays inside the target.
        for (auto& v : views) {
            QImage img(1000, 800, QImage::Format_ARGB32_Premultiplied);
            img.fill(Qt::transparent);
            QPainter p(&img);
            v->render(p, QRectF(100, 50, 700, 500));
            p.end();
            QCOMPARE(qAlpha(img.pixel(50, 25)), 0); // outside the target: untouched
            QCOMPARE(qAlpha(img.pixel(900, 700)), 0);
            QVERIFY(qAlpha(img.pixel(450, 300)) > 0); // inside: drawn
        }
    }

    void darkTheme()
    {
        WorkbenchState state;
        Computation computation(&state);
        TableView table(&state, &computation);
        const QImage light = table.renderImage(QSize(400, 300));
        ViewOptions o = state.viewOptions();
        o.theme = ThemeKind::Dark;
        state.setViewOptions(o);
        const QImage dark = table.renderImage(QSize(400, 300));
        QVERIFY(qGray(light.pixel(2, 2)) > 200);
        QVERIFY(qGray(dark.pixel(2, 2)) < 60);
    }

    void tableReadout()
    {
        WorkbenchState state;
        Computation computation(&state);
        TableView table(&state, &computation);
        state.setScheme("sinusoidal");
        computation.flush();
        const QString r = table.readout(5, 3);
        QVERIFY2(r.contains("p = 5"), qPrintable(r));
        QVERIFY(r.contains("dim 3"));
        QVERIFY(r.contains("wavelength"));
        // PE(5, 3) = cos(5 * 10000^(-2/128)) with d = 128 (Vaswani et al. 2017, section 3.5).
        const double expected = std::cos(5.0 * std::pow(10000.0, -2.0 / 128.0));
        QVERIFY(r.contains(QString::number(expected, 'g', 5).left(6)));
    }

    void attentionShowsOneNamedTerm()
    {
        // Transformer-XL's score is the sum of four terms (Dai et al. 2019, section 3.3); the view offers
        // each, and the shown term is the engine's.
        WorkbenchState state;
        Computation computation(&state);
        computation.setSynchronousAttention(true);
        std::vector<std::unique_ptr<View>> views;
        for (View* v : createViews(&state, &computation))
            views.emplace_back(v);
        state.setScheme("transformer_xl");
        state.setDim(32);
        state.setPositionCount(48);
        computation.flush();
        QCOMPARE(computation.attention()->terms,
                 (QStringList{"content_content", "content_position", "global_content", "global_position"}));
        QVERIFY(computation.attention()->term.isEmpty());
        const core::MatrixF total = computation.attention()->matrix;
        ViewOptions o = state.viewOptions();
        o.softmax = false;
        state.setViewOptions(o);
        computation.flush();
        const core::MatrixF logits = computation.attention()->matrix;
        core::MatrixF sum = core::MatrixF::Zero(logits.rows(), logits.cols());
        const QStringList terms = computation.attention()->terms; // a copy: each flush replaces the output
        for (const QString& t : terms) {
            o.term = t;
            state.setViewOptions(o);
            computation.flush();
            QCOMPARE(computation.attention()->term, t);
            QVERIFY(!computation.attention()->softmax);
            sum += computation.attention()->matrix;
        }
        for (Eigen::Index i = 0; i < logits.rows(); ++i)
            for (Eigen::Index j = 0; j <= i; ++j)
                QVERIFY(std::fabs(sum(i, j) - logits(i, j)) < 1e-4f);
        QVERIFY(total.size() == logits.size());
        // A scheme without named parts offers none and shows the whole score.
        state.setScheme("alibi");
        computation.flush();
        QVERIFY(computation.attention()->terms.isEmpty());
        QVERIFY(computation.attention()->term.isEmpty());
    }

    void zoomedTableSvgDrawsOnlyTheVisibleCells()
    {
        // Qt's SVG writer ignores drawImage's source rectangle; a zoomed window of 16 x 40 cells is few enough to
        // be written as vector cells: no embedded image (which would hold the whole table), one fill per cell.
        WorkbenchState state;
        Computation computation(&state);
        TableView table(&state, &computation);
        state.setScheme("sinusoidal");
        computation.flush();
        table.resize(600, 400);
        table.setWindow(QRectF(8, 100, 16, 40));
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(QSize(600, 400));
        svg.setViewBox(QRect(0, 0, 600, 400));
        {
            QPainter p(&svg);
            table.render(p, QRectF(0, 0, 600, 400));
        }
        const QString text = QString::fromUtf8(buffer.data());
        QVERIFY(!text.contains(QStringLiteral("<image")));
        QVERIFY2(text.count(QStringLiteral("fill=\"#")) >= 16 * 40,
                 qPrintable(QString::number(text.count(QStringLiteral("fill=\"#")))));
    }
};

QTEST_MAIN(TestViews)
#include "tst_views.moc"
