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

/// Starts from the defaults, applies @c overrides (key, text) in order, and checks: unknown keys, types,
/// ranges, keys set that do not apply under the resolved choices, and the scheme's own cross checks
/// for @c ctx (dimension parity, list lengths). Throws InputError with one line naming the problem.
ParamSet resolveParams(const SchemeDescriptor& scheme,
                       const std::vector<std::pair<std::string, std::string>>& overrides,
                       const TableContext& ctx);

/// The defaults of a scheme.
ParamSet defaultParams(const SchemeDescriptor& scheme);

/// Checks a complete, typed ParamSet (as the GUI holds it) plus the dimension rules. Throws InputError.
void validateParams(const SchemeDescriptor& scheme, const ParamSet& params, const TableContext& ctx);

/// Values that are accepted but unusual, one sentence each (e.g. a RoPE factor below 1, which Hugging Face
/// accepts with a logged warning). The CLI prints them on stderr, `compute` puts them in the result's
/// "warnings", and the GUI shows them as a note. Empty for most settings.
std::vector<std::string> schemeWarnings(const SchemeDescriptor& scheme, const ParamSet& params,
                                        const TableContext& ctx);

} // namespace poslab::core
