// SPDX-License-Identifier: MIT
#pragma once
/// @file viewframe.h
/// The frame around one view in the workbench grid: a header with the view's title, its own controls and a
/// maximise button (double-clicking the header does the same).

#include <QFrame>

class QGridLayout;
class QLabel;
class QToolButton;

namespace poslab::ui {

class View;

class ViewFrame : public QFrame {
    Q_OBJECT
public:
    explicit ViewFrame(View* view, QWidget* parent = nullptr);
    View* view() const { return m_view; }
    void setMaximised(bool on);
    /// Hides the maximise button (a view of its own tab is always whole) and ignores double clicks.
    void setMaximiseVisible(bool on);
    /// At most this small a minimum, whatever the font scale (see minimumSizeHint()).
    static constexpr int minimumFrameWidth = 200;
    static constexpr int minimumFrameHeight = 140;
    QSize minimumSizeHint() const override;
    /// The size its view gets in a frame of @p frame pixels: less the borders and the header, whose controls
    /// share the title's line or wrap below it as resizeEvent() places them (the window's grid rule asks it
    /// before it shows a layout).
    QSize viewSizeAt(QSize frame) const;

signals:
    void maximiseRequested(poslab::ui::View* view, bool on);

protected:
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void changeEvent(QEvent* e) override;

private:
    View* m_view;
    QWidget* m_header;
    QToolButton* m_max;
    QLabel* m_title = nullptr;
    QWidget* m_controls = nullptr;
    QGridLayout* m_grid = nullptr;
    bool m_wrapped = false;
    void placeControls(bool wrapped);
    /// Each line edit of the controls at least as wide as its placeholder ("pairs: auto") at the current font,
    /// which grows with the font scale (a view's own maximum width is in pixels at scale 1).
    void fitEdits();
    /// True when the controls wrap below the title in a frame @p width wide.
    bool wrapsAt(int width) const;
    bool m_maximised = false;
    bool m_canMaximise = true;
};

} // namespace poslab::ui
