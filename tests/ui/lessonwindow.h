// SPDX-License-Identifier: MIT
#pragma once
/// @file lessonwindow.h
/// The set-up the lesson tests share (tst_lessonbrowser, tst_classroom, tst_derivations): settings of their own, and
/// the main window on a 1366 x 768 screen with the lesson browser open.
#include "ui/window/mainwindow.h"

#include <QApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

namespace poslab::tests {

/// Settings and standard paths of the test alone: QSettings under @p dir, Qt's test-mode paths, application
/// @p name, so that no run reads a lecturer's remembered state or leaves its own.
inline void useOwnSettings(const QTemporaryDir& dir, const QString& name)
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir.path());
    QApplication::setOrganizationName(QStringLiteral("PosLabTest"));
    QApplication::setApplicationName(name);
}

/// Shows @p w at 1366 x 768 with its lesson browser open; false when the window was not exposed.
inline bool showWithLessons(ui::MainWindow& w)
{
    w.resize(1366, 768);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w))
        return false;
    w.showLessons();
    return w.lessonBrowser() != nullptr;
}

} // namespace poslab::tests
