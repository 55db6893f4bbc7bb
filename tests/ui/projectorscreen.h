// SPDX-License-Identifier: MIT
#pragma once
/// @file projectorscreen.h
/// main() of the window tests that need a lecture hall's screen: one 1366 x 768 screen at 96 DPI (the offscreen
/// platform reads its screens from a JSON file), Qt's Fusion style, then the test object @p Test.
#include <QApplication>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

namespace poslab::tests {

template <typename Test> int runOnProjector(int argc, char** argv)
{
    QTemporaryDir dir;
    const QString config = dir.filePath(QStringLiteral("screen.json"));
    QFile f(config);
    if (!f.open(QIODevice::WriteOnly))
        return 1;
    f.write(R"({"screens": [{"name": "projector", "x": 0, "y": 0, "width": 1366, "height": 768, "logicalDpi": 96}]})");
    f.close();
    qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + QFile::encodeName(config));
    QApplication app(argc, argv);
    QApplication::setStyle(QStringLiteral("Fusion"));
    Test t;
    return QTest::qExec(&t, argc, argv);
}

} // namespace poslab::tests
