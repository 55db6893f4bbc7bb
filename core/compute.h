// SPDX-License-Identifier: MIT
#pragma once
/// @file compute.h
/// The one compute service behind `poslab compute`, the GUI and the export path: a request names a
/// quantity, a scheme and its parameters; the result is a flat row-major array with its shape.

#include "core/scheme.h"

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace poslab::core {

/// Memory cap for one result; requests above it are refused before anything is allocated.
struct Limits {
    std::size_t maxBytes = std::size_t(2) << 30; ///< 2 GiB
};

/// Formats a byte count for messages ("3.0 GiB", "512.0 MiB").
std::string formatBytes(double bytes);

/// Throws RefusedError when @c bytes exceed the cap; @c what describes the request ("a 65536 x 512
/// float32 table").
void checkSize(double bytes, const Limits& limits, const std::string& what);

struct ComputeRequest {
    Quantity quantity = Quantity::Encoding;
    std::string scheme;
    std::vector<std::pair<std::string, std::string>> overrides; ///< (key, text) from --set
    TableContext context;                                       ///< dim, positions, seqLen
    std::vector<double> vector;                                 ///< for Quantity::Rotate
};

struct ComputeResult {
    std::string quantity;
    std::string scheme;
    ParamSet params;                   ///< every parameter, defaults resolved
    std::vector<std::size_t> shape;    ///< e.g. {positions, dim}
    std::vector<double> data;          ///< flat, row-major
    bool float32 = false;              ///< computed in float32 (writers print 9 significant digits, npy <f4)
    std::vector<std::pair<std::string, double>> scalars; ///< e.g. attention_factor
    std::vector<std::string> axes;     ///< axis names, e.g. {"position", "dimension"}
};

/// Runs a request. Throws InputError (bad input) or RefusedError (over the cap).
ComputeResult compute(const ComputeRequest& request, const Limits& limits = {});

} // namespace poslab::core
