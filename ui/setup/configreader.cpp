// SPDX-License-Identifier: MIT
#include "ui/setup/configreader.h"

#include "core/errors.h"

#include <QLocale>

#include <cmath>

namespace poslab::ui::config {

QString typeName(const QJsonValue& v)
{
    switch (v.type()) {
    case QJsonValue::Null: return QStringLiteral("null");
    case QJsonValue::Bool: return QStringLiteral("true/false");
    case QJsonValue::Double: return QStringLiteral("a number");
    case QJsonValue::String: return QStringLiteral("a string");
    case QJsonValue::Array: return QStringLiteral("a list");
    case QJsonValue::Object: return QStringLiteral("an object");
    default: return QStringLiteral("nothing");
    }
}

QString numberText(double x)
{
    if (x == std::floor(x) && std::abs(x) < 1e15)
        return QString::number(qint64(x));
    return QString::number(x, 'g', QLocale::FloatingPointShortest);
}

QString oneLine(const QString& text)
{
    QString out;
    out.reserve(text.size());
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        if (u == u'\n')
            out += QLatin1String("\\n");
        else if (u == u'\r')
            out += QLatin1String("\\r");
        else if (u == u'\t')
            out += QLatin1String("\\t");
        else if (u < 0x20 || u == 0x7f || u == 0x2028 || u == 0x2029)
            out += QStringLiteral("\\u%1").arg(int(u), 4, 16, QLatin1Char('0'));
        else
            out += c;
    }
    return out;
}

void Reader::fail(const QString& what) const
{
    throw core::InputError(oneLine(m_name + QStringLiteral(": ") + what).toStdString());
}

std::optional<QJsonValue> Reader::present(const QJsonObject& o, const QString& key, const QString& path,
                                          bool (QJsonValue::*is)() const, const char* kind, bool markUsed)
{
    const QJsonValue v = o.value(key);
    if (v.isUndefined() || v.isNull())
        return std::nullopt;
    if (!(v.*is)())
        fail(QStringLiteral("\"%1\" must be %2, got %3").arg(path, QLatin1String(kind), typeName(v)));
    if (markUsed)
        use(path);
    return v;
}

std::optional<double> Reader::number(const QJsonObject& o, const QString& key, const QString& path)
{
    if (const auto v = present(o, key, path, &QJsonValue::isDouble, "a number", true))
        return v->toDouble();
    return std::nullopt;
}

std::optional<int> Reader::count(const QJsonObject& o, const QString& key, const QString& path)
{
    const auto x = number(o, key, path);
    if (!x)
        return std::nullopt;
    if (*x != std::floor(*x) || std::abs(*x) > 2147483647.0)
        fail(QStringLiteral("\"%1\" must be an integer, got %2").arg(path, numberText(*x)));
    return int(*x);
}

std::optional<int> Reader::size(const QJsonObject& o, const QString& key, const QString& path)
{
    const auto n = count(o, key, path);
    if (n && *n < 1)
        fail(QStringLiteral("\"%1\" is %2; a size must be 1 or more").arg(path).arg(*n));
    return n;
}

std::optional<bool> Reader::flag(const QJsonObject& o, const QString& key, const QString& path, bool numberIsFlag)
{
    if (numberIsFlag && o.value(key).isDouble()) { // Llama 4 copies write "attn_temperature_tuning": 4 (PRESETS.md)
        use(path);
        return o.value(key).toDouble() != 0;
    }
    if (const auto v = present(o, key, path, &QJsonValue::isBool, "true or false", true))
        return v->toBool();
    return std::nullopt;
}

std::optional<QString> Reader::text(const QJsonObject& o, const QString& key, const QString& path)
{
    if (const auto v = present(o, key, path, &QJsonValue::isString, "a string", true))
        return v->toString();
    return std::nullopt;
}

std::optional<QJsonObject> Reader::object(const QJsonObject& o, const QString& key, const QString& path)
{
    if (const auto v = present(o, key, path, &QJsonValue::isObject, "an object", false))
        return v->toObject();
    return std::nullopt;
}

std::optional<QJsonArray> Reader::array(const QJsonObject& o, const QString& key, const QString& path)
{
    if (const auto v = present(o, key, path, &QJsonValue::isArray, "a list", false))
        return v->toArray();
    return std::nullopt;
}

std::optional<QString> Reader::numberList(const QJsonObject& o, const QString& key, const QString& path)
{
    const auto a = array(o, key, path);
    if (!a)
        return std::nullopt;
    QStringList parts;
    for (const QJsonValue& x : *a) {
        if (!x.isDouble())
            fail(QStringLiteral("\"%1\" must be a list of numbers; element %2 is %3")
                     .arg(path)
                     .arg(parts.size() + 1)
                     .arg(typeName(x)));
        parts << numberText(x.toDouble());
    }
    use(path);
    return parts.join(QLatin1Char(','));
}

void Reader::use(const QString& path)
{
    if (!used.contains(path))
        used << path;
}

void Reader::unmap(const QString& path, const QString& why)
{
    used.removeAll(path);
    unmapped << path + QStringLiteral(": ") + why;
}

} // namespace poslab::ui::config
