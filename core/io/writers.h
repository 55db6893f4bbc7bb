// SPDX-License-Identifier: MIT
#pragma once
/// @file writers.h
/// Serialisation of ComputeResult and the scheme table: JSON, CSV, and NumPy .npy (format 1.0).

#include "core/compute.h"

#include <ostream>
#include <string>

namespace poslab::core {

enum class OutputFormat { Json, Csv, Npy };
/// Throws InputError for an unknown name.
OutputFormat parseOutputFormat(std::string_view name);

/// {"quantity", "scheme", "params", "shape", "axes", ["columns"], ["column_labels"], ["warnings"], "dtype",
/// scalars..., labels..., "data"}. NaN (a masked entry, or a value that does not exist) is written as null.
void writeJson(std::ostream& out, const ComputeResult& result);
/// One line per row of the last axis (leading axes flattened); NaN (masked) as an empty field. When the result
/// has column labels, a header row of them comes first (quoted as RFC 4180 where needed).
void writeCsv(std::ostream& out, const ComputeResult& result);
/// NumPy .npy version 1.0, little-endian <f4 or <f8, C order; masked entries are NaN.
void writeNpy(std::ostream& out, const ComputeResult& result);
void write(std::ostream& out, const ComputeResult& result, OutputFormat format);

/// Every scheme as a JSON array (ids, names, family, axes, citation, formula, parameters, quantities).
void writeSchemesJson(std::ostream& out);
/// Human-readable listing of every scheme.
void writeSchemesText(std::ostream& out);

/// JSON string literal with escapes.
std::string jsonString(std::string_view s);
/// Shortest text that reads back to the same double (or float when @c asFloat).
std::string formatNumber(double v, bool asFloat = false);

} // namespace poslab::core
