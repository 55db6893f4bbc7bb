// SPDX-License-Identifier: MIT
#include "ui/teaching/readingpage.h"

#include <QBoxLayout>
#include <QKeySequence>
#include <QList>
#include <QScrollArea>
#include <QShortcut>

namespace poslab::ui {

QScrollArea* addReadingScroll(QWidget* page, QBoxLayout* layout, const QString& objectName)
{
    auto* scroll = new QScrollArea(page);
    scroll->setObjectName(objectName);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setFrameShape(QFrame::NoFrame);
    layout->addWidget(scroll, 1);
    return scroll;
}

void addCloseKeys(QWidget* page)
{
    QList<QKeySequence> keys = QKeySequence::keyBindings(QKeySequence::Close);
    for (const QKeySequence& k : {QKeySequence(Qt::Key_Escape), QKeySequence(Qt::CTRL | Qt::Key_W)})
        if (!keys.contains(k))
            keys << k;
    for (const QKeySequence& k : keys) {
        auto* s = new QShortcut(k, page);
        s->setContext(Qt::WindowShortcut);
        QObject::connect(s, &QShortcut::activated, page, &QWidget::close);
    }
}

} // namespace poslab::ui
