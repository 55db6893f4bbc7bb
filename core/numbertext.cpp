// SPDX-License-Identifier: MIT
#include "core/numbertext.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

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

namespace {

/// printf's text of @p a (non-negative) in @p format with @p digits.
std::string printed(const char* format, int digits, double a)
{
    const int n = std::snprintf(nullptr, 0, format, digits, a);
    std::string s(std::size_t(std::max(0, n)) + 1, '\0');
    std::snprintf(s.data(), s.size(), format, digits, a);
    s.resize(std::size_t(std::max(0, n)));
    return s;
}

void replaceAll(std::string& s, std::string_view from, std::string_view to)
{
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
}

} // namespace

std::string formatSignificant(double v, int significant)
{
    if (!std::isfinite(v))
        return std::isnan(v) ? "NaN" : (v > 0 ? "\u221e" : "-\u221e");
    significant = std::max(1, significant);
    const double a = std::abs(v);
    if (a == 0.0)
        return "0"; // also -0.0
    const std::string sign = v < 0 ? "-" : "";
    if (a >= 1e7 || a < 1e-3) {
        std::string s = printed("%.*g", significant, a);
        replaceAll(s, "e+0", "e");
        replaceAll(s, "e+", "e");
        replaceAll(s, "e-0", "e-");
        return sign + s;
    }
    const int exponent = int(std::floor(std::log10(a)));
    std::string s = printed("%.*f", std::max(0, significant - 1 - exponent), a);
    if (s.find('.') != std::string::npos) {
        while (s.back() == '0')
            s.pop_back();
        if (s.back() == '.')
            s.pop_back();
    }
    const std::size_t dot = s.find('.');
    const std::string whole = dot == std::string::npos ? s : s.substr(0, dot);
    const std::string rest = dot == std::string::npos ? std::string() : s.substr(dot);
    if (whole == "0" && rest.empty())
        return "0";
    return sign + groupThousands(whole) + rest;
}

} // namespace poslab::core
