// SPDX-License-Identifier: MIT
#pragma once
/// @file numbertext.h
/// Numbers as a person writes them, shared by the figures' labels and the lessons' claims.

#include <string>
#include <string_view>

namespace poslab::core {

/// "1234567" -> "1,234,567": commas between groups of three, counted from the right. @p digits is the
/// integer part only, without sign.
std::string groupThousands(std::string_view digits);

/// @p v with @p significant significant digits (at least 1) as the figures' labels write it: trailing zeros
/// dropped, thousands grouped ("8,191", "1.03466"), an exponent without '+' or leading zeros from 1e7 up and
/// below 1e-3 ("1.5e7", "2e-5"); "NaN", "\u221e" and "-\u221e" (UTF-8) for the non-finite.
std::string formatSignificant(double v, int significant);

} // namespace poslab::core
