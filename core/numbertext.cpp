// SPDX-License-Identifier: MIT
#include "core/numbertext.h"

namespace poslab::core {

std::string groupThousands(std::string_view digits)
{
    std::string out;
    const std::size_t n = digits.size();
    out.reserve(n + n / 3);
    for (std::size_t i = 0; i < n; ++i) {
        if (i > 0 && (n - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

} // namespace poslab::core
