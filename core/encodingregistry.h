// SPDX-License-Identifier: MIT
#pragma once
/// @file encodingregistry.h
/// The one ordered, explicit table of schemes. The GUI's scheme picker and parameter panel, the CLI's
/// `schemes`, `--scheme` and `--set` validation, and the generic registry test all read it.

#include "core/scheme.h"

#include <optional>
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

/// The checks of validateParams() that read the context, in its order: the dimension's range and parity, the
/// sequence length's range, then the scheme's own ValidateFn (which may read @c ctx.positions and the sequence
/// length: learned's table rows, xPos's scale range). What a request covered by a CheckedParams still runs.
/// Throws InputError.
void checkContext(const SchemeDescriptor& scheme, const ParamSet& params, const TableContext& ctx);

/// A parameter set that validateParams() accepted for one scheme and one dimension, made only by checkParams()
/// (or resolveChecked()). The window validates its set-up once per change, keeps this token and hands it on with
/// every request (ComputeRequest::checked, AttentionRequest::checked, DecayRequest::checked): core then skips the
/// parameter checks of a request the token covers (covers(): same scheme, same dimension, the same resolved
/// parameters) and runs only checkContext() for the request's own context, so a request is accepted or refused
/// exactly as without the token, with the same message. Immutable: safe to share with worker threads.
///
/// It also carries the rotary spec (SchemeDescriptor::rotary) for the context it was checked in, so that the
/// figures of one refresh derive it once. A RotaryFn reads only the parameters, @c ctx.dim and
/// effectiveSeqLen(ctx) (dynamic NTK, LongRoPE and xPos's centre depend on the sequence length), so the spec serves
/// exactly the contexts of that dimension and that sequence length (specFor()), never another length.
class CheckedParams {
public:
    const std::string& scheme() const { return m_scheme; } ///< the scheme's id
    const ParamSet& params() const { return m_params; }    ///< complete, typed, accepted
    int dim() const { return m_dim; }                      ///< d the set was checked for
    /// effectiveSeqLen() of the context it was checked in: the sequence length of rotarySpec().
    Position seqLen() const { return m_seqLen; }
    /// The scheme's rotary spec for that context (dim, seqLen()); empty for a scheme that does not rotate, or when
    /// its rotary function refused (then every caller derives it and meets the same refusal).
    const std::optional<RotarySpec>& rotarySpec() const { return m_spec; }
    /// True when this token vouches for @p params of @p scheme at dimension @p dim.
    bool covers(const SchemeDescriptor& scheme, const ParamSet& params, int dim) const;
    /// rotarySpec() when it is the spec for @p ctx (same dimension, same effectiveSeqLen), else null.
    const RotarySpec* specFor(const TableContext& ctx) const;
    /// Equal scheme, parameters, dimension and sequence length (the spec follows from them).
    bool operator==(const CheckedParams& other) const;

private:
    friend CheckedParams checkParams(const SchemeDescriptor&, const ParamSet&, const TableContext&);
    CheckedParams() = default;
    std::string m_scheme;
    ParamSet m_params;
    int m_dim = 0;
    Position m_seqLen = 0;
    std::optional<RotarySpec> m_spec;
};

/// Runs validateParams() once (InputError with its messages) and returns the token of the accepted set, with the
/// rotary spec for @p ctx when the scheme rotates.
CheckedParams checkParams(const SchemeDescriptor& scheme, const ParamSet& params, const TableContext& ctx);
/// resolveParams() for values whose last step is validateParamsOnce(): where @p checked covers the resolved set
/// (ComputeRequest::checked), only the context is checked; the same result and the same refusals otherwise.
ParamSet resolveParams(const SchemeDescriptor& scheme, const ParamSet& base, const Settings& settings,
                       const TableContext& ctx, const CheckedParams* checked);
/// resolveParams() for values whose result is the token: the set resolved, then checkParams() (one validation).
CheckedParams resolveChecked(const SchemeDescriptor& scheme, const ParamSet& base, const Settings& settings,
                             const TableContext& ctx);
/// validateParams() unless @p checked covers (@p scheme, @p params, ctx.dim); then checkContext() alone. Null
/// @p checked: validateParams(), as every request without a token (the CLI's) has it.
void validateParamsOnce(const SchemeDescriptor& scheme, const ParamSet& params, const TableContext& ctx,
                        const CheckedParams* checked);
/// scheme.rotary(params, ctx), or a copy of @p checked's spec when @p checked covers (@p scheme, @p params, ctx.dim)
/// and its spec is the one for @p ctx (CheckedParams::specFor). Throws what the scheme's rotary function throws.
RotarySpec rotarySpecFor(const SchemeDescriptor& scheme, const ParamSet& params, const TableContext& ctx,
                         const CheckedParams* checked);

/// Values that are accepted but unusual, one sentence each (e.g. a RoPE factor below 1, which Hugging Face
/// accepts with a logged warning). The CLI prints them on stderr, `compute` puts them in the result's
/// "warnings", and the GUI shows them as a note. Empty for most settings.
std::vector<std::string> schemeWarnings(const SchemeDescriptor& scheme, const ParamSet& params,
                                        const TableContext& ctx);

} // namespace poslab::core
