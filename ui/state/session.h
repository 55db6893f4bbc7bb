// SPDX-License-Identifier: MIT
#pragma once
/// @file session.h
/// Sessions and share strings: the workbench state (WorkbenchState::toJson) as a file, as a short string, and
/// as a poslab: link. The window's File menu, Edit > Copy/Paste state, `poslab --state`, `poslab FILE.poslab`,
/// `poslab export --state` and batch entries all read states through readStateSource().
///
/// A session file (.poslab) is the state object with two more keys: "format": "poslab-session" and "layout"
/// (the window's maximised view and side panels). Keys a later PosLab adds are kept when an older one saves the
/// file again (mergeSession). A share string is "PL2." followed by the state's non-default part as compact
/// JSON, zlib-compressed and base64url-encoded; its link form puts "poslab:" in front.

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace poslab::ui {

class WorkbenchState;

inline constexpr const char* sessionFormat = "poslab-session";
inline constexpr const char* sessionExtension = "poslab";
/// The largest session or state file read (a state is a few kilobytes).
inline constexpr qint64 maxStateFileBytes = qint64(4) << 20;
/// The largest decoded share string.
inline constexpr qint64 maxShareBytes = qint64(1) << 20;

/// The state of @p state as a share string: "PL2.eJyr...". A non-empty @p layout (the window's part of a session,
/// MainWindow::layoutJson: the tab or view shown alone, the side panels) travels with it under "layout", so
/// that a link opens on the tab it was copied from.
QString shareString(const WorkbenchState& state, const QJsonObject& layout = {});
/// The link form: "poslab:PL2.eJyr...".
QString shareLink(const WorkbenchState& state, const QJsonObject& layout = {});
/// True when @p text is a share string or a poslab: link (surrounding spaces allowed).
bool isShareText(const QString& text);
/// Decodes a share string or link into a state object. Returns an empty string or one line saying what is wrong.
QString decodeShareText(const QString& text, QJsonObject* state);

/// Reads a state from what a person gives: a share string, a poslab: link, inline JSON ("{...}"), or the path
/// of a session or state file (relative to @p baseDir when not absolute). Returns an empty string or one line
/// naming the source and the problem. @p label receives a short name of the source for messages.
QString readStateSource(const QString& input, const QString& baseDir, QJsonObject* state, QString* label = nullptr);

/// The table files @p state names: every non-empty "table_file" parameter in it (set-up A's "params", B's under
/// "compare" -> "state", their "spatial" set-ups), in document order, each once. A state from a link or a file
/// can name any file on this computer; the window reads these only once the user agrees (SessionController).
QStringList tableFilesNamed(const QJsonObject& state);

/// Reads a session or state file: a JSON object of at most maxStateFileBytes. Returns an empty string or one
/// line naming the file and the problem.
QString readSessionFile(const QString& path, QJsonObject* json);

/// The session to write: @p kept (the file as it was opened, so unknown keys survive) updated with @p state
/// (WorkbenchState::toJson) and @p layout. Known keys are replaced ("params" and "model" as a whole, so that
/// no key of another scheme lingers); "view" and "layout" are merged key by key.
QJsonObject mergeSession(const QJsonObject& kept, const QJsonObject& state, const QJsonObject& layout);

/// Writes @p session to @p path atomically (core::writeOutputFile: a failure leaves the old file; a link, a
/// device or a read-only file is refused, as by every writer). Returns an empty string or one line naming the
/// file and the problem.
QString writeSessionFile(const QString& path, const QJsonObject& session);

} // namespace poslab::ui
