// SPDX-License-Identifier: MIT
#pragma once
/// @file errors.h
/// The two ways a request can fail. Both carry one line, written for the user, naming the problem.

#include <stdexcept>
#include <string>

namespace poslab::core {

/// The input is wrong: unknown scheme or key, value out of range, odd dimension, malformed position list.
/// The command line maps it to exit status 2.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// The input is well formed but the computation is refused, e.g. a table larger than the memory cap.
/// The command line maps it to exit status 1.
class RefusedError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace poslab::core
