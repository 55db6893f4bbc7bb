// SPDX-License-Identifier: MIT
#include "ui/schemepicker.h"

#include "core/encodingregistry.h"
#include "ui/workbenchstate.h"

#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace poslab::ui {
namespace {

QString axes(const core::SchemeDescriptor& s)
{
    return QStringLiteral("%1 \u00b7 %2 \u00b7 %3")
        .arg(QString::fromUtf8(core::relationName(s.relation).data(), int(core::relationName(s.relation).size())),
             QString::fromUtf8(core::applicationName(s.application).data(), int(core::applicationName(s.application).size())),
             QString::fromUtf8(core::originName(s.origin).data(), int(core::originName(s.origin).size())));
}

} // namespace

SchemePicker::SchemePicker(WorkbenchState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
{
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(6, 6, 6, 6);
    m_tree = new QTreeWidget(this);
    m_tree->setObjectName(QStringLiteral("schemeTree"));
    m_tree->setHeaderHidden(true);
    m_tree->setColumnCount(1);
    m_tree->setRootIsDecorated(false);
    m_tree->setIndentation(14);
    QTreeWidgetItem* family = nullptr;
    for (const auto& s : core::schemes()) {
        const QString fam = QString::fromStdString(s.family);
        if (!family || family->text(0) != fam) {
            family = new QTreeWidgetItem(m_tree, {fam});
            family->setFlags(Qt::ItemIsEnabled);
            QFont f = family->font(0);
            f.setBold(true);
            family->setFont(0, f);
            family->setExpanded(true);
        }
        auto* item = new QTreeWidgetItem(family, {QString::fromStdString(s.name)});
        item->setData(0, Qt::UserRole, QString::fromStdString(s.id));
        item->setToolTip(0, QStringLiteral("<b>%1</b> (%2)<br>%3<br><i>%4</i>")
                                .arg(QString::fromStdString(s.name).toHtmlEscaped(), QString::fromStdString(s.id),
                                     axes(s), QString::fromStdString(s.citation).toHtmlEscaped()));
    }
    m_tree->expandAll();
    lay->addWidget(m_tree, 2);

    m_info = new QLabel(this);
    m_info->setObjectName(QStringLiteral("schemeInfo"));
    m_info->setWordWrap(true);
    m_info->setTextFormat(Qt::RichText);
    m_info->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(m_info);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    lay->addWidget(scroll, 3);

    connect(m_tree, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (item && item->data(0, Qt::UserRole).isValid())
            m_state->setScheme(item->data(0, Qt::UserRole).toString());
    });
    connect(state, &WorkbenchState::schemeChanged, this, &SchemePicker::syncSelection);
    syncSelection();
}

QString SchemePicker::infoText() const
{
    return m_info->text();
}

void SchemePicker::syncSelection()
{
    const QString id = m_state->schemeId();
    for (QTreeWidgetItemIterator it(m_tree); *it; ++it)
        if ((*it)->data(0, Qt::UserRole).toString() == id) {
            QSignalBlocker b(m_tree);
            m_tree->setCurrentItem(*it);
        }
    const auto& s = m_state->scheme();
    auto esc = [](const std::string& t) { return QString::fromStdString(t).toHtmlEscaped(); };
    m_info->setText(QStringLiteral("<p style='font-size:large'><b>%1</b></p>"
                                   "<p>%2</p>"
                                   "<p style='font-family:monospace; background:palette(alternate-base); padding:6px'>%3</p>"
                                   "<p><b>%4</b> %5</p>"
                                   "<p><b>%6</b> %7</p>"
                                   "<p><b>%8</b> <span style='font-family:monospace'>%9</span></p>")
                        .arg(esc(s.name), esc(s.summary), esc(s.formula), tr("Axes:"), axes(s), tr("Paper:"),
                             esc(s.citation), tr("Reference code:"),
                             // Long repository paths and function names may break after / . _ instead of
                             // pushing the whole panel wider than its dock.
                             esc(s.reference)
                                 .replace(QLatin1Char('/'), QStringLiteral("/\u200b"))
                                 .replace(QLatin1Char('.'), QStringLiteral(".\u200b"))
                                 .replace(QLatin1Char('_'), QStringLiteral("_\u200b"))));
}

} // namespace poslab::ui
