// SPDX-License-Identifier: MIT
#pragma once
/// @file presets.h
/// Real models' positional settings, shipped as data in resources/presets/ (one JSON file per model, every
/// number with its source, compiled in under :/presets/), and the state object a preset or a model's
/// config.json turns into. Qt Core only: the CLI, export and the window use the same service.
///
/// A preset file:
///   {"id": "llama-3.1-8b", "name": "Llama 3.1 8B", "hf_id": "meta-llama/Llama-3.1-8B", "verified": "V-copy",
///    "source": "...", "scheme": "rope",
///    "params": {"rope_theta": {"value": "500000", "source": "..."}, ...},   values as typed after --set
///    "head_dim": {"value": 128, "source": "..."}, "heads": {...}, "layers": {...},
///    "model_dim": {...},       a table's width (the model dimension its vectors are added at; ViT 768), which
///                              the state's "dim" takes instead of head_dim
///    "grid": {"value": "14x14", "source": "..."},  grid schemes: the patch grid the model was trained at
///    "trained_length": {...},  the context the positions were trained for (original_max_position_embeddings
///                              where the model extends it, else its training length)
///    "context_length": {...},  the context the model's config declares (max_position_embeddings)
///    "notes": "...", "unverified": ["rope_theta", "trained_length", ...]}
/// Every field but id, name, source and scheme may be absent (the model does not fix it, or the sources do
/// not give it). "unverified" names the params keys and fields that PRESETS.md marks unverified.
///
/// The state object (read by WorkbenchState::fromJson, `poslab compute --preset`, `poslab export --preset`):
///   {"scheme": ID, "params": {KEY: "text", ...}, "dim": model_dim or head_dim, "view": {"heads": n},
///    "grid": "HxW" (grid schemes: compute's default --grid),
///    "positions": rows (learned tables only: the views show no position past the table),
///    "model": {"id", "name", "source", "trained_length", "context_length", "layers", "unverified", "notes"}}
/// with what a model does not fix left out.

#include "core/encodingregistry.h"
#include "core/spatial.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>
#include <string>

namespace poslab::ui {

/// Every shipped preset, sorted by id (read once from :/presets/).
const QList<QJsonObject>& presets();

/// Problems met while reading the shipped files (malformed JSON, an id that differs from the file name);
/// empty when all is well. The tests assert it is empty.
const QStringList& presetLoadProblems();

/// The ids of every preset, sorted.
QStringList presetIds();

/// The preset with this id, compared case-insensitively; nullopt when there is none.
std::optional<QJsonObject> findPreset(const QString& id);

/// The preset with this id (case-insensitive). Throws core::InputError "unknown preset 'X'; presets: a, b, ..."
QJsonObject presetOrThrow(const std::string& id);

/// Checks a preset against the registry: the required fields, the scheme exists (1-D or spatial), every params
/// key exists and applies, the values pass core::resolveParams (core::resolveSpatialParams for a spatial scheme,
/// at its grid) at the preset's dimension, a "grid" only on a grid scheme and in --grid's spelling, every number has a
/// positive integer value and a source, "unverified" names only keys the preset sets. Returns one line per
/// problem; empty when the preset is valid.
QStringList validatePreset(const QJsonObject& preset);

/// The state object of a preset (see the file comment).
QJsonObject presetState(const QJsonObject& preset);

/// A state object (a preset's or a config.json's) in the words of the command line.
struct StateSetup {
    std::string scheme;
    core::Overrides params; ///< the state's params, in key order
    std::optional<int> dim;
    std::optional<int> heads;
    std::optional<core::Grid> grid; ///< the model's patch grid (grid schemes), compute's default --grid
    QJsonObject model;              ///< the state's "model", or empty
};
/// Reads the fields of @p state that the command line uses. Throws core::InputError when "scheme" is missing
/// or a field has the wrong type.
StateSetup stateSetup(const QJsonObject& state);

/// Where a model's state comes from on a command line: `--preset NAME` or `--config FILE` (at most one).
/// Returns the state object, or nullopt when neither is given. Throws core::InputError naming the problem
/// (unknown preset, unreadable or malformed file, both given). @p base resolves a relative FILE (a batch file's
/// folder); empty: the working directory. @p notices, when given, receives one line per positional key of a
/// config.json that PosLab could not map ("FILE: sliding_window: 4096: sliding-window attention is not
/// modelled"), for the command line to print as warnings.
std::optional<QJsonObject> modelState(const std::optional<std::string>& preset,
                                      const std::optional<std::string>& configFile, const QString& base = {},
                                      QStringList* notices = nullptr);

/// Merges a model's setup with what the command line says explicitly: the scheme must agree (a different
/// --scheme is refused rather than silently mixing a model's keys into another scheme), an explicit --set
/// replaces the model's value of its key, and --dim and --heads replace the model's. Throws core::InputError.
void applyModelSetup(const StateSetup& model, std::string& scheme, bool schemeGiven, core::Overrides& overrides);

/// `poslab presets`: one block per preset (id, name, scheme, key settings, unverified keys).
std::string presetsText();
/// `poslab presets --config FILE [--json]`: what a config.json maps to: the state, the keys used, the
/// positional keys not mapped (with why) and the keys ignored. Throws core::InputError as readModelConfig.
std::string modelConfigReport(const QString& path, bool json);
/// `poslab presets --json`: {"presets": [{"id", "name", "hf_id", "scheme", "state": {...}, "preset": {the file}}]}.
std::string presetsJson();

} // namespace poslab::ui
