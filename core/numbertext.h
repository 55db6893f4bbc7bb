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

} // namespace poslab::core
