// SPDX-License-Identifier: MIT
// Typeset formulas: every TeX formula of every lesson (resources/lessons/L*.json, read from the source
// tree so that new lessons are seen) and of every scheme in the registry (resources/formulas/schemes.json) has a
// current SVG, i.e. index.json lists the file named by the SHA-1 of its TeX and that file is compiled in; each one
// renders to a non-empty image in the theme's text colour (MathJax writes currentColor); a missing formula shows
// its TeX instead of crashing. The scheme picker shows the typeset formula. Help > About names the licences.
#include "core/encodingregistry.h"
#include "ui/window/about.h"
#include "ui/render/formula.h"
#include "ui/render/theme.h"
#include "ui/window/schemepicker.h"
#include "ui/state/workbenchstate.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFontInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QPainter>
#include <QPixmap>
#include <QSvgGenerator>
#include <QSvgRenderer>
#include <QBuffer>
#include <QStandardPaths>
#include <QTest>
#include <QToolButton>

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

using namespace poslab;
using namespace poslab::ui;

namespace {

const QString sourceDir = QStringLiteral(POSLAB_SOURCE_DIR);

// What QtSvg said while reading a formula: it warns, and stops drawing, at what SVG Tiny 1.2 lacks (MathJax's
// nested <svg> for stretched braces and overlines left every glyph after the first one undrawn).
QStringList svgWarnings;
QtMessageHandler previousHandler = nullptr;

void recordSvgWarnings(QtMsgType type, const QMessageLogContext& context, const QString& message)
{
    if (context.category && QByteArray(context.category).startsWith("qt.svg"))
        svgWarnings << message;
    previousHandler(type, context, message);
}

QJsonObject readObject(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

/// Every formula PosLab shows, with where it comes from: each lesson step's "formula" and each scheme's TeX.
std::vector<std::pair<QString, QString>> allFormulas()
{
    std::vector<std::pair<QString, QString>> out;
    const QDir lessons(sourceDir + QStringLiteral("/resources/lessons"));
    const QStringList files = lessons.entryList({QStringLiteral("L*.json")}, QDir::Files, QDir::Name);
    for (const QString& file : files) {
        const QJsonArray steps = readObject(lessons.filePath(file)).value(QStringLiteral("steps")).toArray();
        for (const QJsonValue& step : steps) {
            const QJsonObject s = step.toObject();
            if (s.contains(QStringLiteral("formula")))
                out.push_back({file + QStringLiteral(" step ") + s.value(QStringLiteral("id")).toString(),
                               s.value(QStringLiteral("formula")).toString()});
        }
    }
    const QJsonObject schemes = readObject(sourceDir + QStringLiteral("/resources/formulas/schemes.json"));
    for (auto it = schemes.begin(); it != schemes.end(); ++it)
        out.push_back({QStringLiteral("scheme ") + it.key(), it.value().toString()});
    // The story pages (resources/stories/*.json): each story's formula and each rope_type variant's.
    const QDir stories(sourceDir + QStringLiteral("/resources/stories"));
    for (const QString& file : stories.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
        if (file == QLatin1String("timeline.json"))
            continue;
        const QJsonObject story = readObject(stories.filePath(file));
        if (story.contains(QStringLiteral("formula")))
            out.push_back({QStringLiteral("story ") + file, story.value(QStringLiteral("formula")).toString()});
        for (const QJsonValue& v : story.value(QStringLiteral("variants")).toArray())
            if (v.toObject().contains(QStringLiteral("formula")))
                out.push_back({QStringLiteral("story ") + file + QLatin1Char(' ')
                                   + v.toObject().value(QStringLiteral("rope_type")).toString(),
                               v.toObject().value(QStringLiteral("formula")).toString()});
    }
    return out;
}

/// Pixels of @p img that differ from @p background by more than a rounding step in any channel (alpha included).
int inkPixels(const QImage& img, QRgb background)
{
    const QImage argb = img.convertToFormat(QImage::Format_ARGB32);
    int n = 0;
    for (int y = 0; y < argb.height(); ++y)
        for (int x = 0; x < argb.width(); ++x) {
            const QRgb p = argb.pixel(x, y);
            if (std::abs(qRed(p) - qRed(background)) > 2 || std::abs(qGreen(p) - qGreen(background)) > 2
                || std::abs(qBlue(p) - qBlue(background)) > 2 || std::abs(qAlpha(p) - qAlpha(background)) > 2)
                ++n;
        }
    return n;
}

/// The image of @p f on an opaque @p background, in @p ink, one em = @p em px.
QImage onBackground(const Formula& f, double em, const QColor& ink, const QColor& background)
{
    const QSizeF s = f.size(em);
    QImage img(int(std::ceil(s.width())), int(std::ceil(s.height())), QImage::Format_ARGB32);
    img.fill(background);
    QPainter p(&img);
    p.setRenderHint(QPainter::Antialiasing);
    f.paint(&p, QPointF(0, 0), em, ink);
    p.end();
    return img;
}

} // namespace

class TestFormulas : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { previousHandler = qInstallMessageHandler(recordSvgWarnings); }
    void cleanupTestCase() { qInstallMessageHandler(previousHandler); }

    void fileNameIsTheSha1OfTheTex()
    {
        // FIPS 180-2, appendix A.1: SHA-1("abc").
        QCOMPARE(Formula::fileName(QStringLiteral("abc")),
                 QStringLiteral("a9993e364706816aba3e25717850c26c9cd0d89d.svg"));
        // UTF-8 bytes, not Latin-1 or UTF-16: "é" is C3 A9, whose SHA-1 differs from that of the byte E9.
        QCOMPARE(Formula::fileName(QString::fromUtf8("\xc3\xa9")),
                 QString::fromLatin1(QCryptographicHash::hash(QByteArray("\xc3\xa9"), QCryptographicHash::Sha1).toHex())
                     + QStringLiteral(".svg"));
        QVERIFY(Formula::fileName(QString::fromUtf8("\xc3\xa9"))
                != QString::fromLatin1(QCryptographicHash::hash(QByteArray("\xe9"), QCryptographicHash::Sha1).toHex())
                    + QStringLiteral(".svg"));
    }

    void everySchemeHasAFormula()
    {
        // One TeX per registry entry, and none for a scheme that no longer exists.
        QStringList ids;
        for (const auto& s : core::schemes()) {
            const QString id = QString::fromStdString(s.id);
            ids << id;
            QVERIFY2(!schemeFormulaTex(id).isEmpty(),
                     qPrintable(id + " has no TeX in resources/formulas/schemes.json"));
        }
        for (const QString& id : schemeFormulaIds())
            QVERIFY2(ids.contains(id), qPrintable("schemes.json has a formula for unknown scheme " + id));
    }

    void everyFormulaHasACurrentSvg_data()
    {
        QTest::addColumn<QString>("tex");
        const auto formulas = allFormulas();
        QVERIFY(formulas.size() >= core::schemes().size());
        for (const auto& [where, tex] : formulas)
            QTest::newRow(qPrintable(where)) << tex;
    }

    void everyFormulaHasACurrentSvg()
    {
        QFETCH(QString, tex);
        QVERIFY(!tex.trimmed().isEmpty());
        const QJsonObject index = readObject(sourceDir + QStringLiteral("/resources/formulas/index.json"));
        const QString expected
            = QString::fromLatin1(QCryptographicHash::hash(tex.toUtf8(), QCryptographicHash::Sha1).toHex())
            + QStringLiteral(".svg");
        QVERIFY2(index.value(QStringLiteral("formulas")).toObject().value(tex).toString() == expected,
                 "not in resources/formulas/index.json under its SHA-1: run scripts/typeset-formulas.sh");
        // The file in the source tree is the one compiled in (a rebuild after typesetting).
        QFile source(sourceDir + QStringLiteral("/resources/formulas/") + expected);
        QVERIFY2(source.open(QIODevice::ReadOnly),
                 qPrintable(expected + " is missing: run scripts/typeset-formulas.sh"));
        QFile compiled(QStringLiteral(":/formulas/") + expected);
        QVERIFY2(compiled.open(QIODevice::ReadOnly), "not compiled in: re-run cmake after scripts/typeset-formulas.sh");
        QCOMPARE(compiled.readAll(), source.readAll());

        svgWarnings.clear();
        const Formula f(tex);
        QVERIFY(f.isValid());
        QVERIFY(f.sizeEm().width() > 0.3 && f.sizeEm().height() > 0.3);
        QVERIFY(f.ascentEm() > 0 && f.ascentEm() <= f.sizeEm().height());

        // It renders: glyphs drawn (not an empty SVG), spread over most of the box (a broken viewBox would
        // leave it in a corner).
        const QColor background = Theme::light().background;
        const QImage img = onBackground(f, 20, Theme::light().foreground, background);
        QVERIFY2(svgWarnings.isEmpty(), qPrintable(svgWarnings.join(QLatin1Char('\n'))));
        const int ink = inkPixels(img, background.rgba());
        QVERIFY2(ink > 20, qPrintable(QStringLiteral("%1 inked pixels").arg(ink)));
        int left = img.width(), right = -1;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x)
                if (img.pixel(x, y) != background.rgba()) {
                    left = std::min(left, x);
                    right = std::max(right, x);
                }
        QVERIFY2(right - left > img.width() / 2,
                 qPrintable(QStringLiteral("ink spans %1 of %2 px").arg(right - left).arg(img.width())));
    }

    void inkCounterSeesAnEmptySvg()
    {
        // The check above fails for an SVG that draws nothing: an empty MathJax-shaped SVG renders no ink.
        QSvgRenderer empty(QByteArray(R"(<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 -750 2000 1000">)"
                                      R"(<g stroke="currentColor" fill="currentColor"></g></svg>)"));
        QVERIFY(empty.isValid());
        QImage img(80, 40, QImage::Format_ARGB32);
        img.fill(Qt::white);
        QPainter p(&img);
        empty.render(&p);
        p.end();
        QCOMPARE(inkPixels(img, qRgba(255, 255, 255, 255)), 0);
    }

    void currentColorBecomesTheThemeText()
    {
        // In the dark theme the glyphs are the theme's light text colour, not MathJax's default black.
        const Theme dark = Theme::dark();
        const QString tex = schemeFormulaTex(QStringLiteral("rope"));
        const Formula f(tex);
        QVERIFY(f.isValid());
        QVERIFY(!f.svg(dark.foreground).contains("currentColor"));
        QVERIFY(f.svg(dark.foreground).contains(dark.foreground.name().toLatin1()));
        const QImage img = f.image(24, dark.foreground).convertToFormat(QImage::Format_ARGB32);
        int solid = 0, wrong = 0;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x) {
                const QRgb px = img.pixel(x, y);
                if (qAlpha(px) < 255)
                    continue; // edges and empty space
                ++solid;
                if (std::abs(qRed(px) - dark.foreground.red()) > 1 || std::abs(qGreen(px) - dark.foreground.green()) > 1
                    || std::abs(qBlue(px) - dark.foreground.blue()) > 1)
                    ++wrong;
            }
        QVERIFY2(solid > 50, qPrintable(QString::number(solid)));
        QCOMPARE(wrong, 0);
        // On the dark background the text is light: the brightest ink is far above the background.
        const QImage onDark = onBackground(f, 24, dark.foreground, dark.background);
        int brightest = 0;
        for (int y = 0; y < onDark.height(); ++y)
            for (int x = 0; x < onDark.width(); ++x)
                brightest = std::max(brightest, qGray(onDark.pixel(x, y)));
        QVERIFY(brightest > qGray(dark.background.rgb()) + 150);
    }

    void paintsVectorsIntoAnSvgExport()
    {
        // Painted into an SVG (or PDF) export the formula stays paths, in the colour asked for, not a bitmap.
        const Formula f(schemeFormulaTex(QStringLiteral("sinusoidal")));
        QVERIFY(f.isValid());
        QBuffer buffer;
        buffer.open(QIODevice::WriteOnly);
        QSvgGenerator gen;
        gen.setOutputDevice(&buffer);
        gen.setSize(f.size(20).toSize() + QSize(2, 2));
        QPainter p(&gen);
        f.paint(&p, QPointF(1, 1), 20, QColor(0x12, 0x34, 0x56));
        p.end();
        const QByteArray svg = buffer.data();
        QVERIFY(svg.count("<path") >= 10);
        QVERIFY(!svg.contains("<image"));
        QVERIFY(svg.contains("#123456"));
    }

    void missingFormulaShowsItsTex()
    {
        // Not typeset: the TeX source is drawn instead (a test like the one above fails for it; the app does not
        // crash).
        const QString tex = QStringLiteral("x^2 + \\notTypesetAnywhere");
        const Formula f(tex);
        QVERIFY(!f.isValid());
        QVERIFY(f.svg(Qt::black).isEmpty());
        QVERIFY(f.size(16).width() > 16);
        const QImage img = onBackground(f, 16, Qt::black, Qt::white);
        QVERIFY(inkPixels(img, qRgba(255, 255, 255, 255)) > 20);
    }

    void pickerShowsTheTypesetFormula()
    {
        QStandardPaths::setTestModeEnabled(true); // the formula toggle writes the settings
        WorkbenchState state;
        SchemePicker picker(&state);
        picker.resize(320, 700);
        picker.show();
        QVERIFY(QTest::qWaitForWindowExposed(&picker));
        if (!picker.formulaToggle()->isChecked()) // folded by default on a short screen: unfold it
            picker.formulaToggle()->click();
        for (const auto& s : core::schemes()) {
            const QString id = QString::fromStdString(s.id);
            QCOMPARE(state.setScheme(id), QString());
            QCOMPARE(picker.formulaTex(), schemeFormulaTex(id));
            QLabel* label = picker.formulaLabel();
            QVERIFY2(!label->pixmap().isNull(), qPrintable(id));
            // Within the panel's width, shrunk where needed; the plain-text formula is the tooltip.
            QVERIFY2(label->pixmap().deviceIndependentSize().width() <= label->width(), qPrintable(id));
            // Shrunk to the panel's width, but never below the floor of the text size (then it scrolls sideways).
            const double em = QFontInfo(picker.font()).pixelSize();
            QVERIFY2(label->pixmap().deviceIndependentSize().height()
                         >= SchemePicker::minFormulaScale * Formula(picker.formulaTex()).size(em).height() - 1,
                     qPrintable(id));
            QCOMPARE(label->toolTip(), QString::fromStdString(s.formula));
            QVERIFY(picker.infoText().contains(QString::fromStdString(s.formula)));
            const QImage img = label->pixmap().toImage();
            QVERIFY2(inkPixels(img, qRgba(0, 0, 0, 0)) > 20, qPrintable(id));
        }
    }

    void aboutNamesWhatIsBundled()
    {
        const QString text = licencesText();
        for (const char* word : {"MathJax", "Apache License 2.0", "SIL Open Font License", "Qt Charts",
                                 "GNU Lesser General Public License version 3", "Mozilla Public License 2.0", "Eigen"})
            QVERIFY2(text.contains(QLatin1String(word)), word);
        QVERIFY(text.contains(QString::fromLatin1(qVersion())));
        QVERIFY(!text.contains(QLatin1String("{qt}")) && !text.contains(QLatin1String("{eigen}")));
        for (const QString& id : licenceIds()) {
            QVERIFY2(licenceFullText(id).size() > 5000, qPrintable(id));
            QVERIFY(text.contains(QStringLiteral("==== %1 ====").arg(id)));
        }
        QVERIFY(licenceFullText(QStringLiteral("Apache-2.0")).contains(QLatin1String("Apache License")));
        QVERIFY(
            licenceFullText(QStringLiteral("MPL-2.0")).contains(QLatin1String("Mozilla Public License Version 2.0")));
        QVERIFY(licenceFullText(QStringLiteral("none")).isEmpty());
    }
};

QTEST_MAIN(TestFormulas)
#include "tst_formulas.moc"
