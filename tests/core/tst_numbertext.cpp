// SPDX-License-Identifier: MIT
// core::groupThousands: the one grouping of digits behind the figures' labels (ui/render/plotutils.cpp
// formatNumber) and the lessons' numbers (ui/lessons/claims.cpp).
#include "core/numbertext.h"

#include <QTest>

using namespace poslab;

class TestNumberText : public QObject {
    Q_OBJECT
private slots:
    void groupsFromTheRight_data()
    {
        QTest::addColumn<QString>("digits");
        QTest::addColumn<QString>("grouped");
        QTest::newRow("empty") << "" << "";
        QTest::newRow("one") << "7" << "7";
        QTest::newRow("three") << "999" << "999";
        QTest::newRow("four") << "4096" << "4,096";
        QTest::newRow("six") << "500000" << "500,000";
        QTest::newRow("seven") << "1048576" << "1,048,576";
        QTest::newRow("ten") << "1000000000" << "1,000,000,000";
    }
    void groupsFromTheRight()
    {
        QFETCH(QString, digits);
        QFETCH(QString, grouped);
        QCOMPARE(QString::fromStdString(core::groupThousands(digits.toStdString())), grouped);
    }
};

QTEST_APPLESS_MAIN(TestNumberText)
#include "tst_numbertext.moc"
