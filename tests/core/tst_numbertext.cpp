// SPDX-License-Identifier: MIT
// core::groupThousands: the one grouping of digits behind the figures' labels (ui/render/plotutils.cpp
// formatNumber) and the lessons' numbers (ui/lessons/claims.cpp); core::formatSignificant, the labels' rule for
// text that core writes (a scheme's note on a layer without rotation).
#include "core/numbertext.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace poslab;

class TestNumberText : public QObject {
    Q_OBJECT
private slots:
    void groupsFromTheRight_data()
    {
        // clang-format off
        QTest::addColumn<QString>("digits");
        QTest::addColumn<QString>("grouped");
        QTest::newRow("empty") << "" << "";
        QTest::newRow("one") << "7" << "7";
        QTest::newRow("three") << "999" << "999";
        QTest::newRow("four") << "4096" << "4,096";
        QTest::newRow("six") << "500000" << "500,000";
        QTest::newRow("seven") << "1048576" << "1,048,576";
        QTest::newRow("ten") << "1000000000" << "1,000,000,000";
        // clang-format on
    }
    void groupsFromTheRight()
    {
        QFETCH(QString, digits);
        QFETCH(QString, grouped);
        QCOMPARE(QString::fromStdString(core::groupThousands(digits.toStdString())), grouped);
    }
    void significantDigits_data()
    {
        // clang-format off
        QTest::addColumn<double>("value");
        QTest::addColumn<int>("significant");
        QTest::addColumn<QString>("text");
        QTest::newRow("integer grouped") << 8191.0 << 7 << "8,191";
        QTest::newRow("trailing zeros dropped") << -1234.5 << 6 << "-1,234.5";
        QTest::newRow("six digits") << 1.0 + 0.1 * std::log(2.0) << 6 << "1.06931"; // 1.0693147...
        QTest::newRow("rounds up a place") << 999999.7 << 6 << "1,000,000";
        QTest::newRow("zero") << 0.0 << 6 << "0";
        QTest::newRow("negative zero") << -0.0 << 6 << "0";
        QTest::newRow("small, no exponent yet") << 0.0015 << 3 << "0.0015";
        QTest::newRow("below 1e-3: exponent") << 2e-5 << 3 << "2e-5";
        QTest::newRow("from 1e7: exponent") << 1.5e7 << 6 << "1.5e7";
        QTest::newRow("from 1e7, enough digits") << 12345678.0 << 8 << "12345678";
        QTest::newRow("nan") << std::numeric_limits<double>::quiet_NaN() << 6 << "NaN";
        QTest::newRow("infinity") << -std::numeric_limits<double>::infinity() << 6 << "-\u221e";
        // clang-format on
    }
    void significantDigits()
    {
        QFETCH(double, value);
        QFETCH(int, significant);
        QFETCH(QString, text);
        QCOMPARE(QString::fromStdString(core::formatSignificant(value, significant)), text);
    }
};

QTEST_APPLESS_MAIN(TestNumberText)
#include "tst_numbertext.moc"
