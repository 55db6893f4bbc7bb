// SPDX-License-Identifier: MIT
#pragma once
/// @file mainwindow.h
/// The main window: scheme list and parameter panel (views come with the workbench).

#include <QMainWindow>

namespace poslab::ui {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
};

} // namespace poslab::ui
