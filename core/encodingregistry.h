// SPDX-License-Identifier: MIT
#pragma once
/// @file encodingregistry.h
/// The one ordered, explicit table of schemes. The GUI's scheme picker and parameter panel, the CLI's
/// `schemes`, `--scheme` and `--set` validation, and the generic registry test all read it.

#include "core/scheme.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace poslab::core {

/// Every scheme, in teaching order.
const std::vector<SchemeDescriptor>& schemes();

/// The scheme with this id, or nullptr.
const SchemeDescriptor* findScheme(std::string_view id);

/// The scheme with this id; throws InputError listing the known ids.
const SchemeDescriptor& schemeOrThrow(std::string_view id);

/// Settings as typed: (key, value text) pairs, in the order given.
using Overrides = std::vector<std::pair<std::string, std::string>>;
/// Settings as values: (key, value) pairs, in the order given. The window and the figures hand these to core, so a
/// number a slider set reaches the encoders as the double it is, never as text; text exists only where a person
/// types (the CLI's --set, files, fields) and is read once, by parseSettings().
using Settings = std::vector<std::pair<std::string, ParamValue>>;

/// One "KEY=VALUE" text (after `--set`, in a batch entry's "set" list) split at its first '='. Throws
/// InputError "OPTION 'TEXT' must be KEY=VALUE" when there is no key.
std::pair<std::string, std::string> splitSetting(std::string_view text, std::string_view option = "--set");

/// The one set-up resolver: `poslab compute`, `poslab export` (and its --animate sweeps), batch entries and
/// the window (typed values, sliders, saved sessions) all call it, so a setting is accepted or refused with
/// the same message everywhere. Starts from @p base (a complete ParamSet: the defaults, a saved state, the
/// window's current set), applies @c overrides in order (unknown key, type, range), moves every key not given
/// that held its default under the base's choices to its default under the resolved ones
/// (ParamSpec::defaultsWhen: rope_type=llama3 alone brings Llama 3.1's factor 8), then checks that every
/// key set applies under the resolved choices (so `factor=8 rope_type=yarn` and `rope_type=yarn factor=8`
/// are the same, and `factor=8` alone on plain RoPE is refused instead of silently ignored), then the whole
/// set for @c ctx (dimension parity, list lengths). Throws InputError with one line naming the problem.
ParamSet resolveParams(const SchemeDescriptor& scheme, const ParamSet& base, const Overrides& overrides,
                       const TableContext& ctx);
/// resolveParams() from the scheme's defaults.
ParamSet resolveParams(const SchemeDescriptor& scheme, const Overrides& overrides, const TableContext& ctx);

/// @p overrides read as values, in order: a key given twice, an unknown key, a text that is not a value of its
/// key's type and a value out of its range are refused (InputError, one line), in that order for each key.
Settings parseSettings(const SchemeDescriptor& scheme, const Overrides& overrides);
/// resolveParams() for values: the same checks and messages from the value's range on (a value of another type
/// than its key's is refused; an integer key takes a whole Real, as its text would be read).
ParamSet resolveParams(const SchemeDescriptor& scheme, const ParamSet& base, const Settings& settings,
                       const TableContext& ctx);

/// @c params with @c key set to @c value, as the GUI edits one knob: when a choice changes, every key that
/// still holds its default under the old choices moves to its default under the new ones (picking
/// rope_type llama3 brings factor 8; a factor the user set stays). Does not validate.
ParamSet withParamValue(const SchemeDescriptor& scheme, const ParamSet& params, const std::string& key,
                        ParamValue value);

/// Checks a complete, typed ParamSet (as the GUI holds it) plus the dimension rules. Throws InputError.
void validateParams(const SchemeDescriptor& scheme, const ParamSet& params, const TableContext& ctx);

/// Values that are accepted but unusual, one sentence each (e.g. a RoPE factor below 1, which Hugging Face
/// accepts with a logged warning). The CLI prints them on stderr, `compute` puts them in the result's
/// "warnings", and the GUI shows them as a note. Empty for most settings.
std::vector<std::string> schemeWarnings(const SchemeDescriptor& scheme, const ParamSet& params,
                                        const TableContext& ctx);

} // namespace poslab::core
