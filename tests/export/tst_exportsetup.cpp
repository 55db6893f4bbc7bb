// SPDX-License-Identifier: MIT
// One set-up resolver for `poslab compute`, `poslab export`, batch entries, --animate and the window: a key
// that does not apply is refused everywhere with the same words. GIF sweeps print their value and
// hold one colour scale; data exports are exact and carry a header row.
#include "app/cli.h"
#include "app/exportcli.h"
#include "tests/cli/clirun.h"
#include "core/encodingregistry.h"
#include "core/train/trainer.h"
#include "ui/figures/computation.h"
#include "ui/export/exportdialog.h"
#include "ui/export/exportscene.h"
#include "ui/export/exportservice.h"
#include "ui/views/view.h"
#include "ui/state/workbenchstate.h"

#include <QComboBox>
#include <QFile>
#include <QImageReader>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <fstream>

using namespace poslab;
using namespace poslab::exporting;

class TestExportSetup : public QObject {
    Q_OBJECT
private slots:
    void nonApplicableKeyRefusedEverywhereAlike();
    void settingsResolveInAnyOrder();
    void animatingNonApplicableKeyRefused();
    void dialogOffersOnlyKeysInForce();
    void sweepFramesDifferAndCarryTheirValue();
    void sweepHoldsOneColourScale();
    void decayCsvHasHeaderAndEveryDistance();
    void decayCsvOfEverySchemeFamilyHasEveryDistance();
    void tableCsvRowsSayTheirPosition();
    void recommendedSlideSettingsWork();
    void onlyTheTableFigureMayStartTheGpu();

private:
    QTemporaryDir m_dir;
};

namespace {

struct Run {
    int status = 0;
    QString out, err;
};

Run asText(const test::Run& r)
{
    return {r.status, test::outText(r), test::errText(r)};
}

Run exportCli(const QStringList& args)
{
    return asText(test::runExportList(QStringList{"export"} + args));
}

Run computeCli(const QStringList& args)
{
    return asText(test::runList(QStringList{"compute"} + args));
}

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// Mean absolute difference per channel of two same-size images over @p rect.
double meanDifference(const QImage& a, const QImage& b, const QRect& rect)
{
    double sum = 0;
    for (int y = rect.top(); y <= rect.bottom(); ++y)
        for (int x = rect.left(); x <= rect.right(); ++x) {
            const QRgb p = a.pixel(x, y), q = b.pixel(x, y);
            sum += std::abs(qRed(p) - qRed(q)) + std::abs(qGreen(p) - qGreen(q)) + std::abs(qBlue(p) - qBlue(q));
        }
    return sum / (3.0 * rect.width() * rect.height());
}

/// A scene on RoPE at @p dim x @p positions with @p sets resolved as `--set` would.
std::unique_ptr<ExportScene> ropeScene(const core::Overrides& sets, int dim = 64, int positions = 256)
{
    auto s = std::make_unique<ExportScene>();
    ui::Setup setup;
    setup.scheme = "rope";
    setup.dim = dim;
    setup.positionCount = positions;
    core::TableContext ctx;
    ctx.dim = dim;
    ctx.positions = core::PositionList::range(0, positions);
    ctx.seqLen = positions;
    setup.params = core::resolveParams(core::schemeOrThrow("rope"), sets, ctx);
    s->state().applySetup(setup);
    return s;
}

} // namespace

void TestExportSetup::nonApplicableKeyRefusedEverywhereAlike()
{
    // RoPE's `factor` applies only under a context-extension rope_type (HF rope_scaling); with the default
    // rope_type it would be ignored, so every front end refuses it with the resolver's one line.
    const Run compute = computeCli({"angles", "--scheme", "rope", "--set", "factor=8"});
    QCOMPARE(compute.status, app::exitUsage);
    QVERIFY2(compute.err.startsWith(QStringLiteral("poslab: parameter factor applies only when rope_type is ")),
             qPrintable(compute.err));
    QVERIFY2(compute.err.endsWith(QStringLiteral("(now rope_type is default)\n")), qPrintable(compute.err));

    const QString png = m_dir.filePath(QStringLiteral("factor.png"));
    const Run figure = exportCli({"decay", "--scheme", "rope", "--set", "factor=8", "-o", png});
    QCOMPARE(figure.status, app::exitUsage);
    QCOMPARE(figure.err, compute.err);
    QVERIFY(!QFile::exists(png));
    const Run data = exportCli({"table", "--scheme", "rope", "--set", "factor=8", "-o", m_dir.filePath("f.csv")});
    QCOMPARE(data.status, app::exitUsage);
    QCOMPARE(data.err, compute.err);

    // A batch entry: reported as that entry, the good one still written.
    QTemporaryDir deck;
    QFile batch(deck.filePath(QStringLiteral("deck.json")));
    QVERIFY(batch.open(QIODevice::WriteOnly));
    batch.write(R"({"figures": [
        {"view": "decay", "scheme": "rope", "set": {"factor": 8}, "size": "320x240", "output": "bad.png"},
        {"view": "decay", "scheme": "rope", "set": ["rope_type=yarn", "factor=8"], "size": "320x240",
         "output": "good.png"}]})");
    batch.close();
    const Run b = exportCli({"--batch", batch.fileName()});
    QCOMPARE(b.status, app::exitRefused);
    const QString line = compute.err.mid(int(qstrlen("poslab: ")));
    QVERIFY2(b.err.contains(QStringLiteral("poslab: entry 1 (bad.png): ") + line), qPrintable(b.err));
    QVERIFY(!QFile::exists(deck.filePath(QStringLiteral("bad.png"))));
    QVERIFY(QFile::exists(deck.filePath(QStringLiteral("good.png"))));

    // The window: a typed value and a loaded session get the same sentence, and nothing changes.
    ui::WorkbenchState state;
    QVERIFY(state.setScheme(QStringLiteral("rope")).isEmpty());
    const core::ParamSet before = state.params();
    QCOMPARE(state.setParamText(QStringLiteral("factor"), QStringLiteral("8")) + QLatin1Char('\n'), line);
    QCOMPARE(state.setParam(QStringLiteral("beta_fast"), core::ParamValue::real(16)).isEmpty(), false);
    QCOMPARE(state.params(), before);
    QJsonObject session = state.toJson();
    QJsonObject params = session.value(QStringLiteral("params")).toObject();
    QVERIFY2(!params.contains(QStringLiteral("factor")), "a saved session holds only the keys in force");
    params.insert(QStringLiteral("factor"), QStringLiteral("8"));
    session.insert(QStringLiteral("params"), params);
    ui::WorkbenchState loaded;
    QCOMPARE(loaded.fromJson(session) + QLatin1Char('\n'), line);
    // Where it applies, the same key is taken.
    QVERIFY(state.setParamText(QStringLiteral("rope_type"), QStringLiteral("yarn")).isEmpty());
    QVERIFY(state.setParamText(QStringLiteral("factor"), QStringLiteral("8")).isEmpty());
    QCOMPARE(state.params().real("factor"), 8.0);
    QVERIFY(loaded.fromJson(state.toJson()).isEmpty());
    QCOMPARE(loaded.params(), state.params());

    // `export --state` starts from a saved window and resolves --set on top of it with the same rules.
    auto saved = [&](const ui::WorkbenchState& w, const QString& name) {
        QFile f(m_dir.filePath(name));
        if (f.open(QIODevice::WriteOnly))
            f.write(QJsonDocument(w.toJson()).toJson());
        return f.fileName();
    };
    const QString yarnState = saved(state, QStringLiteral("yarn.json"));
    QCOMPARE(exportCli({"table", "--state", yarnState, "--set", "beta_fast=16", "-o", m_dir.filePath("y.csv")}).status,
             app::exitOk);
    ui::WorkbenchState plainRope;
    const Run fromPlain = exportCli({"table", "--state", saved(plainRope, QStringLiteral("plain.json")), "--set",
                                     "factor=8", "-o", m_dir.filePath("p.csv")});
    QCOMPARE(fromPlain.status, app::exitUsage);
    QCOMPARE(fromPlain.err, compute.err);
}

void TestExportSetup::settingsResolveInAnyOrder()
{
    // Choices are resolved before the "applies" check: factor first, rope_type second is the same set-up.
    const QString a = m_dir.filePath(QStringLiteral("a.csv")), b = m_dir.filePath(QStringLiteral("b.csv")),
                  plain = m_dir.filePath(QStringLiteral("plain.csv"));
    QCOMPARE(exportCli({"table", "--scheme", "rope", "--dim", "16", "--positions", "64", "--set", "factor=8", "--set",
                        "rope_type=linear", "-o", a})
                 .status,
             app::exitOk);
    QCOMPARE(exportCli({"table", "--scheme", "rope", "--dim", "16", "--positions", "64", "--set", "rope_type=linear",
                        "--set", "factor=8", "-o", b})
                 .status,
             app::exitOk);
    QCOMPARE(exportCli({"table", "--scheme", "rope", "--dim", "16", "--positions", "64", "-o", plain}).status,
             app::exitOk);
    QCOMPARE(readAll(a), readAll(b));
    QVERIFY(readAll(a) != readAll(plain)); // and the key took effect
    const Run compute = computeCli({"angles", "--scheme", "rope", "--set", "factor=8", "--set", "rope_type=linear"});
    QCOMPARE(compute.status, app::exitOk);
    // Keys not given follow the choice (Llama 3.1's rope_scaling: factor 8, meta-llama/Llama-3.1-8B
    // config.json), and keys given stay, in either order.
    auto table = [&](const QString& name, const QStringList& sets) {
        QStringList args{"table", "--scheme", "rope", "--dim", "16", "--positions", "64"};
        for (const QString& kv : sets)
            args << "--set" << kv;
        const QString path = m_dir.filePath(name);
        args << "-o" << path;
        const Run r = exportCli(args);
        return r.status == app::exitOk ? readAll(path) : r.err.toUtf8();
    };
    const QByteArray llama = table("l.csv", {"rope_type=llama3"});
    QCOMPARE(llama, table("l8.csv", {"rope_type=llama3", "factor=8"}));
    QCOMPARE(table("l2a.csv", {"factor=2", "rope_type=llama3"}), table("l2b.csv", {"rope_type=llama3", "factor=2"}));
    QVERIFY(table("l2a.csv", {"factor=2", "rope_type=llama3"}) != llama);
}

void TestExportSetup::animatingNonApplicableKeyRefused()
{
    // Sweeping beta_fast on plain RoPE drew identical frames; now it is refused before any drawing, in the
    // words `--set beta_fast=...` gets.
    const Run compute = computeCli({"angles", "--scheme", "rope", "--set", "beta_fast=16"});
    QCOMPARE(compute.status, app::exitUsage);
    const QString gif = m_dir.filePath(QStringLiteral("beta.gif"));
    const Run r = exportCli({"decay", "--scheme", "rope", "--size", "320x240", "--frames", "3", "--animate",
                             "beta_fast", "--from", "8", "--to", "64", "-o", gif});
    QCOMPARE(r.status, app::exitUsage);
    QCOMPARE(r.err, compute.err);
    QVERIFY(!QFile::exists(gif));
    // Under YaRN the same sweep is allowed.
    QCOMPARE(exportCli({"decay", "--scheme", "rope", "--set", "rope_type=yarn", "--size", "320x240", "--frames", "3",
                        "--animate", "beta_fast", "--from", "8", "--to", "64", "-o", gif})
                 .status,
             app::exitOk);
    QCOMPARE(QImageReader(gif).imageCount(), 3);
    // A head beyond the heads is refused, not clamped to the last one (which drew repeated frames captioned
    // with values never shown).
    const QString heads = m_dir.filePath(QStringLiteral("heads.gif"));
    const Run h = exportCli({"attention", "--scheme", "alibi", "--positions", "32", "--heads", "8", "--size", "320x240",
                             "--frames", "3", "--animate", "head", "--from", "0", "--to", "9", "-o", heads});
    QCOMPARE(h.status, app::exitUsage);
    QVERIFY2(h.err.contains(QStringLiteral("head 9 is out of range; allowed: 0 to 7")), qPrintable(h.err));
    QVERIFY(!QFile::exists(heads));
}

void TestExportSetup::dialogOffersOnlyKeysInForce()
{
    // The dialog's "Animate" list offered beta_fast on plain RoPE (a sweep of identical frames); it lists the
    // number keys in force, as the parameter panel shows them.
    auto animatable = [](ExportScene& s) {
        std::vector<ui::View*> views;
        for (const QString& name : ExportScene::viewNames())
            views.push_back(s.view(name));
        ExportDialog dialog(&s.state(), &s.computation(), views.front(), views);
        QStringList keys;
        for (QComboBox* box : dialog.findChildren<QComboBox*>())
            if (box->findData(QStringLiteral("position")) >= 0)
                for (int i = 0; i < box->count(); ++i)
                    keys << box->itemData(i).toString();
        return keys;
    };
    auto plain = ropeScene({});
    const QStringList a = animatable(*plain);
    QVERIFY2(a.contains(QStringLiteral("rope_theta")), qPrintable(a.join(' ')));
    QVERIFY2(!a.contains(QStringLiteral("beta_fast")) && !a.contains(QStringLiteral("factor")),
             qPrintable(a.join(' ')));
    auto yarn = ropeScene({{"rope_type", "yarn"}});
    const QStringList b = animatable(*yarn);
    QVERIFY2(b.contains(QStringLiteral("beta_fast")) && b.contains(QStringLiteral("factor")), qPrintable(b.join(' ')));
}

void TestExportSetup::sweepFramesDifferAndCarryTheirValue()
{
    auto s = ropeScene({{"rope_type", "linear"}});
    ui::View* table = s->view(QStringLiteral("table"));
    QVERIFY(table);
    ExportOptions o;
    o.format = Format::Gif;
    o.size = QSizeF(480, 320);
    o.animation.what = QStringLiteral("factor");
    o.animation.from = 1.0;
    o.animation.to = 8.0;
    o.animation.frames = 4; // factor is logarithmic: 1, 2, 4, 8
    ExportResult r;
    const QList<QImage> frames = ExportService::renderFrames(*table, s->state(), s->computation(), o, &r);
    QVERIFY2(r.ok(), qPrintable(r.message));
    QCOMPARE(frames.size(), 4);
    for (int i = 1; i < frames.size(); ++i)
        QVERIFY2(frames[i] != frames[i - 1], qPrintable(QString("frames %1 and %2 are identical").arg(i - 1).arg(i)));
    // The caption: the value the state holds in the last frame, in words a person reads.
    QCOMPARE(ExportService::sweepCaption(s->state(), QStringLiteral("factor")), QStringLiteral("factor = 8.0"));
    QCOMPARE(s->state().params().real("factor"), 8.0);
    // The band under the view differs between frames (its text is the value) ...
    const QRect band(0, frames[0].height() - 12, frames[0].width(), 10);
    QVERIFY(meanDifference(frames[0], frames[3], band) > 0.0);
    // A position animation needs no caption (the views show the position themselves) and still works.
    ui::View* clock = s->view(QStringLiteral("clock"));
    ExportOptions p = o;
    p.animation = AnimationOptions{};
    p.animation.frames = 2;
    const QList<QImage> moving = ExportService::renderFrames(*clock, s->state(), s->computation(), p, &r);
    QVERIFY2(r.ok(), qPrintable(r.message));
    QCOMPARE(moving.size(), 2);
    QCOMPARE(ExportService::sweepCaption(s->state(), QStringLiteral("positions")), QStringLiteral("positions = 256"));
    ui::WorkbenchState big;
    QVERIFY(big.setPositionCount(32768).isEmpty());
    QCOMPARE(ExportService::sweepCaption(big, QStringLiteral("positions")), QStringLiteral("positions = 32,768"));
    QVERIFY(big.setScheme(QStringLiteral("rope")).isEmpty());
    QVERIFY(big.setParamText(QStringLiteral("rope_theta"), QStringLiteral("2154.4347")).isEmpty());
    QCOMPARE(ExportService::sweepCaption(big, QStringLiteral("rope_theta")), QStringLiteral("rope_theta = 2,154.4"));
}

void TestExportSetup::sweepHoldsOneColourScale()
{
    // YaRN multiplies cos and sin by the attention factor 0.1 ln(s) + 1 (Peng et al. 2023, eq. 22; HF
    // transformers get_mscale), so the cos table's largest magnitude, at p = 0, is that factor: 1.0693 at s = 2,
    // 1.2773 at s = 16. A sweep of s from 2 to 16 must colour every frame on the widest frame's scale.
    auto s = ropeScene({{"rope_type", "yarn"}});
    ui::View* table = s->view(QStringLiteral("table"));
    ExportOptions o;
    o.format = Format::Gif;
    o.size = QSizeF(640, 400);
    o.animation.what = QStringLiteral("factor");
    o.animation.from = 2.0;
    o.animation.to = 16.0;
    o.animation.frames = 3;
    ExportResult held;
    const QList<QImage> a = ExportService::renderFrames(*table, s->state(), s->computation(), o, &held);
    QVERIFY2(held.ok(), qPrintable(held.message));
    const double widest = 0.1 * std::log(16.0) + 1.0;
    QVERIFY2(held.notes.join(' ').contains(
                 QStringLiteral("colour scale held at %1 to %2").arg(-widest, 0, 'g', 4).arg(widest, 0, 'g', 4)),
             qPrintable(held.notes.join(' ')));
    // The colour bar and its tick labels (the right-hand strip, right of the heatmap) are the same pixels in
    // every frame; the heatmap itself is not.
    const int left = int(a[0].width() * 0.88);
    // Below the header: the title names the swept factor and may reach this far right.
    const int top = int(a[0].height() * 0.25);
    const QRect bar(left, top, a[0].width() - left, a[0].height() - 60 - top);
    QCOMPARE(meanDifference(a[0], a[2], bar), 0.0);
    QVERIFY(a[0] != a[2]);
    QVERIFY(table->dataColourRange()->hi < widest + 1e-9); // the hold is released after the sweep
    // Asked to float, each frame scales to its own data: the bar's labels move.
    o.animation.floatColourScale = true;
    ExportResult floating;
    const QList<QImage> b = ExportService::renderFrames(*table, s->state(), s->computation(), o, &floating);
    QVERIFY2(floating.ok(), qPrintable(floating.message));
    QVERIFY(!floating.notes.join(' ').contains(QStringLiteral("held")));
    QVERIFY(meanDifference(b[0], b[2], bar) > 0.0);
}

void TestExportSetup::decayCsvHasHeaderAndEveryDistance()
{
    // RoPE's q = k = 1 score against distance k, relative to k = 0 (RoFormer, Su et al. 2021, section 3.4.3):
    // sum_i cos(k theta_i) / (d/2), theta_i = 10000^(-2i/d) (HF transformers, _compute_default_rope_parameters).
    const QString csv = m_dir.filePath(QStringLiteral("decay.csv"));
    const Run r = exportCli({"decay", "--scheme", "rope", "--dim", "64", "--positions", "1024", "-o", csv});
    QCOMPARE(r.status, app::exitOk);
    const QList<QByteArray> lines = readAll(csv).trimmed().split('\n');
    QVERIFY2(lines.front().startsWith("distance,"), lines.front().constData());
    QCOMPARE(lines.size(), 1 + 1024); // header + distances 0 .. 1023, none skipped
    for (int k = 0; k < 1024; ++k) {
        const QList<QByteArray> cells = lines[k + 1].split(',');
        QCOMPARE(cells[0].toInt(), k);
        if (k % 97 == 0 || k == 1 || k == 1023) {
            double expected = 0;
            for (int i = 0; i < 32; ++i)
                expected += std::cos(k * std::pow(10000.0, -2.0 * i / 64));
            expected /= 32;
            QVERIFY2(std::abs(cells[1].toDouble() - expected) < 1e-9,
                     qPrintable(QString("k = %1: %2 vs %3").arg(k).arg(cells[1].constData()).arg(expected)));
        }
    }
}

void TestExportSetup::decayCsvOfEverySchemeFamilyHasEveryDistance()
{
    // The chart samples (about 400 points, or a log axis for T5); the data never does: distances 0 .. N-1.
    for (const char* scheme : {"rope", "sinusoidal", "learned", "alibi", "t5", "kerple"}) {
        const QString csv = m_dir.filePath(QStringLiteral("decay-%1.csv").arg(QLatin1String(scheme)));
        const Run r
            = exportCli({"decay", "--scheme", scheme, "--dim", "32", "--positions", "700", "--cursor", "0", "-o", csv});
        QVERIFY2(r.status == app::exitOk, qPrintable(QLatin1String(scheme) + r.err));
        const QList<QByteArray> lines = readAll(csv).trimmed().split('\n');
        QVERIFY2(lines.front().startsWith("distance,"), scheme);
        QCOMPARE(lines.size(), 1 + 700);
        for (int k = 0; k < 700; ++k)
            QCOMPARE(lines[k + 1].left(lines[k + 1].indexOf(',')).toInt(), k);
    }
}

void TestExportSetup::tableCsvRowsSayTheirPosition()
{
    // Sinusoidal PE(p, 2i) = sin(p / 10000^(2i/d)) (Vaswani et al. 2017, section 3.5), interleaved layout.
    const QString csv = m_dir.filePath(QStringLiteral("table.csv"));
    QCOMPARE(exportCli({"table", "--scheme", "sinusoidal", "--dim", "8", "--positions", "5", "-o", csv}).status,
             app::exitOk);
    const QList<QByteArray> lines = readAll(csv).trimmed().split('\n');
    QCOMPARE(lines.size(), 1 + 5);
    QCOMPARE(lines[0],
             QByteArray("position,dimension 0,dimension 1,dimension 2,dimension 3,dimension 4,dimension 5,"
                        "dimension 6,dimension 7"));
    for (int p = 0; p < 5; ++p) {
        const QList<QByteArray> cells = lines[p + 1].split(',');
        QCOMPARE(cells.size(), 9);
        QCOMPARE(cells[0].toInt(), p);
        QVERIFY(std::abs(cells[1].toDouble() - std::sin(double(p))) < 1e-6);
    }
}

void TestExportSetup::recommendedSlideSettingsWork()
{
    // The help's slide recipe must be a figure the size of PowerPoint's 16:9 widescreen slide (13.333 x 7.5 in)
    // at font scale 1, and export every view.
    const QString help = QString::fromStdString(app::exportUsage());
    const QRegularExpression recipe(
        QStringLiteral("Slides: --size (\\d+)x(\\d+) --dpi (\\d+) is ([0-9.]+) x ([0-9.]+) in"));
    const auto m = recipe.match(help);
    QVERIFY2(m.hasMatch(), qPrintable(help));
    const int w = m.captured(1).toInt(), h = m.captured(2).toInt(), dpi = m.captured(3).toInt();
    QVERIFY(std::abs(double(w) / dpi - 40.0 / 3.0) < 0.01 && std::abs(double(h) / dpi - 7.5) < 0.01);
    QVERIFY(std::abs(m.captured(4).toDouble() - double(w) / dpi) < 0.01);
    QVERIFY(std::abs(m.captured(5).toDouble() - double(h) / dpi) < 0.01);
    QVERIFY2(!help.contains(QStringLiteral("--font-scale 1.5 to 2 suits slides")), "font scale 2 made labels collide");
    for (const QString& view : ExportScene::viewNames()) {
        const QString png = m_dir.filePath(QStringLiteral("slide-%1.png").arg(view));
        const QString size = QStringLiteral("%1x%2").arg(w).arg(h);
        // Each view with a scheme it draws: buckets T5's, the spatial views a grid and a sequence scheme.
        const QString scheme = view == QLatin1String("buckets") ? "t5"
            : view == QLatin1String("patchgrid")                ? "rope_2d"
            : view == QLatin1String("sequence")                 ? "mrope"
                                                                : "rope";
        QStringList args{view,    "--scheme",           scheme, "--cursor", "37", "--size", size,
                         "--dpi", QString::number(dpi), "-o",   png};
        if (view == QLatin1String("lengthlab")) { // it draws a run file of poslab train
            const QString run = m_dir.filePath(QStringLiteral("run.json"));
            core::train::RunResult rr;
            rr.config.scheme = "alibi";
            for (int L : {10, 20, 40})
                rr.lengths.push_back({L, 10.0 / L, 0.5 + 5.0 / L, 0.1 * L, false});
            std::ofstream f(run.toStdString());
            core::train::writeRuns(f, {rr});
            args << "--run" << run;
        }
        const Run r = exportCli(args);
        QVERIFY2(r.status == app::exitOk, qPrintable(view + r.err));
        const QImage img(png);
        QCOMPARE(img.size(), QSize(w, h));
        QCOMPARE(img.dotsPerMeterX(), int(std::lround(dpi / 0.0254)));
    }
}

QTEST_MAIN(TestExportSetup)
void TestExportSetup::onlyTheTableFigureMayStartTheGpu()
{
    // A data export, or a figure of a view that draws no table, computes the scene's table on the
    // CPU, so that it never loads the GL driver (nor starts a context only to refuse the request). The table
    // figure keeps the window's automatic choice. 4096 x 512 = 2M elements: over TableEngine's GPU threshold.
    QVERIFY(4096.0 * 512 > gpu::TableEngine::autoGpuMinElements);
    for (const QString& view : ExportScene::viewNames()) {
        for (const bool data : {false, true}) {
            const bool table = view == QLatin1String("table") && !data;
            // The table figure is checked on a small table: at 2M elements Auto would start a context here.
            auto s = table ? ropeScene({}, 64, 256) : ropeScene({}, 512, 4096);
            if (data)
                s->setDrawsNothing();
            QVERIFY2(s->view(view), qPrintable(view));
            const gpu::ComputePath expected = table ? gpu::ComputePath::Auto : gpu::ComputePath::Cpu;
            QVERIFY2(s->computation().computePath() == expected, qPrintable(view + (data ? " data" : " figure")));
            if (expected == gpu::ComputePath::Cpu) {
                settle(s->computation());
                QVERIFY2(s->computation().result()->path.contains(QLatin1String("CPU")),
                         qPrintable(view + ": " + s->computation().result()->path));
            }
        }
    }
}

#include "tst_exportsetup.moc"
