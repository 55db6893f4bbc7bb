// SPDX-License-Identifier: MIT
#include "ui/render/theme.h"

#include <QGuiApplication>

namespace poslab::ui {

Theme Theme::light()
{
    Theme t;
    t.kind = ThemeKind::Light;
    t.background = QColor(0xfb, 0xfb, 0xfa);
    t.panel = QColor(0xff, 0xff, 0xff);
    t.foreground = QColor(0x1d, 0x1f, 0x24);
    t.muted = QColor(0x5f, 0x66, 0x70);
    t.grid = QColor(0xdc, 0xdf, 0xe4);
    t.accent = QColor(0xd9, 0x5f, 0x02);  // Okabe-Ito-like orange: query
    t.accent2 = QColor(0x1b, 0x6f, 0xb5); // blue: key
    t.accent3 = QColor(0x00, 0x8a, 0x6e); // bluish green: bounds
    t.cursor = QColor(0xe6, 0x00, 0x7a);
    return t;
}

Theme Theme::dark()
{
    Theme t;
    t.kind = ThemeKind::Dark;
    t.background = QColor(0x1b, 0x1d, 0x22);
    t.panel = QColor(0x23, 0x26, 0x2d);
    t.foreground = QColor(0xec, 0xee, 0xf1);
    t.muted = QColor(0xa4, 0xab, 0xb6);
    t.grid = QColor(0x3a, 0x3f, 0x48);
    t.accent = QColor(0xff, 0x9f, 0x40);
    t.accent2 = QColor(0x5a, 0xb4, 0xff);
    t.accent3 = QColor(0x3c, 0xd0, 0xa8);
    t.cursor = QColor(0xff, 0x4f, 0xb0);
    return t;
}

Theme Theme::of(ThemeKind kind, double fontScale)
{
    Theme t = kind == ThemeKind::Dark ? dark() : light();
    t.fontScale = fontScale;
    return t;
}

QFont Theme::font(double pt, bool bold) const
{
    QFont f = QGuiApplication::font();
    f.setPointSizeF(pt * fontScale);
    f.setBold(bold);
    return f;
}

} // namespace poslab::ui
