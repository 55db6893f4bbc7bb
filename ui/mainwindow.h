// SPDX-License-Identifier: MIT
#pragma once
/// @file mainwindow.h
/// The workbench window: scheme picker (left), parameter panel (right), the live views in a grid (centre),
/// a transport bar for the position cursor and animation. It owns the one WorkbenchState and the
/// Computation; views observe them and never call each other.

#include <QMainWindow>

#include <vector>

class QLabel;
class QProgressBar;
class QPushButton;
class QSlider;
class QSpinBox;
class QSplitter;
class QTimer;
class QElapsedTimer;

namespace poslab::ui {

class Computation;
class ParameterPanel;
class SchemePicker;
class View;
class ViewFrame;
class WorkbenchState;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    /// @p restoreLayout: read the remembered layout and theme from QSettings (off in tests and benchmarks).
    explicit MainWindow(QWidget* parent = nullptr, bool restoreLayout = true);
    ~MainWindow() override;

    WorkbenchState* state() const { return m_state; }
    Computation* computation() const { return m_computation; }
    ParameterPanel* parameterPanel() const { return m_panel; }
    SchemePicker* schemePicker() const { return m_picker; }
    const std::vector<View*>& views() const { return m_views; }
    /// The view with this export name, or nullptr.
    View* view(const QString& name) const;

    /// Shows only @p view in the grid (nullptr: all of them again).
    void setMaximisedView(View* view);
    View* maximisedView() const { return m_maximised; }

protected:
    void closeEvent(QCloseEvent* e) override;

private:
    void buildViews();
    void buildTransport();
    void buildActions();
    void applyTheme();
    void saveLayout() const;
    void restoreLayout();
    void tick();

    WorkbenchState* m_state;
    Computation* m_computation;
    ParameterPanel* m_panel = nullptr;
    SchemePicker* m_picker = nullptr;
    std::vector<View*> m_views;
    std::vector<ViewFrame*> m_frames;
    QSplitter* m_vertical = nullptr;
    QSplitter* m_top = nullptr;
    QSplitter* m_bottom = nullptr;
    View* m_maximised = nullptr;
    QSlider* m_cursorSlider = nullptr;
    QSpinBox* m_cursorSpin = nullptr;
    QTimer* m_animation = nullptr;
    QElapsedTimer* m_clock = nullptr;
    QLabel* m_message = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    QTimer* m_messageTimer = nullptr;
    double m_baseFontPt = 11.0;
};

} // namespace poslab::ui
