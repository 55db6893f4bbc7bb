// SPDX-License-Identifier: MIT
// A text parameter in the parameter panel (the learned scheme's table_file): a line edit that sets the value
// when editing finishes; the random table's knobs hide while a file is in force; a file that cannot be read
// leaves the state as it was and says why under the field. The .npy file is written from numpy.lib.format's
// description (tests/tablefiles.h).
#include "tests/tablefiles.h"
#include "ui/window/parameterpanel.h"
#include "ui/state/workbenchstate.h"

#include <QLabel>
#include <QLineEdit>
#include <QTemporaryDir>
#include <QTest>

using namespace poslab;
using namespace poslab::ui;

class TestParameterText : public QObject {
    Q_OBJECT
private slots:
    void tableFileIsSetWhenEditingFinishes();
};

void TestParameterText::tableFileIsSetWhenEditingFinishes()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("wpe.npy"));
    test::writeFile(path.toStdString(),
                    test::npy(test::npyDict("<f4", "(4, 2)"), test::f32Bytes({1, 2, 3, 4, 5, 6, 7, 8})));
    WorkbenchState st;
    QCOMPARE(st.setScheme(QStringLiteral("learned")), QString());
    QCOMPARE(st.setPositionCount(4), QString());
    QCOMPARE(st.setDim(2), QString());
    ParameterPanel panel(&st);
    auto* edit = panel.findChild<QLineEdit*>(QStringLiteral("edit_table_file"));
    auto* message = panel.findChild<QLabel*>(QStringLiteral("message_table_file"));
    auto* seedRow = panel.findChild<QWidget*>(QStringLiteral("row_seed"));
    QVERIFY(edit && message && seedRow);
    QVERIFY(edit->text().isEmpty());
    QVERIFY(!seedRow->isHidden());

    // Typing alone changes nothing; finishing the edit sets the value.
    edit->setText(path);
    edit->setModified(true);
    QVERIFY(st.params().text("table_file").empty());
    emit edit->editingFinished();
    QCOMPARE(QString::fromStdString(st.params().text("table_file")), path);
    QVERIFY(message->isHidden());
    QVERIFY(seedRow->isHidden()); // seed, init_std and max_position_embeddings apply only without a file

    // A file that does not exist: refused with its name under the field; the state keeps the good file.
    const QString missing = dir.filePath(QStringLiteral("none.npy"));
    edit->setText(missing);
    edit->setModified(true);
    emit edit->editingFinished();
    QCOMPARE(QString::fromStdString(st.params().text("table_file")), path);
    QVERIFY(!message->isHidden());
    QVERIFY2(message->text().contains(missing + QStringLiteral(": cannot open")), qPrintable(message->text()));

    // Cleared: back to the seeded table.
    edit->setText(QString());
    edit->setModified(true);
    emit edit->editingFinished();
    QVERIFY(st.params().text("table_file").empty());
    QVERIFY(!seedRow->isHidden());
}

QTEST_MAIN(TestParameterText)
#include "tst_parametertext.moc"
