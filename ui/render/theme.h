// SPDX-License-Identifier: MIT
#pragma once
/// @file theme.h
/// Colours and font sizes every view draws with, so that a view renders the same on screen and in an
/// export. Light for print and bright rooms, dark for projectors in dim lecture halls.

#include <QColor>
#include <QFont>
#include <QString>

namespace poslab::ui {

enum class ThemeKind { Light, Dark };

struct Theme {
    ThemeKind kind = ThemeKind::Light;
    QColor background;      ///< view background
    QColor panel;           ///< plot area inside a view
    QColor foreground;      ///< text and axes
    QColor muted;           ///< secondary text, grid
    QColor grid;            ///< faint lines
    QColor accent;          ///< the query / first series / cursor
    QColor accent2;         ///< the key / second series
    QColor accent3;         ///< third series (bounds)
    QColor cursor;          ///< highlighted cursor row
    double fontScale = 1.0; ///< lecture mode multiplies every font
    /// A heading that replaces the figure's own title in the view's header (poslab export --title); empty: the
    /// view's own ("RoPE · YaRN ×8, trained 4096").
    QString heading;

    static Theme light();
    static Theme dark();
    static Theme of(ThemeKind kind, double fontScale = 1.0);

    /// A font of @c pt points times fontScale (the application's family).
    QFont font(double pt, bool bold = false) const;
};

} // namespace poslab::ui
