// SPDX-License-Identifier: MIT
#include "ui/window/helpmenu.h"

#include "ui/window/about.h"

#include <QAction>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSet>
#include <QToolButton>

#ifndef POSLAB_VERSION
#define POSLAB_VERSION "unknown"
#endif
#ifndef POSLAB_GIT_REVISION
#define POSLAB_GIT_REVISION "unknown"
#endif

namespace poslab::ui {
namespace {

/// The licences of what is bundled (ui/window/about.h), one paragraph each.
QString bundledLicences()
{
    QString html;
    for (const QString& paragraph : licencesText().split(QStringLiteral("\n\n"), Qt::SkipEmptyParts))
        html += QStringLiteral("<p style='white-space: pre-wrap'>%1</p>").arg(paragraph.toHtmlEscaped());
    return html;
}

QString cleanText(QString t)
{
    t.remove(QLatin1Char('&')).remove(QChar(0x2026)); // "&Open\u2026" -> "Open"
    return t.trimmed();
}

} // namespace

QList<ShortcutEntry> shortcutList(const QWidget* root)
{
    QList<ShortcutEntry> out;
    QSet<const QAction*> seen;
    for (const QAction* a : root->findChildren<QAction*>()) {
        if (seen.contains(a) || a->shortcuts().isEmpty())
            continue;
        seen.insert(a);
        QStringList keys;
        for (const QKeySequence& k : a->shortcuts())
            keys << k.toString(QKeySequence::NativeText);
        QString what = cleanText(a->text());
        if (what.size() <= 3) { // a toolbar's "A+" says less than its tooltip, less the key it names
            static const QRegularExpression key(QStringLiteral("\\s*\\([^()]*\\)$"));
            what = QString(a->toolTip()).remove(key);
        }
        out.push_back({keys.join(QStringLiteral(", ")), what});
    }
    return out;
}

QString shortcutsHtml(const QWidget* root)
{
    QString html = QStringLiteral("<table cellspacing='0' cellpadding='4'>");
    for (const ShortcutEntry& e : shortcutList(root))
        html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                    .arg(e.keys.toHtmlEscaped(), e.action.toHtmlEscaped());
    return html + QStringLiteral("</table>");
}

QString versionLine()
{
    return QStringLiteral("PosLab %1 (git %2)").arg(QLatin1String(POSLAB_VERSION), QLatin1String(POSLAB_GIT_REVISION));
}

QString aboutHtml()
{
    return QStringLiteral("<h3>%1</h3><p>%2</p>%3")
        .arg(versionLine().toHtmlEscaped(),
             QObject::tr("How transformers encode position: every scheme computed exactly, drawn live, and taught "
                         "step by step in the lessons (Help \u203a Lessons)."),
             bundledLicences());
}

FirstRunHint::FirstRunHint(QWidget* parent)
    : QFrame(parent)
{
    setObjectName(QStringLiteral("firstRunHint"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::AlternateBase);
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(8, 4, 4, 4);
    m_text = new QLabel(tr("New to PosLab? The lessons walk through every scheme step by step, with live views "
                           "and claims you can check (Help \u203a Lessons)."),
                        this);
    m_text->setWordWrap(true);
    m_open = new QPushButton(tr("Open the lessons"), this);
    m_open->setObjectName(QStringLiteral("firstRunOpen"));
    m_close = new QToolButton(this);
    m_close->setObjectName(QStringLiteral("firstRunClose"));
    m_close->setText(QStringLiteral("\u2715"));
    m_close->setAutoRaise(true);
    m_close->setToolTip(tr("Dismiss: this hint will not come back"));
    row->addWidget(m_text, 1);
    row->addWidget(m_open);
    row->addWidget(m_close);
    connect(m_open, &QPushButton::clicked, this, [this] {
        dismiss();
        emit openLessons();
    });
    connect(m_close, &QToolButton::clicked, this, &FirstRunHint::dismiss);
}

bool FirstRunHint::dismissed()
{
    return QSettings().value(QLatin1String(settingsKey), false).toBool();
}

void FirstRunHint::dismiss()
{
    QSettings().setValue(QLatin1String(settingsKey), true);
    hide();
    deleteLater();
}

} // namespace poslab::ui
