// SPDX-License-Identifier: MIT
#include "ui/window/schemepicker.h"

#include "core/encodingregistry.h"
#include "core/spatial.h"
#include "ui/lessons/lesson.h"
#include "ui/views/flowlayout.h"
#include "ui/render/figuretitle.h"
#include "ui/render/formula.h"
#include "ui/teaching/storypage.h"
#include "ui/state/workbenchstate.h"
#include "ui/window/mainwindow.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QStandardItemModel>
#include <QEvent>
#include <QJsonObject>
#include <QFontInfo>
#include <QPixmap>
#include <QStyle>
#include <QGridLayout>
#include <QKeyEvent>
#include <QResizeEvent>
#include <QScrollBar>
#include <QScreen>
#include <QShowEvent>
#include <QSignalBlocker>
#include <QLabel>
#include <QLayout>
#include <QMenu>
#include <QScrollArea>
#include <QSettings>
#include <QHBoxLayout>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <memory>
#include <vector>

namespace poslab::ui {
namespace {

QString axes(const core::SchemeDescriptor& s)
{
    return QStringLiteral("%1 \u00b7 %2 \u00b7 %3")
        .arg(QString::fromUtf8(core::relationName(s.relation).data(), int(core::relationName(s.relation).size())),
             QString::fromUtf8(core::applicationName(s.application).data(),
                               int(core::applicationName(s.application).size())),
             QString::fromUtf8(core::originName(s.origin).data(), int(core::originName(s.origin).size())));
}

/// The scroll area around the scheme list: it asks for the list's whole height at its width, so that the
/// list is shown without scrolling wherever the screen has the room, and scrolls only where it has not (a
/// large font scale on a small screen).
class ListScroll : public QScrollArea {
public:
    using QScrollArea::QScrollArea;
    QSize sizeHint() const override
    {
        QSize s = QScrollArea::sizeHint();
        if (QWidget* w = widget())
            s.setHeight(w->heightForWidth(viewport()->width() > 0 ? viewport()->width() : w->width())
                        + 2 * frameWidth());
        return s;
    }
    QSize minimumSizeHint() const override
    {
        // A few lines at least; the rest scrolls when the dock is short.
        return {QScrollArea::minimumSizeHint().width(), std::min(sizeHint().height(), 4 * fontMetrics().height())};
    }
};

} // namespace

void SchemePicker::openStory(const QString& id)
{
    // The page's figure follows this state's theme and font scale; a lesson link opens the step in the main
    // window's lesson browser (the window owns the lessons).
    StoryPage::open(id, this, m_state, [this](const QString& step) {
        if (auto* main = qobject_cast<MainWindow*>(window())) {
            main->openLessonStep(step);
            main->raise();
            main->activateWindow();
        }
    });
}

SchemePicker::SchemePicker(WorkbenchState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
{
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(6, 4, 6, 4);
    lay->setSpacing(6);
    buildList(lay);
    buildCompactPicker(lay);
    buildLinks(lay);
    buildDescription(lay);
    connect(m_group, &QButtonGroup::buttonClicked, this,
            [this](QAbstractButton* b) { m_state->setScheme(b->property("schemeId").toString()); });
    connect(state, &WorkbenchState::schemeChanged, this, &SchemePicker::syncSelection);
    syncSelection();
}

QToolButton* SchemePicker::makeSchemeButton(const core::SchemeDescriptor& s, const QString& fam, QWidget* parent)
{
    const QString id = QString::fromStdString(s.id);
    const QString name = QString::fromStdString(s.name);
    auto* b = new QToolButton(parent);
    b->setObjectName(QStringLiteral("scheme_") + id);
    b->setText(shortSchemeName(s));
    b->setCheckable(true);
    b->setProperty("schemeId", id);
    b->setProperty("family", fam);
    b->setToolTip(QStringLiteral("<b>%1</b> (%2)<br>%3<br>%4<br><i>%5</i>")
                      .arg(name.toHtmlEscaped(), id, fam.toHtmlEscaped(), axes(s),
                           QString::fromStdString(s.citation).toHtmlEscaped()));
    b->setAccessibleName(name);
    b->installEventFilter(this);
    // The scheme's story page, from the button's context menu. A menu of its own: actions added
    // to a tool button would give it a drop-down arrow.
    b->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(b, &QWidget::customContextMenuRequested, this, [this, b, id](const QPoint& at) {
        QMenu menu(b);
        menu.addAction(tr("Story of %1").arg(b->text()), this, [this, id] { openStory(id); });
        menu.exec(b->mapToGlobal(at));
    });
    m_group->addButton(b);
    return b;
}

void SchemePicker::buildList(QVBoxLayout* lay)
{
    // One line per family: its name on the left, its schemes flowing to the right. Fifteen schemes in nine
    // families take about ten lines instead of the twenty-four rows of a tree.
    m_list = new QWidget(this);
    m_list->setObjectName(QStringLiteral("schemeList"));
    auto* grid = new QGridLayout(m_list);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setHorizontalSpacing(8);
    grid->setVerticalSpacing(3);
    grid->setColumnStretch(1, 1);
    m_group = new QButtonGroup(this);
    m_group->setExclusive(true);
    FlowLayout* flow = nullptr;
    QString family;
    int line = -1;
    for (const auto& s : core::schemes()) {
        const QString fam = QString::fromStdString(s.family);
        if (!flow || fam != family) {
            family = fam;
            ++line;
            auto* label = new QLabel(fam, m_list);
            label->setObjectName(QStringLiteral("family_") + QString::number(line));
            label->setForegroundRole(QPalette::PlaceholderText);
            label->setWordWrap(true);
            label->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
            auto* box = new QWidget(m_list);
            flow = new FlowLayout(box);
            m_lines.push_back({label, box});
        }
        QToolButton* b = makeSchemeButton(s, fam, flow->parentWidget());
        flow->addWidget(b);
    }
    arrangeLines(false);
    m_listScroll = new ListScroll(this);
    m_listScroll->setObjectName(QStringLiteral("schemeListScroll"));
    m_listScroll->setWidget(m_list);
    m_listScroll->setWidgetResizable(true);
    m_listScroll->setFrameShape(QFrame::NoFrame);
    m_listScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    m_list->installEventFilter(this);
    m_listScroll->viewport()->installEventFilter(this);
    lay->addWidget(m_listScroll);
}

void SchemePicker::buildCompactPicker(QVBoxLayout* lay)
{
    // The list's one-line form (setCompact()): the same schemes in the same order, each family's name a heading
    // that cannot be chosen (the combo box's keys step over it).
    m_compactPicker = new QComboBox(this);
    m_compactPicker->setObjectName(QStringLiteral("schemeCompactPicker"));
    m_compactPicker->setToolTip(tr("The scheme (the whole list shows where the column has room for it)"));
    m_compactPicker->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_compactPicker->setMinimumContentsLength(8);
    m_compactPicker->setMaxVisibleItems(16);
    fillCompactPicker();
    m_compactPicker->hide();
    connect(m_compactPicker, &QComboBox::activated, this, [this](int index) {
        const QString id = m_compactPicker->itemData(index).toString();
        if (!id.isEmpty())
            m_state->setScheme(id);
    });
    lay->addWidget(m_compactPicker);
}

void SchemePicker::buildLinks(QVBoxLayout* lay)
{
    // The selected scheme's story page, always in view between the list and the description. A flat
    // button rather than a rich-text link, whose blue would not follow the dark theme.
    // It names the scheme of the view in front (setFrontView()): the spatial one over the patch grid or sequence.
    auto* story = m_story = new QToolButton(this);
    story->setObjectName(QStringLiteral("schemeStoryButton"));
    story->setAutoRaise(true);
    connect(story, &QToolButton::clicked, this, [this] { openStory(storyScheme()); });
    connect(m_state, &WorkbenchState::schemeChanged, this, &SchemePicker::syncStory);
    connect(m_state, &WorkbenchState::spatialChanged, this, &SchemePicker::syncStory);
    connect(m_state, &WorkbenchState::answerPendingChanged, this, &SchemePicker::syncStory);
    syncStory();
    // The formula folds away (one click; remembered in the settings, shown by default) where a lecturer wants
    // the column's height for the parameters.
    auto* fold = m_formulaToggle = new QToolButton(this);
    fold->setObjectName(QStringLiteral("schemeFormulaToggle"));
    fold->setAutoRaise(true);
    fold->setCheckable(true);
    // Until the user folds or unfolds it, formulaShownByDefault() decides (a 1366 x 768 projector or a large font
    // scale: folded, so that the column's height goes to the parameter rows and the scheme list first).
    fold->setChecked(QSettings().value(QStringLiteral("picker/formulaShown"), formulaShownByDefault()).toBool());
    fold->setText(tr("Formula"));
    fold->setToolTip(tr("Show or hide the scheme's formula"));
    // Only a click is the user's choice to remember; the default following the font scale is not.
    connect(fold, &QToolButton::clicked, this,
            [](bool on) { QSettings().setValue(QStringLiteral("picker/formulaShown"), on); });
    connect(fold, &QToolButton::toggled, this, [this](bool on) {
        m_formulaScroll->setVisible(on);
        m_formulaToggle->setArrowType(on ? Qt::DownArrow : Qt::RightArrow);
        keepFormulaInView();
        emit roomChanged();
    });
    connect(m_state, &WorkbenchState::viewOptionsChanged, this, [this] {
        if (!QSettings().contains(QStringLiteral("picker/formulaShown")))
            m_formulaToggle->setChecked(formulaShownByDefault());
    });
    fold->setArrowType(fold->isChecked() ? Qt::DownArrow : Qt::RightArrow);
    fold->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    auto* links = new QHBoxLayout;
    m_linksLayout = links;
    links->setContentsMargins(0, 0, 0, 0);
    links->addWidget(story);
    links->addStretch(1);
    links->addWidget(fold);
    lay->addLayout(links);
}

void SchemePicker::buildDescription(QVBoxLayout* lay)
{
    auto* info = new QWidget(this);
    auto* infoLay = m_infoLayout = new QVBoxLayout(info);
    infoLay->setContentsMargins(0, 0, 0, 0);
    infoLay->setSpacing(6);
    m_info = new QLabel(info);
    m_info->setObjectName(QStringLiteral("schemeInfo"));
    m_info->setWordWrap(true);
    m_info->setTextFormat(Qt::RichText);
    m_info->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_info->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // The formula in a box of its own: it fills with the palette's base and writes in its text
    // colour, so it follows the theme when it changes (colours written into rich text would not); the typeset
    // formula is drawn again in the new text colour.
    m_formula = new QLabel(info);
    m_formula->setObjectName(QStringLiteral("schemeFormula"));
    m_formula->setWordWrap(true);
    m_formula->setTextFormat(Qt::PlainText);
    m_formula->setAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_formula->setAutoFillBackground(true);
    m_formula->setBackgroundRole(QPalette::Base);
    m_formula->setForegroundRole(QPalette::Text);
    m_formula->setMargin(6);
    m_formula->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // The label's own palette may change after the picker's (the application's palette reaches every widget
    // in no set order): redraw the typeset formula when the label's changes too.
    m_formula->installEventFilter(this);
    // A typeset formula wider than the panel is shrunk, but not below minFormulaScale of the text size (a large
    // font scale would undo itself); beyond that it scrolls sideways in a box of its own, so that the text
    // around it keeps wrapping at the panel's width.
    m_formulaScroll = new QScrollArea(info);
    m_formulaScroll->setObjectName(QStringLiteral("schemeFormulaScroll"));
    m_formulaScroll->setFrameShape(QFrame::NoFrame);
    m_formulaScroll->setWidgetResizable(true);
    m_formulaScroll->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_formulaScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    m_formulaScroll->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    m_formulaScroll->setWidget(m_formula);
    m_details = new QLabel(info);
    m_details->setObjectName(QStringLiteral("schemeDetails"));
    m_details->setWordWrap(true);
    m_details->setTextFormat(Qt::RichText);
    m_details->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    infoLay->addWidget(m_info);
    infoLay->addWidget(m_formulaScroll);
    infoLay->addWidget(m_details);
    m_formulaScroll->setVisible(m_formulaToggle->isChecked());
    infoLay->addStretch(1);
    m_scroll = new QScrollArea(this);
    m_scroll->setWidget(info);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // The scheme list comes first: the description takes what is left and scrolls.
    m_scroll->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Ignored);
    m_scroll->viewport()->installEventFilter(this);
    lay->addWidget(m_scroll, 1);
}

QAbstractButton* SchemePicker::button(const QString& id) const
{
    for (QAbstractButton* b : m_group->buttons())
        if (b->property("schemeId").toString() == id)
            return b;
    return nullptr;
}

QString SchemePicker::familyOf(const QString& id) const
{
    QAbstractButton* b = button(id);
    return b ? b->property("family").toString() : QString();
}

bool SchemePicker::formulaShownByDefault() const
{
    const QScreen* sc = screen();
    const bool tall = !sc || sc->availableGeometry().height() >= formulaRoomHeight;
    return tall && m_state->viewOptions().fontScale < foldFromScale;
}

void SchemePicker::fillCompactPicker()
{
    auto* model = new QStandardItemModel(m_compactPicker);
    QString family;
    for (const auto& s : core::schemes()) {
        const QString fam = QString::fromStdString(s.family);
        if (fam != family) {
            family = fam;
            auto* heading = new QStandardItem(fam);
            heading->setFlags(Qt::NoItemFlags); // not selectable, not enabled: the keys step over it
            QFont f = heading->font();
            f.setBold(true);
            heading->setFont(f);
            model->appendRow(heading);
        }
        const QString name = QString::fromStdString(s.name);
        auto* item = new QStandardItem(shortSchemeName(s));
        item->setData(QString::fromStdString(s.id), Qt::UserRole);
        item->setToolTip(name);
        model->appendRow(item);
    }
    m_compactPicker->setModel(model);
}

void SchemePicker::setCompact(bool compact)
{
    if (compact == m_compact)
        return;
    m_compact = compact;
    // The focus goes with the form shown, so that the keys keep choosing schemes.
    const bool hadFocus = m_list->isAncestorOf(focusWidget()) || m_compactPicker->hasFocus();
    m_listScroll->setVisible(!compact);
    m_compactPicker->setVisible(compact);
    if (hadFocus) {
        if (compact)
            m_compactPicker->setFocus();
        else if (QAbstractButton* b = m_group->checkedButton())
            b->setFocus();
    }
    updateGeometry();
}

int SchemePicker::heightFor(bool compact, int width) const
{
    const QMargins m = layout()->contentsMargins();
    const int spacing = layout()->spacing();
    int list = 0;
    if (compact) {
        list = m_compactPicker->sizeHint().height();
    } else {
        const int inner = std::max(1, width - m.left() - m.right() - 2 * m_listScroll->frameWidth());
        list = m_list->heightForWidth(inner) + 2 * m_listScroll->frameWidth();
    }
    return m.top() + list + spacing + m_linksLayout->sizeHint().height() + spacing + m_scroll->minimumHeight()
        + m.bottom();
}

void SchemePicker::setFrontView(const QString& viewId)
{
    if (viewId == m_frontView)
        return;
    m_frontView = viewId;
    syncStory();
}

QString SchemePicker::storyScheme() const
{
    // The two views that draw the spatial set-up (ui/views/viewlist.cpp); every other view draws the 1-D one. While
    // a lesson step waits for its guess its views are not in front yet: the step's first view says what it is about.
    const auto drawsSpatial
        = [](const QString& view) { return view == QLatin1String("patchgrid") || view == QLatin1String("sequence"); };
    // (Its state loads after the guess too: the scheme is the one its merged state names.)
    if (m_state->answerPending()) {
        const lessons::Lesson* lesson = nullptr;
        int index = -1;
        const lessons::Step* step = lessons::findStep(m_state->answerPendingStep(), &lesson, &index);
        if (step && lesson && !step->views.isEmpty()) {
            const QJsonObject state = lessons::stepState(*lesson, index);
            const QString key = drawsSpatial(step->views.front()) ? QStringLiteral("spatial") : QString();
            const QString id = key.isEmpty() ? state.value(QStringLiteral("scheme")).toString()
                                             : state.value(key).toObject().value(QStringLiteral("scheme")).toString();
            if (!id.isEmpty())
                return id;
        }
    }
    if (drawsSpatial(m_frontView) && core::findSpatialScheme(m_state->spatial().scheme))
        return QString::fromStdString(m_state->spatial().scheme);
    return m_state->schemeId();
}

void SchemePicker::syncStory()
{
    const std::string id = storyScheme().toStdString();
    const core::SpatialSchemeDescriptor* spatial = core::findSpatialScheme(id);
    const core::SchemeDescriptor* flat = core::findScheme(id);
    const core::SchemeDescriptor& scheme = spatial ? spatial->info : flat ? *flat : m_state->scheme();
    m_story->setText(tr("The story of %1 \u2192").arg(shortSchemeName(scheme)));
}

QString SchemePicker::infoText() const
{
    return m_info->text() + QLatin1Char('\n') + m_formulaText + QLatin1Char('\n') + m_details->text();
}

void SchemePicker::step(int delta)
{
    const QList<QAbstractButton*> buttons = m_group->buttons();
    const int at = int(buttons.indexOf(m_group->checkedButton()));
    const int next = std::clamp(at + delta, 0, int(buttons.size()) - 1);
    if (next != at && next >= 0) {
        buttons[next]->setFocus();
        buttons[next]->click();
    }
}

bool SchemePicker::eventFilter(QObject* watched, QEvent* e)
{
    if (watched == m_formula && e->type() == QEvent::PaletteChange) {
        showFormula();
        return false;
    }
    if (m_scroll && watched == m_scroll->viewport() && e->type() == QEvent::Resize) {
        showFormula();
        keepFormulaInView();
        return false;
    }
    if (m_listScroll && watched == m_listScroll->viewport() && e->type() == QEvent::Resize) {
        // Family names beside their schemes where the line has room for both; above them where it has not
        // (a large font scale in a narrow dock), so the buttons never need a horizontal scroll.
        const bool stacked = m_listScroll->viewport()->width() < stackBelowChars * fontMetrics().averageCharWidth();
        if (stacked != m_stacked)
            arrangeLines(stacked);
        return false;
    }
    if (watched == m_list) {
        // The flow's height depends on the width: ask the dock again for the list's whole height.
        if (e->type() == QEvent::Resize && static_cast<QResizeEvent*>(e)->oldSize().width() != m_list->width())
            m_listScroll->updateGeometry();
        return false;
    }
    if (e->type() == QEvent::KeyPress) {
        const int key = static_cast<QKeyEvent*>(e)->key();
        if (key == Qt::Key_Up || key == Qt::Key_Down) {
            step(key == Qt::Key_Up ? -1 : 1);
            return true;
        }
    }
    return QWidget::eventFilter(watched, e);
}

void SchemePicker::keepFormulaInView()
{
    // The name and the formula always show; the summary, axes and citation below them may scroll.
    const int w = m_scroll->viewport()->width();
    if (w <= 0)
        return;
    // At most a quarter of the screen, so that a large font scale cannot push the window past the screen.
    const int cap = screen() ? screen()->availableGeometry().height() / 4 : 190;
    const int formula = m_formulaScroll->isHidden() ? 0 : m_infoLayout->spacing() + m_formulaScroll->maximumHeight();
    const int need = std::min(cap, m_info->heightForWidth(w) + formula);
    if (need > 0 && need != m_scroll->minimumHeight())
        m_scroll->setMinimumHeight(need);
}

void SchemePicker::arrangeLines(bool stacked)
{
    m_stacked = stacked;
    auto* grid = static_cast<QGridLayout*>(m_list->layout());
    for (const auto& [label, box] : m_lines) {
        grid->removeWidget(label);
        grid->removeWidget(box);
    }
    int row = 0;
    for (const auto& [label, box] : m_lines) {
        label->setAlignment((stacked ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter);
        if (stacked) {
            grid->addWidget(label, row++, 0, 1, 2);
            grid->addWidget(box, row++, 0, 1, 2);
        } else {
            grid->addWidget(label, row, 0);
            grid->addWidget(box, row++, 1);
        }
    }
    grid->setColumnStretch(0, 0);
    grid->setColumnStretch(1, 1);
    if (m_listScroll)
        m_listScroll->updateGeometry();
}

void SchemePicker::showFormula()
{
    if (!m_scroll)
        return;
    const auto showPlain = [this] {
        if (!m_formula->pixmap().isNull() || m_formula->text() != m_formulaText)
            m_formula->setText(m_formulaText);
        m_formulaShown.clear();
        m_formulaScroll->setFixedHeight(m_formula->heightForWidth(m_scroll->viewport()->width()));
    };
    if (m_formulaTex.isEmpty())
        return showPlain();
    const Formula formula(m_formulaTex);
    if (!formula.isValid())
        return showPlain();
    // The TeX at the body text's size, shrunk to fit where the panel is narrower. The width leaves room for a
    // vertical scroll bar whether or not one shows, so that the bar coming or going cannot change the size.
    const int room = m_scroll->width() - 2 * m_scroll->frameWidth() - style()->pixelMetric(QStyle::PM_ScrollBarExtent)
        - 2 * m_formula->margin() - 2 * m_formula->frameWidth();
    const double em = QFontInfo(font()).pixelSize();
    const double natural = formula.size(em).width();
    const double fit = room > 0 && natural > room ? std::max(minFormulaScale, room / natural) * em : em;
    // The theme's text colour (the picker's palette is the theme's by the time its PaletteChange arrives; the
    // label's may still be the old one), on the theme's base (the box's background role).
    const QColor ink = palette().color(QPalette::Text);
    const QString key = m_formulaTex + QLatin1Char('|') + ink.name() + QLatin1Char('|') + QString::number(fit)
        + QLatin1Char('|') + QString::number(devicePixelRatioF());
    if (key != m_formulaShown) {
        m_formulaShown = key;
        m_formula->setPixmap(QPixmap::fromImage(formula.image(fit, ink, devicePixelRatioF())));
    }
    const QSize hint = m_formula->sizeHint();
    const bool sideways = hint.width() > m_scroll->viewport()->width();
    m_formulaScroll->setFixedHeight(hint.height()
                                    + (sideways ? m_formulaScroll->horizontalScrollBar()->sizeHint().height() : 0));
}

void SchemePicker::changeEvent(QEvent* e)
{
    QWidget::changeEvent(e);
    if (e->type() == QEvent::FontChange) {
        // Headings are a fixed step above the body text at every font scale.
        QFont title = font();
        title.setBold(true);
        title.setPointSizeF(font().pointSizeF() * 1.2);
        m_info->setFont(title);
        QFont mono = font();
        mono.setFamily(QStringLiteral("monospace"));
        mono.setStyleHint(QFont::Monospace);
        m_formula->setFont(mono);
    }
    if (e->type() == QEvent::PaletteChange || e->type() == QEvent::FontChange) {
        showFormula();
        keepFormulaInView();
    }
    if (e->type() == QEvent::FontChange)
        emit roomChanged();
}

void SchemePicker::showEvent(QShowEvent* e)
{
    QWidget::showEvent(e);
    if (!e->spontaneous())
        emit roomChanged();
}

void SchemePicker::syncSelection()
{
    if (QAbstractButton* b = button(m_state->schemeId()))
        b->setChecked(true);
    if (const int at = m_compactPicker->findData(m_state->schemeId(), Qt::UserRole); at >= 0) {
        const QSignalBlocker block(m_compactPicker);
        m_compactPicker->setCurrentIndex(at);
    }
    const auto& s = m_state->scheme();
    auto esc = [](const std::string& t) { return QString::fromStdString(t).toHtmlEscaped(); };
    m_info->setText(esc(s.name));
    m_formulaText = QString::fromStdString(s.formula);
    m_formulaTex = schemeFormulaTex(m_state->schemeId());
    m_formula->setToolTip(m_formulaText);
    m_formula->setAccessibleName(m_formulaText);
    showFormula();
    m_details->setText(QStringLiteral("<p>%7</p>"
                                      "<p><b>%1</b> %2</p>"
                                      "<p><b>%3</b> %4</p>"
                                      "<p><b>%5</b> <span style='font-family:monospace'>%6</span></p>")
                           .arg(tr("Axes:"), axes(s), tr("Paper:"), esc(s.citation), tr("Reference code:"),
                                // Long repository paths and function names may break after / . _ instead
                                // of pushing the whole panel wider than its dock.
                                esc(s.reference)
                                    .replace(QLatin1Char('/'), QStringLiteral("/\u200b"))
                                    .replace(QLatin1Char('.'), QStringLiteral(".\u200b"))
                                    .replace(QLatin1Char('_'), QStringLiteral("_\u200b")),
                                esc(s.summary)));
    keepFormulaInView();
}

} // namespace poslab::ui
