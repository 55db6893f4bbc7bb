// SPDX-License-Identifier: MIT
// Fuzz target: the grid and sequence grammar of `poslab compute --grid HxW` and `--sequence text:N,image:TxHxW,...`
// (core/spatial.h), and the spatial schemes on what it accepts. The first line is the grid or sequence text; each
// further line is a `--set key=value` of the scheme, except "scheme=ID" (default: mrope for a sequence, rope_2d for
// a grid), "dim=N" (default 64) and "cls" (--cls). The text must either be refused with one line (InputError) or
// read back from its own canonical form (sequenceText / gridText) as the same value; small accepted inputs are then
// computed (position ids, angles, tables) under small limits: a refusal is one line, a result has the shape the
// header promises, finite values and, for a text-only sequence, the ids 0 .. L-1 on all three axes.
#include "core/compute.h"
#include "core/errors.h"
#include "core/spatial.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace core = poslab::core;

[[noreturn]] void fail(const char* what, const std::string& detail)
{
    std::fprintf(stderr, "%s: %s\n", what, detail.c_str());
    std::abort();
}

void checkMessage(const std::exception& e)
{
    const std::string m = e.what();
    if (m.empty() || m.find('\n') != std::string::npos)
        fail("a refusal that is not one line", m);
}

/// The results of the spatial schemes that matter here: shape, finite values, ids of text tokens.
void checkResult(const core::ComputeResult& r, std::int64_t tokens, bool cls, const core::TokenSequence* textOnly)
{
    std::size_t n = 1;
    for (std::size_t s : r.shape)
        n *= s;
    if (n != r.data.size() || r.shape.size() != 2)
        fail("a result whose shape does not match its data", r.quantity + " of " + r.scheme);
    const std::size_t rows = r.quantity == "position_ids" ? 3 : std::size_t(tokens + (cls ? 1 : 0));
    const std::size_t along = r.quantity == "position_ids" ? r.shape[1] : r.shape[0];
    if (r.shape[0] != rows || (r.quantity == "position_ids" && along != std::size_t(tokens)))
        fail("a result with the wrong number of rows", r.quantity + " of " + r.scheme);
    // Scores mark the keys a causal mask hides with NaN (spatialScores); nothing else may be NaN or infinite.
    const bool masks = r.quantity == "scores";
    for (double v : r.data)
        if (std::isinf(v) || (std::isnan(v) && !masks))
            fail("a non-finite value", r.quantity + " of " + r.scheme);
    if (r.quantity == "position_ids") {
        for (double v : r.data)
            if (v < 0 || v != std::floor(v))
                fail("a position id that is not a whole number >= 0", r.scheme);
        if (textOnly) // text tokens: t = h = w = the index (Qwen2-VL get_rope_index's text branch)
            for (std::size_t axis = 0; axis < 3; ++axis)
                for (std::size_t i = 0; i < along; ++i)
                    if (r.data[axis * along + i] != double(i))
                        fail("a text-only sequence whose ids are not 0 .. L-1", r.scheme);
    }
}

void computeAll(const core::SpatialSchemeDescriptor& scheme, core::ComputeRequest req, std::int64_t tokens,
                const core::TokenSequence* textOnly)
{
    core::Limits limits;
    limits.maxBytes = std::size_t(64) << 20;
    limits.maxWork = 2e7;
    for (core::Quantity q : scheme.quantities()) {
        if (q == core::Quantity::Scores && tokens > 256)
            continue; // tokens x tokens: bounded by the limits, but slow for a fuzzer
        req.quantity = q;
        if (q == core::Quantity::Rotate)
            req.vector.assign(std::size_t(std::max(0, req.context.dim)), 1.0);
        else
            req.vector.clear();
        try {
            checkResult(core::computeSpatial(req, scheme, limits), tokens, req.cls, textOnly);
        } catch (const core::InputError& e) {
            checkMessage(e);
        } catch (const core::RefusedError& e) {
            checkMessage(e);
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const std::size_t eol = input.find('\n');
    const std::string_view text = input.substr(0, eol);
    std::vector<std::string_view> lines;
    for (std::size_t at = eol; at != std::string_view::npos && at < input.size();) {
        const std::size_t next = input.find('\n', at + 1);
        lines.push_back(input.substr(at + 1, next == std::string_view::npos ? std::string_view::npos : next - at - 1));
        at = next;
    }

    std::optional<core::TokenSequence> sequence;
    std::optional<core::Grid> grid;
    try {
        sequence = core::parseSequence(text);
    } catch (const core::InputError& e) {
        checkMessage(e);
    }
    try {
        grid = core::parseGrid(text);
    } catch (const core::InputError& e) {
        checkMessage(e);
    }
    if (sequence && grid)
        fail("text read both as a sequence and as a grid", std::string(text));
    if (sequence) {
        if (sequence->segments.empty() || sequence->tokens() < 1 || sequence->tokens() > core::maxSpatialTokens)
            fail("an accepted sequence with no tokens or over the limit", std::string(text));
        const std::string canonical = core::sequenceText(*sequence);
        core::TokenSequence again;
        try {
            again = core::parseSequence(canonical);
        } catch (const core::InputError& e) {
            fail("the text of an accepted sequence that is refused", canonical + ": " + e.what());
        }
        if (!(again == *sequence) || core::sequenceText(again) != canonical)
            fail("a sequence that does not read back from its text", canonical);
    }
    if (grid) {
        if (grid->rows < 1 || grid->cols < 1 || grid->patches() > core::maxSpatialTokens)
            fail("an accepted grid with no patches or over the limit", std::string(text));
        const std::string canonical = core::gridText(*grid);
        if (!(core::parseGrid(canonical) == *grid))
            fail("a grid that does not read back from its text", canonical);
    }
    if (!sequence && !grid)
        return 0;

    core::ComputeRequest req;
    req.context.dim = 64;
    std::string schemeId = sequence ? "mrope" : "rope_2d";
    for (std::string_view line : lines) {
        const std::size_t eq = line.find('=');
        const std::string key(line.substr(0, eq));
        const std::string value(eq == std::string_view::npos ? std::string_view() : line.substr(eq + 1));
        if (key == "cls" && eq == std::string_view::npos) {
            req.cls = true;
        } else if (key == "scheme") {
            schemeId = value;
        } else if (key == "dim") {
            const long v = std::strtol(value.c_str(), nullptr, 10);
            if (v < 2 || v > 512)
                return 0;
            req.context.dim = int(v);
        } else if (key == "table_file" || key == "table_tensor") {
            return 0; // files are tst_readers' and fuzz_npy's; a fuzzer naming /dev/zero is not a finding
        } else if (eq != std::string_view::npos) {
            req.overrides.emplace_back(key, value);
        }
    }
    const core::SpatialSchemeDescriptor* scheme = core::findSpatialScheme(schemeId);
    if (!scheme)
        return 0;
    const std::int64_t tokens = sequence ? sequence->tokens() : grid->patches();
    if (tokens > 4096)
        return 0; // the limits bound larger ones; the fuzzer's time is better spent on the grammar
    if (sequence)
        req.sequence = *sequence;
    else
        req.grid = *grid;
    bool textOnly = sequence.has_value();
    if (sequence)
        for (const core::Segment& s : sequence->segments)
            textOnly = textOnly && s.kind == core::Segment::Kind::Text;
    computeAll(*scheme, req, tokens, textOnly ? &*sequence : nullptr);
    return 0;
}
