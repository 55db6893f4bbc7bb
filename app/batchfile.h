// SPDX-License-Identifier: MIT
#pragma once
/// @file batchfile.h
/// The reading half of `poslab export --batch FILE.json`: the file's figures with the defaults merged in,
/// and one entry as command-line arguments. No drawing here (exportcli.cpp draws), so the fuzz target
/// tests/fuzz/fuzz_batch.cpp reaches every step that reads the file.
#include <QJsonArray>
#include <QJsonObject>
#include <QByteArray>

#include <string>
#include <vector>

namespace poslab::app {

/// A batch file as read: its figures (each an object, or not, as written) and the defaults every entry starts
/// from.
struct BatchFile {
    QJsonArray figures;
    QJsonObject defaults;
    /// "allow_outside": true at the top level: outputs may leave the batch file's folder.
    bool allowOutside = false;
};

/// Parses the bytes of batch file @p file: a JSON list of figures, or {"defaults": {...}, "figures": [...]}.
/// Throws core::InputError naming the file (not JSON, no "figures", no figures).
BatchFile parseBatchFile(const QByteArray& bytes, const std::string& file);

/// Entry @p index of @p batch: the defaults with the entry's own keys over them (an entry that is not an
/// object contributes nothing; runBatch refuses it by name).
QJsonObject batchEntry(const BatchFile& batch, qsizetype index);

/// Empty when output @p output (relative to the deck's folder @p deckFolder, or absolute) lies inside that
/// folder after every symbolic link on the way is resolved (a linked folder "figs -> ../elsewhere" and a linked
/// file "x.png -> ~/.bashrc" both count where they lead); else the message naming where it resolves. The
/// folder itself is not outside (the writer then says it is a folder).
std::string outsideDeck(const std::string& deckFolder, const std::string& output);

/// A batch entry's JSON object as command-line arguments ("font_scale": 2 -> --font-scale 2). Throws
/// core::InputError for a value of the wrong type.
std::vector<std::string> entryArguments(const QJsonObject& entry);

} // namespace poslab::app
