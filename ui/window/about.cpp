// SPDX-License-Identifier: MIT
#include "ui/window/about.h"

#include <Eigen/Core>

#include <QFile>

namespace poslab::ui {
namespace {

QString resourceText(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly | QIODevice::Text) ? QString::fromUtf8(f.readAll()) : QString();
}

} // namespace

QString licencesText()
{
    const QString eigen
        = QStringLiteral("%1.%2.%3").arg(EIGEN_WORLD_VERSION).arg(EIGEN_MAJOR_VERSION).arg(EIGEN_MINOR_VERSION);
    QString text = resourceText(QStringLiteral(":/licenses/bundled.txt"))
                       .replace(QLatin1String("{qt}"), QString::fromLatin1(qVersion()))
                       .replace(QLatin1String("{eigen}"), eigen);
    for (const QString& id : licenceIds())
        text += QStringLiteral("\n\n==== %1 ====\n\n").arg(id) + licenceFullText(id);
    return text;
}

QStringList licenceIds()
{
    return {QStringLiteral("Apache-2.0"), QStringLiteral("GPL-3.0"), QStringLiteral("LGPL-3.0"),
            QStringLiteral("MPL-2.0")};
}

QString licenceFullText(const QString& spdxId)
{
    if (!licenceIds().contains(spdxId))
        return {};
    return resourceText(QStringLiteral(":/licenses/") + spdxId + QStringLiteral(".txt"));
}

} // namespace poslab::ui
