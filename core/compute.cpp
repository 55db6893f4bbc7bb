// SPDX-License-Identifier: MIT
#include "core/compute.h"

#include "core/encodingregistry.h"
#include "core/errors.h"
#include "core/rotary.h"

#include <cmath>
#include <cstdio>

namespace poslab::core {

std::string formatBytes(double bytes)
{
    const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 5) {
        bytes /= 1024.0;
        ++u;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
    return buf;
}

void checkSize(double bytes, const Limits& limits, const std::string& what)
{
    if (bytes > double(limits.maxBytes))
        throw RefusedError(what + " would take " + formatBytes(bytes) + ", more than the memory cap of "
                           + formatBytes(double(limits.maxBytes))
                           + "; ask for fewer positions or dimensions, or raise the cap (--max-memory)");
}

namespace {

std::string listQuantities(const SchemeDescriptor& s)
{
    std::string names;
    for (Quantity q : s.quantities())
        names += (names.empty() ? "" : ", ") + std::string(quantityName(q));
    return names.empty() ? std::string("none yet") : names;
}

// A float32 table is computed, then copied into the result's doubles: both count against the cap.
void checkTable(std::size_t rows, std::size_t cols, const Limits& limits)
{
    checkSize(double(rows) * double(cols) * (sizeof(float) + sizeof(double)), limits,
              "a " + std::to_string(rows) + " x " + std::to_string(cols) + " table");
}

void takeTable(ComputeResult& r, const MatrixF& m)
{
    r.shape = {std::size_t(m.rows()), std::size_t(m.cols())};
    r.data.assign(m.data(), m.data() + m.size());
    r.float32 = true;
}

} // namespace

ComputeResult compute(const ComputeRequest& request, const Limits& limits)
{
    const SchemeDescriptor& scheme = schemeOrThrow(request.scheme);
    ComputeResult result;
    result.quantity = std::string(quantityName(request.quantity));
    result.scheme = scheme.id;
    if (!scheme.has(request.quantity))
        throw InputError("scheme " + scheme.id + " has no quantity '" + result.quantity + "'; it has: "
                         + listQuantities(scheme));
    const TableContext& ctx = request.context;
    result.params = resolveParams(scheme, request.overrides, ctx);
    const std::size_t rows = ctx.positions.size();

    switch (request.quantity) {
    case Quantity::Encoding:
        checkTable(rows, std::size_t(ctx.dim), limits);
        takeTable(result, scheme.encoding(result.params, ctx));
        result.axes = {"position", "dimension"};
        return result;
    case Quantity::Frequencies: {
        std::vector<double> f;
        if (scheme.rotary) {
            const RotarySpec spec = scheme.rotary(result.params, ctx);
            f = spec.invFreq;
            result.scalars.push_back({"attention_factor", spec.attentionFactor});
            result.scalars.push_back({"rotary_dim", double(spec.rotaryDim)});
            for (const auto& s : spec.scalars)
                result.scalars.push_back(s);
        } else {
            f = scheme.frequencies(result.params, ctx);
        }
        result.shape = {f.size()};
        result.data = std::move(f);
        result.axes = {"pair"};
        return result;
    }
    case Quantity::Angles:
    case Quantity::Cos:
    case Quantity::Sin: {
        const RotarySpec spec = scheme.rotary(result.params, ctx);
        checkTable(rows, spec.invFreq.size(), limits);
        if (request.quantity == Quantity::Angles)
            takeTable(result, rotaryAngles(spec, ctx.positions));
        else if (request.quantity == Quantity::Cos)
            takeTable(result, rotaryCos(spec, ctx.positions));
        else
            takeTable(result, rotarySin(spec, ctx.positions));
        result.scalars.push_back({"attention_factor", spec.attentionFactor});
        result.axes = {"position", "pair"};
        return result;
    }
    case Quantity::Rotate: {
        if (request.vector.empty())
            throw InputError("rotate needs --vector with " + std::to_string(ctx.dim) + " comma-separated values");
        const RotarySpec spec = scheme.rotary(result.params, ctx);
        checkSize(double(rows) * double(ctx.dim) * 2 * sizeof(double), limits,
                  "rotating a vector at " + std::to_string(rows) + " positions");
        const MatrixD m = rotateVector(spec, ctx.positions, request.vector);
        result.shape = {std::size_t(m.rows()), std::size_t(m.cols())};
        result.data.assign(m.data(), m.data() + m.size());
        result.scalars.push_back({"attention_factor", spec.attentionFactor});
        result.axes = {"position", "dimension"};
        return result;
    }
    }
    throw InputError("unsupported quantity");
}

} // namespace poslab::core
