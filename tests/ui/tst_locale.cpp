// SPDX-License-Identifier: MIT
// The window under its user's locale: QLocale::setDefault and std::locale::global (which also calls
// setlocale(LC_ALL, ...), as QApplication does with the environment's locale on Unix) set to de_DE, fr_FR and
// tr_TR in turn. A parameter typed into the parameter panel must read and show as under C ("1e6" is 1000000,
// "500000.5" is not 5000005, "1,5" is refused with the same message), every text the panel shows must be C's, and
// the figures drawn and exported (SVG, CSV) must be C's bytes. Locales that are not installed are skipped with a
// message (scripts/setup.sh generates the three).
#include "ui/export/exportscene.h"
#include "ui/export/exportservice.h"
#include "ui/figures/computation.h"
#include "ui/state/workbenchstate.h"
#include "ui/views/view.h"
#include "ui/window/parameterpanel.h"

#include <QAbstractSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QTest>

#include <clocale>
#include <cstdio>
#include <locale>
#include <stdexcept>

using namespace poslab;

namespace {

const char* const testLocales[] = {"de_DE.UTF-8", "fr_FR.UTF-8", "tr_TR.UTF-8"};

/// Sets the C++ global locale (and so the C locale) and Qt's default locale to @p name; false when the
/// locale is not installed.
bool useLocale(const char* name)
{
    try {
        std::locale::global(std::locale(name));
    } catch (const std::runtime_error&) {
        return false;
    }
    QLocale::setDefault(QLocale(QString::fromLatin1(name).section(QLatin1Char('.'), 0, 0)));
    // All three write a decimal comma: the C library's printf now does, so the test can see a leak.
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.1f", 1.5);
    return QByteArray(buf) == "1,5" && QLocale().decimalPoint() == QLatin1String(",");
}

void useC()
{
    std::locale::global(std::locale::classic());
    QLocale::setDefault(QLocale::c());
}

/// What the panel shows and what the state holds after typing each of @p typed into rope_theta.
struct PanelRound {
    QStringList shown; ///< the edit's text after each, then its message
    QList<double> held;
    QStringList texts; ///< every label and edit of the panel at the end
    bool operator==(const PanelRound&) const = default;
};

PanelRound typeIntoPanel(const QStringList& typed)
{
    PanelRound r;
    ui::WorkbenchState st;
    if (!st.setScheme(QStringLiteral("rope")).isEmpty())
        return r;
    ui::ParameterPanel panel(&st);
    QLineEdit* edit = panel.edit(QStringLiteral("rope_theta"));
    if (!edit)
        return r;
    for (const QString& t : typed) {
        edit->setText(t);
        edit->setModified(true);
        emit edit->editingFinished();
        r.shown << edit->text() << panel.message(QStringLiteral("rope_theta"));
        r.held << st.params().real("rope_theta");
    }
    for (const QLabel* l : panel.findChildren<QLabel*>())
        r.texts << l->objectName() + QLatin1Char('=') + l->text();
    for (const QLineEdit* e : panel.findChildren<QLineEdit*>())
        r.texts << e->objectName() + QLatin1Char('=') + e->text();
    return r;
}

/// SVG, controls and CSV of the table, clock and decay views for rope at rope_theta 500000.5, then a refused SVG.
QList<QByteArray> figures()
{
    QList<QByteArray> out;
    exporting::ExportScene scene;
    ui::Setup setup;
    setup.scheme = "rope";
    setup.params = core::defaultParams(*core::findScheme(setup.scheme));
    setup.dim = 32;
    setup.positionCount = 48;
    scene.state().applySetup(setup);
    if (!scene.state().setParamText(QStringLiteral("rope_theta"), QStringLiteral("500000.5")).isEmpty())
        return out;
    for (const QString& name : {QStringLiteral("table"), QStringLiteral("clock"), QStringLiteral("decay")}) {
        ui::View* v = scene.view(name);
        if (!v)
            return {};
        exporting::settle(scene.computation());
        exporting::ExportOptions o;
        o.format = exporting::Format::Svg;
        o.size = QSizeF(640, 400);
        QString why;
        out << name.toUtf8() + ".svg: " + exporting::ExportService::renderSvg(*v, scene.state(), o, &why)
                + why.toUtf8();
        // The view's own controls (spin boxes: the clock's speed, the attention view's head) as they show.
        QByteArray controls = name.toUtf8() + " controls:";
        if (QWidget* bar = v->controls())
            for (const QAbstractSpinBox* box : bar->findChildren<QAbstractSpinBox*>())
                controls += ' ' + box->objectName().toUtf8() + '=' + box->text().toUtf8();
        out << controls;
        exporting::ExportResult result;
        out << name.toUtf8()
                + ".csv: " + exporting::ExportService::renderData(*v, scene.state(), exporting::Format::Csv, &result);
    }
    // Every other view's controls (the rotation view's distances, the attention view's heads, ...).
    QByteArray others = "other controls:";
    for (const QString& name : exporting::ExportScene::viewNames())
        if (ui::View* v = scene.view(name); v && v->controls())
            for (const QAbstractSpinBox* box : v->controls()->findChildren<QAbstractSpinBox*>())
                others += ' ' + name.toUtf8() + '.' + box->objectName().toUtf8() + '=' + box->text().toUtf8();
    out << others;
    // A refusal with a number in it: an SVG over a vector byte limit of 1.5 KiB (core::formatBytes).
    exporting::ExportOptions o;
    o.format = exporting::Format::Svg;
    o.size = QSizeF(640, 400);
    o.vectorByteLimit = 1536;
    QString why;
    QByteArray refused
        = exporting::ExportService::renderSvg(*scene.view(QStringLiteral("table")), scene.state(), o, &why);
    refused.append(why.toUtf8());
    out << refused;
    return out;
}

} // namespace

class TestLocale : public QObject {
    Q_OBJECT
private slots:
    void cleanup() { useC(); }
    void parameterTypedAndShownAsInC();
    void figuresAsInC();
};

void TestLocale::parameterTypedAndShownAsInC()
{
    const QStringList typed{"1e6", "500000.5", "1,5", "2.5e4", "12345678", "1E6"};
    useC();
    const PanelRound c = typeIntoPanel(typed);
    QCOMPARE(c.held.size(), typed.size());
    QCOMPARE(c.held[0], 1e6);
    QCOMPARE(c.held[1], 500000.5);
    QCOMPARE(c.held[2], 500000.5); // "1,5" refused: the state keeps the last good value
    QVERIFY2(!c.shown[5].isEmpty(), "1,5 is refused with a message");
    QCOMPARE(c.held[3], 25000.0);
    int compared = 0;
    for (const char* name : testLocales) {
        if (!useLocale(name)) {
            qWarning("locale %s is not installed (scripts/setup.sh generates it)", name);
            continue;
        }
        const PanelRound l = typeIntoPanel(typed);
        useC();
        QCOMPARE(l.held, c.held);
        QCOMPARE(l.shown, c.shown);
        QCOMPARE(l.texts, c.texts);
        ++compared;
    }
    if (compared == 0)
        QSKIP("none of de_DE.UTF-8, fr_FR.UTF-8, tr_TR.UTF-8 is installed; scripts/setup.sh generates them");
}

void TestLocale::figuresAsInC()
{
    useC();
    const QList<QByteArray> c = figures();
    QCOMPARE(c.size(), 11);
    for (const QByteArray& f : {c[0], c[2], c[3], c[5], c[6], c[8]})
        QVERIFY2(f.size() > 1000 && !f.contains("Cannot"), f.left(300).constData());
    QVERIFY(c[6].contains("<svg") && c[6].contains("rope_theta=500000.5") && c[8].contains("\n1,0.96385"));
    QVERIFY2(c[4].contains("clockSpeed=2.0/s"), c[4].constData());
    QVERIFY2(c[9].contains("rotation.rotationShift=r 100") && c[9].contains("lengthlab.trainSteps=steps 4000"),
             c[9].constData());
    QVERIFY2(c[10].endsWith("would be more than 1.5 KiB (too many elements); ask for fewer positions or dimensions, "
                            "or a PNG"),
             c[10].right(300).constData());
    int compared = 0;
    for (const char* name : testLocales) {
        if (!useLocale(name)) {
            qWarning("locale %s is not installed (scripts/setup.sh generates it)", name);
            continue;
        }
        const QList<QByteArray> l = figures();
        useC();
        QCOMPARE(l.size(), c.size());
        for (qsizetype i = 0; i < c.size(); ++i) {
            if (l[i] == c[i])
                continue;
            const QList<QByteArray> a = c[i].split('\n'), b = l[i].split('\n');
            qsizetype at = 0;
            while (at < a.size() && at < b.size() && a[at] == b[at])
                ++at;
            QFAIL(qPrintable(
                QStringLiteral("%1, %2 line %3: C '%4' vs '%5'")
                    .arg(QLatin1String(name), QString::fromUtf8(c[i].left(c[i].indexOf(':'))))
                    .arg(at + 1)
                    .arg(QString::fromUtf8(a.value(at).left(200)), QString::fromUtf8(b.value(at).left(200)))));
        }
        ++compared;
    }
    if (compared == 0)
        QSKIP("none of de_DE.UTF-8, fr_FR.UTF-8, tr_TR.UTF-8 is installed; scripts/setup.sh generates them");
}

QTEST_MAIN(TestLocale)
#include "tst_locale.moc"
