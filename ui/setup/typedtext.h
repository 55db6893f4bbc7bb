// SPDX-License-Identifier: MIT
#pragma once
/// @file typedtext.h
/// Numbers and parameter values as text a person types or reads: the parameter panel's fields, the lesson
/// browser's "Try it" values, the cursor's token count. Qt Core only.

#include "core/params.h"

#include <QString>

namespace poslab::ui {

/// Numbers may use an exponent from this magnitude up, where it is short ("no exponent below 1e7").
inline constexpr double exponentFrom = 1e7;

/// A number as a person would type it into a field: "500000", "0.02", "1e9", "16777216" (reads back exactly).
/// Below 1e-4 and from exponentFrom up an exponent is used where its mantissa has at most 3 digits.
QString typedText(double v);
/// A parameter value as typedText() writes numbers: lists comma-separated, words and file names as they are.
QString typedText(const core::ParamValue& v);
/// A number to read: digits grouped by thousands ("131,072", "16,777,216"), an exponent under the same rule as
/// typedText() ("1e7").
QString displayText(double v);
/// "1 token", "1,024 tokens".
QString tokensText(double v);

} // namespace poslab::ui
