// SPDX-License-Identifier: MIT
#include "ui/window/viewframe.h"

#include "ui/views/flowlayout.h"
#include "ui/views/view.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QResizeEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace poslab::ui {
namespace {

/// A one-line label that elides its text ("Dot product and de…") when it is narrower than the text, with the
/// whole text as tooltip, instead of pushing its frame (and the window) wider.
class ElidedLabel : public QLabel {
public:
    using QLabel::QLabel;
    QSize minimumSizeHint() const override
    {
        return {fontMetrics().horizontalAdvance(QStringLiteral("M\u2026")), QLabel::minimumSizeHint().height()};
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        p.setFont(font());
        p.setPen(palette().color(foregroundRole()));
        const QRect r = contentsRect();
        const QString shown = fontMetrics().elidedText(text(), Qt::ElideRight, r.width());
        p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter, shown);
    }
    void resizeEvent(QResizeEvent* e) override
    {
        QLabel::resizeEvent(e);
        setToolTip(fontMetrics().horizontalAdvance(text()) > contentsRect().width() ? text() : QString());
    }
};

} // namespace

ViewFrame::ViewFrame(View* view, QWidget* parent)
    : QFrame(parent)
    , m_view(view)
{
    setObjectName(QStringLiteral("frame_") + view->exportName());
    setFrameShape(QFrame::StyledPanel);
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(1, 1, 1, 1);
    lay->setSpacing(0);
    m_header = new QWidget(this);
    m_header->setObjectName(QStringLiteral("viewHeader"));
    m_grid = new QGridLayout(m_header);
    m_grid->setContentsMargins(8, 3, 4, 3);
    m_grid->setVerticalSpacing(2);
    m_title = new ElidedLabel(view->title(), m_header);
    QFont f = m_title->font();
    f.setBold(true);
    m_title->setFont(f);
    m_grid->addWidget(m_title, 0, 0);
    m_grid->setColumnStretch(1, 1);
    if (QWidget* c = view->controls()) {
        c->setParent(m_header);
        // The controls flow onto more lines when the frame is narrow (three views side by side at a large
        // font scale) instead of running out of the frame; each keeps the width its text needs.
        for (auto* combo : c->findChildren<QComboBox*>())
            combo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        FlowLayout::replace(c);
        m_controls = c;
        fitEdits();
    }
    m_max = new QToolButton(m_header);
    m_max->setAutoRaise(true);
    m_max->setText(QStringLiteral("\u2922"));
    m_max->setToolTip(tr("Maximise this view (double-click the header)"));
    m_grid->addWidget(m_max, 0, 3);
    placeControls(true); // unwrapped in resizeEvent() once the frame knows it has room
    lay->addWidget(m_header);
    // The header keeps the lines its controls need; the view takes what is left, however little, rather than
    // pushing the controls over each other when the frame is short.
    view->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    lay->addWidget(view, 1);
    view->setParent(this);
    connect(m_max, &QToolButton::clicked, this, [this] { emit maximiseRequested(m_view, !m_maximised); });
}

void ViewFrame::setMaximised(bool on)
{
    m_maximised = on;
    m_max->setText(on ? QStringLiteral("\u2921") : QStringLiteral("\u2922"));
    m_max->setToolTip(on ? tr("Back to the grid") : tr("Maximise this view (double-click the header)"));
}

void ViewFrame::placeControls(bool wrapped)
{
    m_wrapped = wrapped;
    if (!m_controls)
        return;
    m_grid->removeWidget(m_controls);
    if (wrapped)
        m_grid->addWidget(m_controls, 1, 0, 1, 4); // the whole width: the controls flow onto more lines
    else
        m_grid->addWidget(m_controls, 0, 2, Qt::AlignRight);
}

void ViewFrame::resizeEvent(QResizeEvent* e)
{
    QFrame::resizeEvent(e);
    if (!m_controls)
        return;
    const bool wrap = wrapsAt(e->size().width());
    if (wrap != m_wrapped)
        placeControls(wrap);
}

void ViewFrame::changeEvent(QEvent* e)
{
    QFrame::changeEvent(e);
    if (e->type() == QEvent::FontChange)
        fitEdits();
}

void ViewFrame::fitEdits()
{
    if (!m_controls)
        return;
    for (auto* edit : m_controls->findChildren<QLineEdit*>()) {
        if (edit->placeholderText().isEmpty())
            continue;
        if (!edit->property("poslabMaxWidth").isValid())
            edit->setProperty("poslabMaxWidth", edit->maximumWidth());
        // The text plus the frame and the edit's own margins (about one "M" each side).
        const QFontMetrics fm = edit->fontMetrics();
        const int need = fm.horizontalAdvance(edit->placeholderText()) + 2 * fm.horizontalAdvance(QLatin1Char('M'));
        edit->setMaximumWidth(std::max(edit->property("poslabMaxWidth").toInt(), need));
        edit->setMinimumWidth(std::min(need, edit->maximumWidth()));
    }
}

bool ViewFrame::wrapsAt(int width) const
{
    // Controls share the title's line when there is room, else they wrap onto a second line.
    if (!m_controls)
        return false;
    const int need = m_title->sizeHint().width() + m_controls->sizeHint().width() + m_max->sizeHint().width() + 40;
    return width < need;
}

QSize ViewFrame::viewSizeAt(QSize frame) const
{
    const QMargins outer = contentsMargins() + layout()->contentsMargins(); // the frame's line, the layout's 1 px
    const int w = frame.width() - outer.left() - outer.right();
    const QMargins m = m_grid->contentsMargins();
    int line = m_title->sizeHint().height();
    if (!m_max->isHidden())
        line = std::max(line, m_max->sizeHint().height());
    int header = line;
    if (m_controls) {
        if (wrapsAt(frame.width())) {
            const int flow = m_controls->heightForWidth(w - m.left() - m.right());
            header += m_grid->verticalSpacing() + (flow > 0 ? flow : m_controls->sizeHint().height());
        } else {
            header = std::max(header, m_controls->sizeHint().height());
        }
    }
    header += m.top() + m.bottom();
    return {std::max(0, w), std::max(0, frame.height() - outer.top() - outer.bottom() - header)};
}

QSize ViewFrame::minimumSizeHint() const
{
    // The grid's splitters add up their frames' minimum sizes, and the window grows to the sum: never ask for
    // more than a small frame, so the window fits a 1366 x 768 screen at every font scale. Below its content's
    // minimum the view is drawn in the room it has.
    return QFrame::minimumSizeHint().boundedTo(QSize(minimumFrameWidth, minimumFrameHeight));
}

void ViewFrame::mouseDoubleClickEvent(QMouseEvent* e)
{
    if (m_header->geometry().contains(e->position().toPoint()))
        if (m_canMaximise)
            emit maximiseRequested(m_view, !m_maximised);
}

void ViewFrame::setMaximiseVisible(bool on)
{
    m_canMaximise = on;
    m_max->setVisible(on);
}

} // namespace poslab::ui
