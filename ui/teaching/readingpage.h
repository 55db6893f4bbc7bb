// SPDX-License-Identifier: MIT
#pragma once
/// @file readingpage.h
/// What the story page and the derivation page share as windows of their own to read in: one scroll area for the
/// text, and the keys that close them.

class QBoxLayout;
class QScrollArea;
class QString;
class QWidget;

namespace poslab::ui {

/// Adds to @p layout (stretch 1) the scroll area that holds @p page's text: it resizes its widget to the width,
/// never scrolls sideways and draws no frame. Named @p objectName; owned by @p page.
QScrollArea* addReadingScroll(QWidget* page, QBoxLayout* layout, const QString& objectName);

/// Esc, Ctrl+W and the platform's Close keys close @p page while it is the active window. Each key gets one
/// shortcut: where the platform's Close is Ctrl+W already, a second one on it would be ambiguous and neither fire.
void addCloseKeys(QWidget* page);

} // namespace poslab::ui
