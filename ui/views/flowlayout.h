// SPDX-License-Identifier: MIT
#pragma once
/// @file flowlayout.h
/// A layout that places its items left to right and wraps onto the next line when the width runs out (the
/// flow layout of Qt's layouts example). Its height depends on its width (heightForWidth), its minimum width
/// is its widest item, and its size hint is all items on one line. Hidden items take no room. Used where a
/// row of buttons must stay inside a narrow panel at a large font scale: the scheme picker, view headers.

#include <QLayout>

#include <vector>

namespace poslab::ui {

class FlowLayout : public QLayout {
public:
    explicit FlowLayout(QWidget* parent = nullptr, int spacing = 3);
    ~FlowLayout() override;

    void addItem(QLayoutItem* item) override;
    int count() const override;
    QLayoutItem* itemAt(int i) const override;
    QLayoutItem* takeAt(int i) override;
    Qt::Orientations expandingDirections() const override;
    bool hasHeightForWidth() const override;
    /// The height of the lines at @p width (contents margins included).
    int heightForWidth(int width) const override;
    void setGeometry(const QRect& rect) override;
    /// Every item on one line.
    QSize sizeHint() const override;
    /// The widest item (the layout can always wrap down to one item per line).
    QSize minimumSize() const override;

    /// Moves the widgets (and spacing) of @p from, in order, into a new FlowLayout on @p widget, which must
    /// be the widget @p from lays out; @p from is deleted. Returns the new layout.
    static FlowLayout* replace(QWidget* widget);

private:
    /// Lays the items out in @p rect (or only measures, when @p apply is false); returns the height used.
    int place(const QRect& rect, bool apply) const;
    std::vector<QLayoutItem*> m_items;
};

} // namespace poslab::ui
