// SPDX-License-Identifier: MIT
#include "ui/state/stateform.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace poslab::ui {

QString jsonText(const QJsonValue& v)
{
    return QString::fromUtf8(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact)).mid(1).chopped(1);
}

std::optional<QString> paramText(const QJsonValue& v)
{
    if (v.isString())
        return v.toString();
    if (v.isDouble())
        return QString::number(v.toDouble(), 'g', 17);
    if (v.isBool())
        return v.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    return std::nullopt;
}

} // namespace poslab::ui
