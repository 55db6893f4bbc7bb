// SPDX-License-Identifier: MIT
#include "ui/mainwindow.h"

namespace poslab::ui {

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
{
    setWindowTitle(QStringLiteral("PosLab"));
}

} // namespace poslab::ui
