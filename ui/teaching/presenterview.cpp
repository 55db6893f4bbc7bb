// SPDX-License-Identifier: MIT
#include "ui/teaching/presenterview.h"

#include <QCoreApplication>
#include <QGridLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QTextDocumentFragment>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>

namespace poslab::ui {

PresenterView::PresenterView(QWidget* parent)
    : QWidget(parent, Qt::Window)
{
    setObjectName(QStringLiteral("presenterView"));
    setWindowTitle(tr("PosLab presenter view"));
    m_current = new QLabel(this);
    m_current->setObjectName(QStringLiteral("presenterCurrent"));
    m_current->setWordWrap(true);
    m_counter = new QLabel(this);
    m_counter->setObjectName(QStringLiteral("presenterCounter"));
    m_clock = new QLabel(this);
    m_clock->setObjectName(QStringLiteral("presenterClock"));
    m_clock->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_notes = new QLabel(this);
    m_notes->setObjectName(QStringLiteral("presenterNotes"));
    m_notes->setWordWrap(true);
    m_notes->setTextFormat(Qt::RichText);
    m_notes->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_next = new QLabel(this);
    m_next->setObjectName(QStringLiteral("presenterNext"));
    m_next->setWordWrap(true);
    m_keys = new QLabel(
        tr("Keys go to the slide: Right / PageDown next, Left / PageUp back, P closes this view, ? all keys"), this);
    m_keys->setWordWrap(true);
    m_keys->setForegroundRole(QPalette::PlaceholderText);

    auto* top = new QGridLayout;
    top->addWidget(m_counter, 0, 0);
    top->addWidget(m_clock, 0, 1);
    top->setColumnStretch(0, 1);
    auto* column = new QVBoxLayout(this);
    column->addLayout(top);
    column->addWidget(m_current);
    column->addWidget(m_notes, 1);
    column->addWidget(m_next);
    column->addWidget(m_keys);

    m_started.start();
    m_timer = new QTimer(this);
    m_timer->setInterval(1000);
    connect(m_timer, &QTimer::timeout, this, &PresenterView::tick);
    m_timer->start();
    tick();
    updateFonts();
    resize(1024, 640);
}

void PresenterView::setPage(const PresentationPage& page)
{
    m_page = page;
    m_current->setText(page.heading.isEmpty() ? tr("The workbench") : page.heading);
    m_counter->setText(page.counter);
    QString notes = page.notes;
    if (!page.footer.isEmpty())
        notes += QStringLiteral("<p><i>%1</i></p>").arg(page.footer.toHtmlEscaped());
    if (!page.answer.isEmpty())
        notes += tr("<p><b>Answer (not on the slide until revealed):</b> %1</p>").arg(page.answer.toHtmlEscaped());
    m_notes->setText(notes);
    m_next->setText(page.next.isEmpty() ? tr("Next: end of the lesson") : tr("Next: %1").arg(page.next));
}

void PresenterView::setClock(const QElapsedTimer& started)
{
    m_started = started;
    tick();
}

void PresenterView::setFontScale(double scale)
{
    m_scale = std::clamp(scale, 1.0, 2.0);
    updateFonts();
}

QString PresenterView::currentText() const
{
    return m_current->text();
}
QString PresenterView::nextText() const
{
    return m_next->text();
}
QString PresenterView::notesText() const
{
    return QTextDocumentFragment::fromHtml(m_notes->text()).toPlainText();
}
QString PresenterView::elapsedText() const
{
    return m_clock->text();
}

QString PresenterView::formatElapsed(qint64 ms)
{
    const qint64 s = std::max<qint64>(0, ms / 1000);
    const auto two = [](qint64 v) { return QStringLiteral("%1").arg(v, 2, 10, QLatin1Char('0')); };
    if (s >= 3600)
        return QStringLiteral("%1:%2:%3").arg(s / 3600).arg(two(s / 60 % 60), two(s % 60));
    return QStringLiteral("%1:%2").arg(s / 60).arg(two(s % 60));
}

void PresenterView::tick()
{
    m_clock->setText(formatElapsed(m_started.isValid() ? m_started.elapsed() : 0));
}

void PresenterView::resizeEvent(QResizeEvent* e)
{
    QWidget::resizeEvent(e);
    updateFonts();
}

void PresenterView::keyPressEvent(QKeyEvent* e)
{
    if (m_keyTarget) {
        QKeyEvent copy(e->type(), e->key(), e->modifiers(), e->text(), e->isAutoRepeat(), ushort(e->count()));
        QCoreApplication::sendEvent(m_keyTarget, &copy);
        return;
    }
    QWidget::keyPressEvent(e);
}

void PresenterView::updateFonts()
{
    // Pixel sizes from the window's height (as the slide's), times the lecturer's font scale.
    const int h = std::max(height(), 360);
    const auto px = [&](double share) { return std::max(11, int(h * share * m_scale)); };
    QFont head = font();
    head.setPixelSize(px(0.04));
    head.setBold(true);
    m_current->setFont(head);
    QFont clock = head;
    clock.setPixelSize(px(0.05));
    m_clock->setFont(clock);
    QFont body = font();
    body.setPixelSize(px(0.026));
    m_notes->setFont(body);
    m_counter->setFont(body);
    QFont next = body;
    next.setBold(true);
    m_next->setFont(next);
    QFont small = font();
    small.setPixelSize(px(0.018));
    m_keys->setFont(small);
    layout()->setContentsMargins(h / 40, h / 60, h / 40, h / 60);
}

} // namespace poslab::ui
