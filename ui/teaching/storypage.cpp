// SPDX-License-Identifier: MIT
#include "ui/teaching/storypage.h"

#include "ui/render/formula.h"

#include "ui/figures/computation.h"
#include "ui/views/view.h"
#include "ui/views/viewlist.h"
#include "ui/state/workbenchstate.h"

#include "core/encodingregistry.h"
#include "core/spatial.h"
#include "ui/teaching/readingpage.h"
#include "ui/teaching/stories.h"

#include <QApplication>
#include <QComboBox>
#include <QCoreApplication>
#include <QEventLoop>
#include <QEvent>
#include <QFontInfo>
#include <QPixmap>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPainter>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>

#include <algorithm>

namespace poslab::ui {
namespace {

QString esc(const QString& s)
{
    return s.toHtmlEscaped();
}

/// Long paths, identifiers and URLs may break after / . _ instead of widening the page.
QString breakable(const QString& s)
{
    QString t = esc(s);
    t.replace(QLatin1Char('/'), QStringLiteral("/\u200b"));
    t.replace(QLatin1Char('_'), QStringLiteral("_\u200b"));
    return t;
}

/// Shows TeX in @p label. Until the typeset formulas (ui/render/formula.h) are in, the TeX itself, in a
/// monospace box; this one function is what changes when they are.
/// The typeset formula (ui/render/formula.h) at the label's text size and colour; its TeX when none was typeset.
void setFormula(QLabel* label, const QString& tex)
{
    label->setProperty("tex", tex);
    const Formula formula(tex);
    if (!formula.isValid()) {
        label->setTextFormat(Qt::PlainText);
        label->setText(tex);
        return;
    }
    const double em = QFontInfo(label->font()).pixelSize();
    label->setPixmap(QPixmap::fromImage(
        formula.image(em, label->palette().color(QPalette::WindowText), label->devicePixelRatioF())));
    label->setToolTip(tex);
}

/// Claims as a list, each with its source in brackets.
QString claimList(const QList<StoryClaim>& claims)
{
    QString html = QStringLiteral("<ul style='margin-left:0px; -qt-list-indent:1'>");
    for (const StoryClaim& c : claims)
        html += QStringLiteral("<li>%1 <i>(%2)</i></li>").arg(esc(c.text), breakable(c.source));
    return html + QStringLiteral("</ul>");
}

QString dateText(const QDate& d)
{
    return QLocale(QLocale::English).toString(d, QStringLiteral("d MMM yyyy"));
}

constexpr int dotRadius = 4;

/// The year ticks of @p l: the first year at the start of the axis, then a tick on each 1 January, labelled
/// above the axis where the label has room. The axis runs from @p first to @p last over @p length pixels.
void placeYears(TimelineWidget::Layout& l, const QFontMetrics& fm, int width, const QDate& first, const QDate& last,
                double length)
{
    const int pad = fm.averageCharWidth();
    const int lineH = fm.height();
    const double span = std::max<qint64>(1, first.daysTo(last));
    int lastRight = -1;
    {
        const QString text = QString::number(first.year());
        const QRect r(l.axisLeft - dotRadius, 0, fm.horizontalAdvance(text), lineH);
        l.yearX << l.axisLeft;
        l.yearLabels << r;
        l.years << first.year();
        lastRight = r.right();
    }
    for (int y = first.year() + 1; y <= last.year(); ++y) {
        const double f = first.daysTo(QDate(y, 1, 1)) / span;
        const int x = l.axisLeft + int(std::lround(f * length));
        const QString text = QString::number(y);
        const int w = fm.horizontalAdvance(text);
        QRect r(x - w / 2, 0, w, lineH);
        if (r.left() < 0)
            r.moveLeft(0);
        if (r.right() >= width)
            r.moveRight(width - 1);
        if (r.left() <= lastRight + pad)
            continue;
        l.yearX << x;
        l.yearLabels << r;
        l.years << y;
        lastRight = r.right();
    }
}

} // namespace

// ---------------------------------------------------------------------------------------------------------
// TimelineWidget

TimelineWidget::TimelineWidget(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("extensionTimeline"));
    QSizePolicy p(QSizePolicy::Expanding, QSizePolicy::Preferred);
    p.setHeightForWidth(true);
    setSizePolicy(p);
}

void TimelineWidget::setEvents(const QList<TimelineEvent>& events)
{
    m_events = events;
    QStringList tips;
    for (const TimelineEvent& e : events)
        tips << QStringLiteral("<b>%1</b> (%2, %3): %4").arg(esc(e.name), esc(e.who), dateText(e.date), esc(e.what));
    setToolTip(tips.join(QStringLiteral("<br>")));
    updateGeometry();
    update();
}

QStringList TimelineWidget::labelLines(int i) const
{
    return {m_events[i].name, dateText(m_events[i].date)};
}

TimelineWidget::Layout TimelineWidget::layoutFor(int width) const
{
    Layout l;
    const QFontMetrics fm(font());
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics fb(bold);
    const int pad = fm.averageCharWidth();
    const int n = int(m_events.size());
    const int lineH = fm.height();
    const int labelH = 2 * lineH + 2;
    const int rowGap = lineH / 2;
    QList<int> widths;
    for (int i = 0; i < n; ++i) {
        const QStringList lines = labelLines(i);
        widths << std::max(fb.horizontalAdvance(lines[0]), fm.horizontalAdvance(lines[1])) + pad;
    }
    l.axisLeft = pad + dotRadius;
    l.axisY = lineH + pad; // room for the year labels above the axis
    if (n == 0) {
        l.axisRight = std::max(l.axisLeft, width - pad);
        l.height = l.axisY + pad;
        return l;
    }
    // The dates map linearly onto the axis; the axis is as long as it can be while every label, which starts
    // at its dot and reaches right, ends inside the widget.
    const QDate first = m_events.front().date, last = m_events.back().date;
    const double span = std::max<qint64>(1, first.daysTo(last));
    double length = std::max(1, width - pad - l.axisLeft);
    for (int i = 0; i < n; ++i) {
        const double f = first.daysTo(m_events[i].date) / span;
        if (f > 0)
            length = std::min(length, (width - pad - widths[i] - dotRadius - 1 - l.axisLeft) / f);
    }
    length = std::max(1.0, length);
    l.axisRight = l.axisLeft + int(length);
    for (int i = 0; i < n; ++i)
        l.dotX << l.axisLeft + int(std::lround(first.daysTo(m_events[i].date) / span * length));
    // Rows, right to left: a label goes one row below every later label its span reaches, so it crosses no
    // later leader; its own leader, left of every later label, crosses none. No two labels in a row overlap, since a later
    // label starting inside this one's span is always in a shallower row.
    l.labels.resize(n);
    l.rows.resize(n);
    const int top = l.axisY + lineH;
    int rowsUsed = 0;
    for (int i = n - 1; i >= 0; --i) {
        // A label starts one pixel right of its dot, so no leader line of an earlier (or same-day) event,
        // which runs at that event's dot, can touch it.
        const int left = l.dotX[i] + 1;
        const int right = left + widths[i] + dotRadius + pad;
        int row = 0;
        for (int j = i + 1; j < n; ++j)
            if (l.labels[j].left() <= right)
                row = std::max(row, l.rows[j] + 1);
        l.rows[i] = row;
        rowsUsed = std::max(rowsUsed, row + 1);
        l.labels[i] = QRect(left, top + row * (labelH + rowGap), widths[i] + dotRadius, labelH);
    }
    placeYears(l, fm, width, first, last, length);
    l.height = top + rowsUsed * (labelH + rowGap);
    return l;
}

int TimelineWidget::heightForWidth(int width) const
{
    return layoutFor(width).height;
}

QSize TimelineWidget::sizeHint() const
{
    const int w = std::max(minimumSizeHint().width(), 60 * fontMetrics().averageCharWidth());
    return {w, heightForWidth(w)};
}

QSize TimelineWidget::minimumSizeHint() const
{
    // The widest label must fit beside the first dot.
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics fb(bold), fm(font());
    int widest = 0;
    for (int i = 0; i < m_events.size(); ++i) {
        const QStringList lines = labelLines(i);
        widest = std::max({widest, fb.horizontalAdvance(lines[0]), fm.horizontalAdvance(lines[1])});
    }
    const int w = widest + 4 * fm.averageCharWidth() + 2 * dotRadius;
    return {w, heightForWidth(w)};
}

void TimelineWidget::changeEvent(QEvent* e)
{
    QWidget::changeEvent(e);
    if (e->type() == QEvent::FontChange)
        updateGeometry();
}

void TimelineWidget::paintEvent(QPaintEvent*)
{
    const Layout l = layoutFor(width());
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    const QColor text = pal.color(QPalette::WindowText);
    const QColor muted = pal.color(QPalette::PlaceholderText);
    const QColor accent = pal.color(QPalette::Highlight);
    p.setPen(QPen(text, 1.5));
    p.drawLine(l.axisLeft, l.axisY, l.axisRight, l.axisY);
    for (int i = 0; i < l.years.size(); ++i) {
        p.setPen(QPen(muted, 1));
        if (i > 0) // the first label names the year the axis starts in; the others mark 1 January
            p.drawLine(l.yearX[i], l.axisY - 4, l.yearX[i], l.axisY + 4);
        p.setPen(muted);
        p.drawText(l.yearLabels[i], i > 0 ? Qt::AlignCenter : Qt::AlignLeft | Qt::AlignVCenter,
                   QString::number(l.years[i]));
    }
    QFont bold = font();
    bold.setBold(true);
    const int lineH = fontMetrics().height();
    for (int i = 0; i < m_events.size(); ++i) {
        const QRect r = l.labels[i];
        p.setPen(QPen(muted, 1));
        p.drawLine(l.dotX[i], l.axisY, l.dotX[i], r.top() + lineH / 2);
        p.setPen(Qt::NoPen);
        p.setBrush(accent);
        p.drawEllipse(QPoint(l.dotX[i], l.axisY), dotRadius, dotRadius);
        const QStringList lines = labelLines(i);
        const QRect textRect = r.adjusted(dotRadius, 0, 0, 0);
        p.setFont(bold);
        p.setPen(text);
        p.drawText(QRect(textRect.left(), r.top(), textRect.width(), lineH), Qt::AlignLeft | Qt::AlignVCenter,
                   lines[0]);
        p.setFont(font());
        p.setPen(muted);
        p.drawText(QRect(textRect.left(), r.top() + lineH, textRect.width(), lineH), Qt::AlignLeft | Qt::AlignVCenter,
                   lines[1]);
    }
}

// ---------------------------------------------------------------------------------------------------------
// The story's figure

QString storyFigureView(const QString& schemeId)
{
    const std::string id = schemeId.toStdString();
    if (const core::SpatialSchemeDescriptor* s = core::findSpatialScheme(id))
        return s->input == core::SpatialInput::Sequence ? QStringLiteral("sequence") : QStringLiteral("patchgrid");
    const core::SchemeDescriptor* s = core::findScheme(id);
    if (!s)
        return {};
    if (s->rotary)
        return QStringLiteral("rotation");
    if (s->encoding && s->relation != core::Relation::None)
        return QStringLiteral("table");
    return QStringLiteral("attention");
}

QImage storyFigure(const QString& schemeId, QSize size, bool dark, double fontScale, qreal dpr)
{
    const ViewEntry* entry = findView(storyFigureView(schemeId));
    if (!entry || size.isEmpty())
        return {};
    // A private workbench, as an export's: the scheme's default state, computed on the CPU and at once.
    WorkbenchState state;
    if (core::findSpatialScheme(schemeId.toStdString())) {
        SpatialSetup spatial;
        spatial.scheme = schemeId.toStdString();
        // A sequence is shorter than the default grid: its first token selected.
        if (core::findSpatialScheme(spatial.scheme)->input == core::SpatialInput::Sequence)
            spatial.patch = 0;
        // M-RoPE's default sections (Qwen2-VL's 16, 24, 24 pairs) need its head dimension, 128.
        if (!spatialProblem(spatial).isEmpty())
            spatial.dim = 128;
        if (!state.setSpatial(spatial).isEmpty())
            return {};
    } else if (!state.setScheme(schemeId).isEmpty()) {
        return {};
    }
    ViewOptions o = state.viewOptions();
    o.theme = dark ? ThemeKind::Dark : ThemeKind::Light;
    o.fontScale = fontScale;
    state.applyViewOptions(o);
    const bool attention = entry->id == QLatin1String("attention");
    Computation computation(&state, nullptr, attention, gpu::ComputePath::Cpu);
    computation.setSynchronousAttention(true);
    std::unique_ptr<View> view(entry->create(&state, &computation));
    view->resize(size);
    computation.flush();
    while (computation.isBusy())
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 20);
    computation.waitForAttention();
    QCoreApplication::sendPostedEvents(&computation, QEvent::MetaCall);
    return view->renderImage(size, dpr);
}

// ---------------------------------------------------------------------------------------------------------
// StoryPage

StoryPage::StoryPage(QWidget* parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("storyPage"));
    setWindowTitle(tr("Scheme story"));
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(8, 8, 8, 8);
    auto* top = new QHBoxLayout;
    auto* label = new QLabel(tr("Story of"), this);
    m_choice = new QComboBox(this);
    m_choice->setObjectName(QStringLiteral("storyScheme"));
    for (const auto& s : core::schemes())
        m_choice->addItem(QString::fromStdString(s.name), QString::fromStdString(s.id));
    for (const auto& s : core::spatialSchemes())
        m_choice->addItem(QString::fromStdString(s.info.name), QString::fromStdString(s.info.id));
    m_choice->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_choice->setMinimumContentsLength(12);
    label->setBuddy(m_choice);
    top->addWidget(label);
    top->addWidget(m_choice, 1);
    lay->addLayout(top);
    connect(m_choice, &QComboBox::activated, this,
            [this](int index) { showStory(m_choice->itemData(index).toString()); });
    m_scroll = addReadingScroll(this, lay, QStringLiteral("storyScroll"));
    addCloseKeys(this); // a window of its own: closed as a dialog would be
    connect(this, &StoryPage::lessonRequested, this, [this](const QString& id) {
        if (m_openStep)
            m_openStep(id);
    });
}

StoryPage* StoryPage::open(const QString& schemeId, QWidget* anchor, const WorkbenchState* look,
                           std::function<void(const QString&)> openStep)
{
    QWidget* window = anchor ? anchor->window() : nullptr;
    StoryPage* page
        = window ? window->findChild<StoryPage*>(QStringLiteral("storyPage"), Qt::FindDirectChildrenOnly) : nullptr;
    if (!page) {
        page = new StoryPage(window);
        page->setWindowFlag(Qt::Window);
        // The page takes the main window's font (its scale) and palette (its theme), now and when they change.
        page->setAttribute(Qt::WA_WindowPropagation);
        const QScreen* screen = window && window->screen() ? window->screen() : QGuiApplication::primaryScreen();
        const QRect avail = screen ? screen->availableGeometry() : QRect(0, 0, 1366, 768);
        const int w = std::min(avail.width(), std::max(720, 80 * page->fontMetrics().averageCharWidth()));
        page->resize(w, avail.height() * 9 / 10);
        page->move(avail.left() + (avail.width() - w) / 2, avail.top() + avail.height() / 20);
    }
    if (look)
        page->m_look = look;
    if (openStep)
        page->m_openStep = std::move(openStep);
    page->showStory(schemeId);
    page->show();
    page->raise();
    page->activateWindow();
    return page;
}

QLabel* StoryPage::addLabel(const QString& objectName, bool heading)
{
    auto* l = new QLabel(m_body);
    l->setObjectName(objectName);
    l->setWordWrap(true);
    l->setTextFormat(Qt::RichText);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    l->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    if (heading) {
        l->setContentsMargins(0, l->fontMetrics().height() / 2, 0, 0); // a little air above each section
        m_headings << l;
    }
    m_layout->addWidget(l);
    return l;
}

void StoryPage::showStory(const QString& schemeId)
{
    m_schemeId = schemeId;
    if (const int at = m_choice->findData(schemeId); at >= 0)
        m_choice->setCurrentIndex(at);
    m_headings.clear();
    m_formulas.clear();
    m_timeline = nullptr;
    m_figure = nullptr;
    // A fresh body for each story; the old one goes with its labels.
    m_body = new QWidget;
    m_body->setObjectName(QStringLiteral("storyBody"));
    m_layout = new QVBoxLayout(m_body);
    m_layout->setContentsMargins(4, 4, 4, 4);
    m_layout->setSpacing(6);
    m_title = addLabel(QStringLiteral("storyTitle"));
    const std::optional<Story> story = findStory(schemeId);
    const core::SchemeDescriptor* scheme = core::findScheme(schemeId.toStdString());
    if (const core::SpatialSchemeDescriptor* spatial = core::findSpatialScheme(schemeId.toStdString());
        !scheme && spatial)
        scheme = &spatial->info; // a grid or sequence scheme: its identity and citation
    if (!story || !scheme) {
        m_title->setText(tr("No story for the scheme '%1'.").arg(esc(schemeId)));
        m_layout->addStretch(1);
        m_scroll->setWidget(m_body);
        applyFonts();
        return;
    }
    setWindowTitle(tr("The story of %1").arg(story->title));
    m_title->setText(esc(story->title));
    addLabel(QStringLiteral("storyCitation"))
        ->setText(QStringLiteral("<i>%1</i>").arg(esc(QString::fromStdString(scheme->citation))));
    addSection(QStringLiteral("storyProblem"), tr("The problem"), esc(story->problem));
    addSection(QStringLiteral("storyIdea"), tr("The idea"), esc(story->idea));
    addSection(QStringLiteral("storyMechanism"), tr("The mechanism"), esc(story->mechanism));
    addFormula(QStringLiteral("storyFormula"), story->formula);
    m_formula = m_formulas.back();
    addFigure();
    addSection(QStringLiteral("storyGood"), tr("Good at"), claimList(story->goodAt));
    addSection(QStringLiteral("storyBad"), tr("Bad at"), claimList(story->badAt));
    const QList<StoryUser> users = storyUsers(schemeId);
    addSection(QStringLiteral("storyUsers"), tr("Used by (PosLab's presets)"), usersHtml(users));
    addVariants(*story);
    addSection(QStringLiteral("storyNext"), tr("What came next"), esc(story->next));
    addLessons();
    if (story->timeline)
        addTimeline();
    addSection(QStringLiteral("storySources"), tr("Sources"), sourcesHtml(*story, users));
    m_layout->addStretch(1);
    m_scroll->setWidget(m_body); // deletes the previous body
    m_scroll->verticalScrollBar()->setValue(0);
    applyFonts();
    renderFigure();
}

QLabel* StoryPage::addSection(const QString& id, const QString& heading, const QString& html)
{
    addLabel(id + QStringLiteral("Heading"), true)->setText(esc(heading));
    QLabel* l = addLabel(id);
    l->setText(html);
    return l;
}

QLabel* StoryPage::addFormula(const QString& objectName, const QString& tex)
{
    QLabel* f = addLabel(objectName);
    f->setAutoFillBackground(true);
    f->setBackgroundRole(QPalette::AlternateBase);
    f->setForegroundRole(QPalette::Text);
    f->setMargin(6);
    setFormula(f, tex);
    m_formulas << f;
    return f;
}

QString StoryPage::usersHtml(const QList<StoryUser>& users)
{
    QString used;
    if (users.isEmpty()) {
        used = esc(tr("None of PosLab's model presets uses this scheme."));
    } else {
        // Grouped by variant (rope_type) where the scheme has them, in the order storyUsers gives.
        QString group;
        bool open = false;
        for (const StoryUser& u : users) {
            if (!open || u.variant != group) {
                if (open)
                    used += QStringLiteral("</ul>");
                if (!u.variant.isEmpty())
                    used += QStringLiteral("<p><b>rope_type %1</b></p>").arg(esc(u.variant));
                used += QStringLiteral("<ul style='margin-left:0px; -qt-list-indent:1'>");
                group = u.variant;
                open = true;
            }
            // The preset's provenance (which copy of the config was read) is in the sources at the end.
            used += QStringLiteral("<li><b>%1</b> (%2; preset %3, %4)</li>")
                        .arg(esc(u.name), breakable(u.hfId), esc(u.presetId), esc(u.verified));
        }
        used += QStringLiteral("</ul>");
    }
    return used;
}

void StoryPage::addVariants(const Story& story)
{
    if (!story.variants.isEmpty()) {
        addLabel(QStringLiteral("storyVariantsHeading"), true)->setText(esc(tr("Variants (rope_type)")));
        for (const StoryVariant& v : story.variants) {
            addLabel(QStringLiteral("storyVariant_") + v.key)
                ->setText(QStringLiteral("<b>%1</b> (rope_type %2): %3 <i>(%4)</i>")
                              .arg(esc(v.name), esc(v.key), esc(v.text), breakable(v.source)));
            if (!v.formula.isEmpty())
                addFormula(QStringLiteral("storyVariantFormula_") + v.key, v.formula);
        }
    }
}

void StoryPage::addLessons()
{
    if (const QList<StoryLesson> ls = storyLessons(m_schemeId); !ls.isEmpty()) {
        QString list = QStringLiteral("<ul style='margin-left:0px; -qt-list-indent:1'>");
        for (const StoryLesson& l : ls)
            list += QStringLiteral("<li><a href=\"lesson:%1\">Lesson %2 \u00b7 %3</a> (from step %1)</li>")
                        .arg(esc(l.stepId))
                        .arg(l.lesson)
                        .arg(esc(l.title));
        QLabel* lessonsLabel
            = addSection(QStringLiteral("storyLessons"), tr("Lessons that show it"), list + QStringLiteral("</ul>"));
        lessonsLabel->setTextInteractionFlags(Qt::TextBrowserInteraction);
        lessonsLabel->setOpenExternalLinks(false);
        connect(lessonsLabel, &QLabel::linkActivated, this, [this](const QString& link) {
            if (link.startsWith(QLatin1String("lesson:")))
                emit lessonRequested(link.mid(7));
        });
    }
}

void StoryPage::addTimeline()
{
    addLabel(QStringLiteral("storyTimelineHeading"), true)->setText(esc(tr("Context extension, a timeline")));
    m_timeline = new TimelineWidget(m_body);
    m_timeline->setEvents(extensionTimeline());
    m_layout->addWidget(m_timeline);
    QString list = QStringLiteral("<ul style='margin-left:0px; -qt-list-indent:1'>");
    for (const TimelineEvent& e : extensionTimeline())
        list += QStringLiteral("<li><b>%1</b>, %2, %3%4: %5 <i>(%6)</i></li>")
                    .arg(esc(e.name), esc(e.who), dateText(e.date),
                         e.ropeType.isEmpty() ? QString() : QStringLiteral(" (rope_type %1)").arg(esc(e.ropeType)),
                         esc(e.what), breakable(e.source));
    addLabel(QStringLiteral("storyTimelineList"))->setText(list + QStringLiteral("</ul>"));
}

QString StoryPage::sourcesHtml(const Story& story, const QList<StoryUser>& users)
{
    QString sources = QStringLiteral("<ul style='margin-left:0px; -qt-list-indent:1'>");
    for (const QString& s : story.sources)
        sources += QStringLiteral("<li>%1</li>").arg(breakable(s));
    // How each briefly cited source was read, and where each preset's numbers come from.
    for (const QList<StoryClaim>* claims : {&story.goodAt, &story.badAt})
        for (const StoryClaim& c : *claims)
            if (!c.detail.isEmpty())
                sources += QStringLiteral("<li>%1: %2</li>").arg(breakable(c.source), breakable(c.detail));
    if (story.timeline)
        for (const TimelineEvent& e : extensionTimeline())
            sources += QStringLiteral("<li>%1 (timeline): %2%3</li>")
                           .arg(esc(e.name), breakable(e.source),
                                e.detail.isEmpty() ? QString() : QStringLiteral("; ") + breakable(e.detail));
    for (const StoryUser& u : users)
        sources += QStringLiteral("<li>%1 (preset %2): %3</li>").arg(esc(u.name), esc(u.presetId), breakable(u.source));
    return sources + QStringLiteral("</ul>");
}

void StoryPage::addFigure()
{
    // One live figure of the scheme, drawn by its view for the scheme's default state (renderFigure()).
    addLabel(QStringLiteral("storyFigureHeading"), true)
        ->setText(esc(tr("A figure: the %1 view at the scheme's defaults").arg(storyFigureView(m_schemeId))));
    m_figure = new QLabel(m_body);
    m_figure->setObjectName(QStringLiteral("storyFigure"));
    m_figure->setAlignment(Qt::AlignLeft | Qt::AlignTop);
    m_layout->addWidget(m_figure);
    m_figureWidth = -1;
}

void StoryPage::renderFigure()
{
    if (!m_figure)
        return;
    // The page's width; a height that keeps the figure on one screen; the main window's theme and font scale.
    const int w = std::max(320, m_scroll->viewport()->width() - 16);
    const int h = std::clamp(w * 9 / 16, 240, std::max(240, m_scroll->viewport()->height() * 3 / 4));
    bool dark = palette().color(QPalette::Window).lightness() < 128;
    // Without a state to follow: the font's size against the application's gives the scale.
    double scale = std::clamp(font().pointSizeF() / std::max(1.0, QApplication::font().pointSizeF()), 0.8, 2.5);
    if (m_look) {
        dark = m_look->viewOptions().theme == ThemeKind::Dark;
        scale = m_look->viewOptions().fontScale;
    }
    m_figureWidth = m_scroll->viewport()->width();
    m_figure->setPixmap(QPixmap::fromImage(storyFigure(m_schemeId, QSize(w, h), dark, scale, devicePixelRatioF())));
    m_figure->setToolTip(tr("The %1 view of %2 at its default settings; open the scheme in the window to change it")
                             .arg(storyFigureView(m_schemeId), m_schemeId));
}

void StoryPage::resizeEvent(QResizeEvent* e)
{
    QWidget::resizeEvent(e);
    if (m_figure && std::abs(m_scroll->viewport()->width() - m_figureWidth) > 24)
        renderFigure();
}

void StoryPage::applyFonts()
{
    QFont heading = font();
    heading.setBold(true);
    heading.setPointSizeF(font().pointSizeF() * 1.15);
    for (QLabel* l : m_headings)
        l->setFont(heading);
    if (m_title) {
        QFont title = font();
        title.setBold(true);
        title.setPointSizeF(font().pointSizeF() * 1.5);
        m_title->setFont(title);
    }
    QFont mono = font();
    mono.setFamily(QStringLiteral("monospace"));
    mono.setStyleHint(QFont::Monospace);
    for (QLabel* f : m_formulas) {
        f->setFont(mono);
        setFormula(f, f->property("tex").toString());
    }
}

void StoryPage::changeEvent(QEvent* e)
{
    QWidget::changeEvent(e);
    if (e->type() == QEvent::FontChange && m_body)
        applyFonts();
    if ((e->type() == QEvent::FontChange || e->type() == QEvent::PaletteChange) && m_figure)
        renderFigure();
}

QList<QLabel*> StoryPage::textLabels() const
{
    return m_body ? m_body->findChildren<QLabel*>() : QList<QLabel*>{};
}

QString StoryPage::text() const
{
    QStringList parts;
    for (const QLabel* l : textLabels())
        parts << l->text();
    return parts.join(QLatin1Char('\n'));
}

} // namespace poslab::ui
