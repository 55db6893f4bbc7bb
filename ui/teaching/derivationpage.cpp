// SPDX-License-Identifier: MIT
#include "ui/teaching/derivationpage.h"

#include "ui/render/formula.h"
#include "ui/teaching/readingpage.h"

#include <QEvent>
#include <QFontDatabase>
#include <QFontInfo>
#include <QGuiApplication>
#include <QLabel>
#include <QPixmap>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>
#include <cstdlib>

namespace poslab::ui {

namespace {

QString esc(const QString& s)
{
    return s.toHtmlEscaped();
}

/// The typeset formula in @p label at the size of @p font (the page's: the body is not in the window yet) in @p colour, shrunk (never below 60%) so that it fits @p width pixels;
/// the TeX itself in monospace when none was typeset (tst_formulas fails then).
void setFormula(QLabel* label, const QString& tex, int width, const QFont& font, const QColor& colour)
{
    label->setProperty("tex", tex);
    label->setToolTip(tex);
    const Formula formula(tex);
    if (!formula.isValid()) {
        label->setTextFormat(Qt::PlainText);
        label->setWordWrap(true);
        label->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
        label->setText(tex);
        return;
    }
    double em = QFontInfo(font).pixelSize() * 1.15;
    const double natural = formula.size(em).width();
    if (width > 0 && natural > width)
        em *= std::max(0.6, width / natural);
    label->setPixmap(QPixmap::fromImage(formula.image(em, colour, label->devicePixelRatioF())));
}

} // namespace

DerivationPage::DerivationPage(QWidget* parent)
    : QWidget(parent)
    , m_engine(std::make_unique<lessons::ClaimEngine>())
{
    setObjectName(QStringLiteral("derivationPage"));
    setWindowTitle(tr("Derivation"));
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(8, 8, 8, 8);
    m_scroll = addReadingScroll(this, lay, QStringLiteral("derivationScroll"));
    addCloseKeys(this); // a window of its own, closed as the story page is
}

DerivationPage::~DerivationPage() = default;

DerivationPage* DerivationPage::open(const QString& id, QWidget* anchor, const QString& fromStep)
{
    if (!lessons::findDerivation(id))
        return nullptr;
    QWidget* window = anchor ? anchor->window() : nullptr;
    auto* page = window
        ? window->findChild<DerivationPage*>(QStringLiteral("derivationPage"), Qt::FindDirectChildrenOnly)
        : nullptr;
    if (!page) {
        page = new DerivationPage(window);
        page->setWindowFlag(Qt::Window);
        page->setAttribute(Qt::WA_WindowPropagation); // the main window's font scale and theme, now and later
        const QScreen* screen = window && window->screen() ? window->screen() : QGuiApplication::primaryScreen();
        const QRect avail = screen ? screen->availableGeometry() : QRect(0, 0, 1366, 768);
        const int w = std::min(avail.width(), std::max(720, 84 * page->fontMetrics().averageCharWidth()));
        page->resize(w, avail.height() * 9 / 10);
        page->move(avail.left() + (avail.width() - w) / 2, avail.top() + avail.height() / 20);
    }
    page->showDerivation(id, fromStep);
    page->show();
    page->raise();
    page->activateWindow();
    return page;
}

QLabel* DerivationPage::addLabel(const QString& objectName, const QString& html)
{
    auto* l = new QLabel(m_body);
    l->setObjectName(objectName);
    l->setWordWrap(true);
    l->setTextFormat(Qt::RichText);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    l->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    l->setText(html);
    m_layout->addWidget(l);
    return l;
}

QString DerivationPage::liveText(const QString& text)
{
    // {v:nID.K}: the computed value, in bold; its `poslab compute` line in the label's tooltip.
    const lessons::Derivation* d = lessons::findDerivation(m_id);
    QString out;
    for (const lessons::TextPart& part : lessons::textParts(text)) {
        if (part.kind != lessons::TextPart::Kind::Value) {
            out += esc(part.text);
            continue;
        }
        const lessons::Notice* n = d ? d->claims.findNotice(part.notice) : nullptr;
        const QList<const lessons::Probe*> probes = n ? n->probes() : QList<const lessons::Probe*>{};
        out += QStringLiteral("<b>%1</b>")
                   .arg(part.probe < probes.size() ? esc(m_engine->probe(*probes[part.probe]).text())
                                                   : QStringLiteral("?"));
    }
    return out;
}

bool DerivationPage::showDerivation(const QString& id, const QString& fromStep)
{
    m_id = id;
    m_from = fromStep;
    rebuild();
    m_scroll->verticalScrollBar()->setValue(0);
    return lessons::findDerivation(id) != nullptr;
}

void DerivationPage::rebuild()
{
    if (m_rebuilding)
        return;
    m_rebuilding = true;
    m_formulas.clear();
    m_code.clear();
    m_body = new QWidget;
    m_body->setObjectName(QStringLiteral("derivationBody"));
    m_layout = new QVBoxLayout(m_body);
    m_layout->setContentsMargins(4, 4, 4, 4);
    m_layout->setSpacing(6);
    m_builtWidth = m_scroll->viewport()->width();
    const int width = m_builtWidth - 24;
    const lessons::Derivation* d = lessons::findDerivation(m_id);
    QLabel* title = addLabel(QStringLiteral("derivationTitle"),
                             d ? esc(d->title) : tr("No derivation page '%1'.").arg(esc(m_id)));
    QFont tf = font();
    tf.setBold(true);
    tf.setPointSizeF(font().pointSizeF() * 1.4);
    title->setFont(tf);
    if (d) {
        setWindowTitle(tr("Why: %1").arg(d->title));
        addLabel(QStringLiteral("derivationSummary"), QStringLiteral("<i>%1</i>").arg(esc(d->summary)));
        if (!m_from.isEmpty())
            addLabel(QStringLiteral("derivationFrom"),
                     esc(tr("Opened from lesson step %1 (Esc closes this window).").arg(m_from)));
        for (int i = 0; i < d->steps.size(); ++i) {
            const lessons::DerivationStep& s = d->steps[i];
            QLabel* t = addLabel(QStringLiteral("derivationStep"),
                                 QStringLiteral("<b>%1.</b> %2").arg(i + 1).arg(liveText(s.text)));
            t->setContentsMargins(0, t->fontMetrics().height() / 3, 0, 0);
            if (!s.formula.isEmpty()) {
                auto* f = new QLabel(m_body);
                f->setObjectName(QStringLiteral("derivationFormula"));
                f->setMargin(6);
                m_layout->addWidget(f);
                setFormula(f, s.formula, width - 12, font(), palette().color(QPalette::WindowText));
                m_formulas << f;
            }
            if (s.code)
                addCode(*s.code);
        }
        addChecks(*d);
        QString sources
            = QStringLiteral("<b>%1</b><ul style='margin-left:0px; -qt-list-indent:1'>").arg(esc(tr("Sources")));
        for (const QString& s : d->sources)
            sources += QStringLiteral("<li>%1</li>").arg(esc(s));
        addLabel(QStringLiteral("derivationSources"), sources + QStringLiteral("</ul>"));
    }
    m_layout->addStretch(1);
    m_scroll->setWidget(m_body); // deletes the previous body
    m_rebuilding = false;
}

void DerivationPage::addCode(const lessons::DerivationCode& code)
{
    addLabel(QStringLiteral("derivationCodeLabel"), QStringLiteral("<i>%1</i>").arg(esc(code.label)));
    auto* c = new QLabel(m_body);
    c->setObjectName(QStringLiteral("derivationCode"));
    c->setTextFormat(Qt::PlainText);
    c->setText(code.text);
    c->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    QFont mono = c->font();
    mono.setPointSizeF(font().pointSizeF()); // the code follows the page's font scale
    c->setFont(mono);
    c->setTextInteractionFlags(Qt::TextSelectableByMouse);
    c->setAutoFillBackground(true);
    c->setBackgroundRole(QPalette::AlternateBase);
    c->setForegroundRole(QPalette::Text);
    c->setMargin(8);
    m_layout->addWidget(c);
    m_code << c;
}

void DerivationPage::addChecks(const lessons::Derivation& d)
{
    if (!d.claims.notice.isEmpty()) {
        QLabel* h = addLabel(QStringLiteral("derivationChecksHeading"), esc(tr("Checked by the app")));
        QFont hf = font();
        hf.setBold(true);
        h->setFont(hf);
        h->setContentsMargins(0, h->fontMetrics().height() / 2, 0, 0);
        for (const lessons::Notice& n : d.claims.notice) {
            const lessons::CheckResult r = m_engine->check(n.check);
            const QString mark = r.holds ? QStringLiteral("<span style='color:#2a9d3c'>\u2713</span>")
                                         : QStringLiteral("<span style='color:#d0302f'>\u2717</span>");
            QLabel* l
                = addLabel(QStringLiteral("derivationCheck"), mark + QLatin1Char(' ') + esc(m_engine->fillNotice(n)));
            QStringList lines;
            for (const lessons::Probe* p : n.probes())
                if (!lines.contains(QStringLiteral("poslab compute ") + p->compute))
                    lines << QStringLiteral("poslab compute ") + p->compute;
            l->setToolTip(lines.join(QLatin1Char('\n')) + QLatin1Char('\n') + r.reason);
        }
    }
}

void DerivationPage::changeEvent(QEvent* e)
{
    QWidget::changeEvent(e);
    // The formulas are drawn in the text colour at the text's size: a new theme or font scale draws them again.
    if ((e->type() == QEvent::FontChange || e->type() == QEvent::PaletteChange) && m_body)
        rebuild();
}

void DerivationPage::resizeEvent(QResizeEvent* e)
{
    QWidget::resizeEvent(e);
    if (m_body && std::abs(m_scroll->viewport()->width() - m_builtWidth) > 8) {
        const int at = m_scroll->verticalScrollBar()->value();
        rebuild();
        m_scroll->verticalScrollBar()->setValue(at);
    }
}

QString DerivationPage::text() const
{
    QStringList parts;
    if (m_body)
        for (const QLabel* l : m_body->findChildren<QLabel*>())
            if (!l->text().isEmpty())
                parts << l->text();
    return parts.join(QLatin1Char('\n'));
}

} // namespace poslab::ui
