// SPDX-License-Identifier: MIT
#include "ui/setup/typedtext.h"

#include "core/numbertext.h"

#include <QCoreApplication>
#include <QStringList>

#include <charconv>
#include <cmath>

namespace poslab::ui {

namespace {

/// Shortest text that reads back as exactly @p v, in plain decimals or (when @p allowExponent and the value
/// calls for it) as mantissa "e" exponent with no '+' and no leading zeros: "500000", "0.02", "1e9".
QString shortest(double v, bool fixed)
{
    char buf[400];
    auto [ptr, ec] = fixed ? std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed)
                           : std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    if (ec != std::errc())
        return QString::number(v, 'g', 17);
    QString s = QString::fromLatin1(buf, int(ptr - buf));
    if (!fixed) {
        // "1e+09" -> "1e9", "2.5e-05" -> "2.5e-5"
        const int e = int(s.indexOf(QLatin1Char('e')));
        QString exp = s.mid(e + 1);
        const bool negative = exp.startsWith(QLatin1Char('-'));
        exp.remove(QLatin1Char('+')).remove(QLatin1Char('-'));
        while (exp.size() > 1 && exp.startsWith(QLatin1Char('0')))
            exp.remove(0, 1);
        s = s.left(e + 1) + (negative ? QStringLiteral("-") : QString()) + exp;
    }
    return s;
}

bool needsExponent(double v)
{
    const double a = std::abs(v);
    if (!std::isfinite(v) || v == 0.0)
        return false;
    if (a < 1e-4)
        return true;
    if (a < exponentFrom)
        return false;
    // From 1e7 up, an exponent where it is short (1e7, 2.5e9); all the digits where they carry information
    // (16777216 = 2^24 stays whole rather than 1.6777216e7), up to where doubles stop being whole numbers.
    const QString sci = shortest(v, false);
    const int mantissaDigits
        = int(sci.left(sci.indexOf(QLatin1Char('e'))).remove(QLatin1Char('.')).remove(QLatin1Char('-')).size());
    return mantissaDigits <= 3 || a >= 1e15;
}

} // namespace

QString typedText(double v)
{
    return shortest(v, !needsExponent(v));
}

QString typedText(const core::ParamValue& v)
{
    switch (v.type) {
    case core::ParamType::Real:
    case core::ParamType::Integer: return typedText(v.number);
    case core::ParamType::RealList: {
        QStringList parts;
        for (double x : v.list)
            parts << typedText(x);
        return parts.join(QLatin1Char(','));
    }
    default: return QString::fromStdString(v.toString());
    }
}

QString displayText(double v)
{
    if (needsExponent(v) || !std::isfinite(v))
        return typedText(v);
    // Digits in groups of three in the integer part: 1,048,576 and 10,000.5; no exponent below 1e7.
    QString s = shortest(v, true);
    const bool negative = s.startsWith(QLatin1Char('-'));
    if (negative)
        s.remove(0, 1);
    const int dot = s.indexOf(QLatin1Char('.'));
    const QString whole = dot < 0 ? s : s.left(dot);
    const QString rest = dot < 0 ? QString() : s.mid(dot);
    return (negative ? QStringLiteral("-") : QString())
        + QString::fromStdString(core::groupThousands(whole.toStdString())) + rest;
}

QString tokensText(double v)
{
    return v == 1.0 ? QCoreApplication::translate("poslab::ui::ParameterPanel", "1 token")
                    : QCoreApplication::translate("poslab::ui::ParameterPanel", "%1 tokens").arg(displayText(v));
}

} // namespace poslab::ui
