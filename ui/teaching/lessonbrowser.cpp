// SPDX-License-Identifier: MIT
#include "ui/teaching/lessonbrowser.h"

#include "ui/teaching/derivationpage.h"
#include "ui/lessons/derivation.h"

#include "ui/views/flowlayout.h"
#include "ui/setup/typedtext.h"
#include "ui/teaching/lessonformula.h"
#include "ui/state/viewproperties.h"
#include "ui/state/workbenchstate.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QCursor>
#include <QEvent>
#include <QFontDatabase>
#include <QFontInfo>
#include <QPainter>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QStyleOptionComboBox>
#include <QStylePainter>
#include <QSettings>
#include <QTextDocumentFragment>
#include <QToolTip>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace poslab::ui {
namespace {

QString doneKey(const lessons::Lesson& l)
{
    return QStringLiteral("lessons/done/") + l.file;
}

/// The item data role of a lesson's shorter names, longest first ("Lesson 2 (0/5)", "Lesson 2", "2").
constexpr int shortNamesRole = Qt::UserRole + 1;

/// The lesson list: the popup lists every lesson's whole name; the closed box shows the current lesson's whole
/// name where it fits, else the longest of its shorter names that does (never a name cut at the edge). The step's
/// title below names the lesson's number again.
class LessonList : public QComboBox {
public:
    using QComboBox::QComboBox;

    /// The name the closed box shows at its current width (also kept in the property "shownText").
    QString shownText() const
    {
        QStyleOptionComboBox opt;
        initStyleOption(&opt);
        const int room
            = style()->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, this).width() - 2;
        const QStringList names = QStringList{currentText()} + currentData(shortNamesRole).toStringList();
        for (const QString& n : names)
            if (fontMetrics().horizontalAdvance(n) <= room)
                return n;
        return names.back();
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QStylePainter p(this);
        QStyleOptionComboBox opt;
        initStyleOption(&opt);
        opt.currentText = shownText();
        setProperty("shownText", opt.currentText);
        p.drawComplexControl(QStyle::CC_ComboBox, opt);
        p.drawControl(QStyle::CE_ComboBoxLabel, opt);
    }
};

} // namespace

QLabel* LessonBrowser::wrappedLabel(QWidget* parent, const char* name)
{
    auto* l = new QLabel(parent);
    l->setObjectName(QLatin1String(name));
    l->setWordWrap(true);
    l->setTextFormat(Qt::RichText);
    // The dock's width decides, never the label's guess of a good width (the dock is narrow at font scale 2).
    QSizePolicy p(QSizePolicy::Ignored, QSizePolicy::Preferred);
    p.setHeightForWidth(true);
    l->setSizePolicy(p);
    return l;
}

LessonBrowser::LessonBrowser(WorkbenchState* state, QWidget* parent)
    : QWidget(parent)
    , m_state(state)
    , m_engine(std::make_unique<lessons::ClaimEngine>())
{
    setObjectName(QStringLiteral("lessonBrowser"));
    build();
    refreshList();
    connect(m_state, &WorkbenchState::setupChanged, this, &LessonBrowser::refreshLive);
    connect(m_state, &WorkbenchState::cursorChanged, this, &LessonBrowser::refreshLive);
    connect(m_state, &WorkbenchState::viewOptionsChanged, this, &LessonBrowser::refreshLive);
    if (!lessonList().isEmpty())
        open(0);
    else
        showStep();
}

const QList<lessons::Lesson>& LessonBrowser::lessonList() const
{
    return lessons::lessons();
}

int LessonBrowser::stepCount() const
{
    const lessons::Lesson* l = lesson();
    return l ? int(l->steps.size()) : 0;
}

const lessons::Lesson* LessonBrowser::lesson() const
{
    return m_lesson >= 0 && m_lesson < lessonList().size() ? &lessonList()[m_lesson] : nullptr;
}

const lessons::Step* LessonBrowser::step() const
{
    const lessons::Lesson* l = lesson();
    return l && m_step >= 0 && m_step < l->steps.size() ? &l->steps[m_step] : nullptr;
}

void LessonBrowser::build()
{
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(6, 6, 6, 6);
    m_list = new LessonList(this);
    m_list->setObjectName(QStringLiteral("lessonList"));
    m_list->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_list->setMinimumContentsLength(8); // narrow enough that the window fits 1366 px at font scale 2
    m_list->setToolTip(tr("The lessons; in brackets the steps you have tried"));
    column->addWidget(m_list);
    connect(m_list, &QComboBox::activated, this, [this](int i) { open(i); });

    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff); // text wraps, a wide formula shrinks
    scroll->setFrameShape(QFrame::NoFrame);
    auto* page = new QWidget(scroll);
    auto* body = new QVBoxLayout(page);
    body->setContentsMargins(0, 0, 4, 0);
    buildStepText(page, body);
    buildPredict(page, body);
    buildActions(page, body);
    m_notices = new QGroupBox(tr("Notice"), page);
    m_notices->setObjectName(QStringLiteral("lessonNotices"));
    m_noticeBox = new QVBoxLayout(m_notices);
    body->addWidget(m_notices);

    buildPuzzle(page, body);
    body->addStretch(1);
    scroll->setWidget(page);
    column->addWidget(scroll, 1);

    buildNavigation(column);
    connectLinks();
}

void LessonBrowser::buildStepText(QWidget* page, QVBoxLayout* body)
{
    m_title = wrappedLabel(page, "lessonStepTitle"); // bold, at a size fitTitle() chooses
    m_text = wrappedLabel(page, "lessonStepText");
    m_formulaBox = new QVBoxLayout;
    m_do = wrappedLabel(page, "lessonDo");
    body->addWidget(m_title);
    body->addWidget(m_text);
    body->addLayout(m_formulaBox);
    body->addWidget(m_do);
}

void LessonBrowser::buildPredict(QWidget* page, QVBoxLayout* body)
{
    // Predict, then reveal: the guess is committed before Try it loads the state.
    m_predict = new QGroupBox(tr("Predict first"), page);
    m_predict->setObjectName(QStringLiteral("lessonPredict"));
    auto* pbox = new QVBoxLayout(m_predict);
    m_predictPrompt = wrappedLabel(m_predict, "predictPrompt");
    m_guess = new QLineEdit(m_predict);
    m_guess->setObjectName(QStringLiteral("predictGuess"));
    m_guess->setPlaceholderText(tr("your guess, a number"));
    m_choices = new QWidget(m_predict);
    auto* cbox = new QVBoxLayout(m_choices);
    cbox->setContentsMargins(0, 0, 0, 0);
    m_choiceGroup = new QButtonGroup(this);
    m_commit = new QPushButton(tr("Commit"), m_predict);
    m_commit->setToolTip(tr("Commit the guess; then Try it shows the answer"));
    m_commit->setObjectName(QStringLiteral("predictCommit"));
    m_reveal = wrappedLabel(m_predict, "predictReveal");
    pbox->addWidget(m_predictPrompt);
    pbox->addWidget(m_guess);
    pbox->addWidget(m_choices);
    pbox->addWidget(m_commit);
    pbox->addWidget(m_reveal);
    body->addWidget(m_predict);
    auto commit = [this] {
        const QString guess = m_guess->isVisible()
            ? m_guess->text()
            : (m_choiceGroup->checkedId() >= 0 ? QString::number(m_choiceGroup->checkedId()) : QString());
        if (const QString problem = commitGuess(guess); !problem.isEmpty())
            emit message(problem, true);
    };
    connect(m_commit, &QPushButton::clicked, this, commit);
    connect(m_guess, &QLineEdit::returnPressed, this, commit);
}

void LessonBrowser::buildActions(QWidget* page, QVBoxLayout* body)
{
    auto* actionRow = new QWidget(page);
    auto* actions = new FlowLayout(actionRow, 6); // the buttons wrap in a narrow dock
    actions->setContentsMargins(0, 0, 0, 0);
    m_try = new QPushButton(tr("Try it"), page);
    m_try->setObjectName(QStringLiteral("lessonTry"));
    m_try->setToolTip(tr("Load this step's state and views (one undo step)"));
    m_free = new QPushButton(tr("Free play"), page);
    m_free->setObjectName(QStringLiteral("lessonFreePlay"));
    m_free->setToolTip(tr("Unlock every knob, from the same state"));
    m_derivation = new QPushButton(page);
    m_derivation->setObjectName(QStringLiteral("lessonDerivation"));
    actions->addWidget(m_try);
    actions->addWidget(m_free);
    actions->addWidget(m_derivation);
    body->addWidget(actionRow);
    connect(m_derivation, &QPushButton::clicked, this, [this] {
        if (const lessons::Step* s = step(); s && !s->derivation.isEmpty() && !needsGuess())
            DerivationPage::open(s->derivation, this, s->id);
    });
    connect(m_try, &QPushButton::clicked, this, [this] { tryIt(); });
    connect(m_free, &QPushButton::clicked, this, &LessonBrowser::freePlay);
}

void LessonBrowser::buildPuzzle(QWidget* page, QVBoxLayout* body)
{
    m_puzzle = new QGroupBox(tr("Puzzle"), page);
    m_puzzle->setObjectName(QStringLiteral("lessonPuzzle"));
    auto* zbox = new QVBoxLayout(m_puzzle);
    m_puzzlePrompt = wrappedLabel(m_puzzle, "puzzlePrompt");
    m_answer = new QLineEdit(m_puzzle);
    m_answer->setObjectName(QStringLiteral("puzzleAnswer"));
    m_answerChoice = new QComboBox(m_puzzle);
    m_answerChoice->setObjectName(QStringLiteral("puzzleChoice"));
    m_check = new QPushButton(tr("Check"), m_puzzle);
    m_check->setToolTip(tr("Check the answer with the app"));
    m_check->setObjectName(QStringLiteral("puzzleCheck"));
    m_verdict = wrappedLabel(m_puzzle, "puzzleVerdict");
    zbox->addWidget(m_puzzlePrompt);
    zbox->addWidget(m_answer);
    zbox->addWidget(m_answerChoice);
    zbox->addWidget(m_check);
    zbox->addWidget(m_verdict);
    body->addWidget(m_puzzle);
    auto check = [this] {
        answerPuzzle(m_answerChoice->isVisible() ? QString::number(m_answerChoice->currentIndex()) : m_answer->text());
    };
    connect(m_check, &QPushButton::clicked, this, check);
    connect(m_answer, &QLineEdit::returnPressed, this, check);
}

void LessonBrowser::buildNavigation(QVBoxLayout* column)
{
    auto* nav = new QHBoxLayout;
    m_back = new QPushButton(tr("\u25c0 Back"), this);
    m_back->setObjectName(QStringLiteral("lessonBack"));
    m_next = new QPushButton(tr("Next \u25b6"), this);
    m_next->setObjectName(QStringLiteral("lessonNext"));
    m_position = new QLabel(this);
    m_position->setObjectName(QStringLiteral("lessonPosition"));
    m_position->setAlignment(Qt::AlignCenter);
    m_position->setTextFormat(Qt::PlainText);
    m_position->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // gives way to Back and Next
    // The counter's own line above Back and Next, where not even "2/5" fits between them (placePosition()).
    m_positionLine = new QLabel(this);
    m_positionLine->setObjectName(QStringLiteral("lessonPositionLine"));
    m_positionLine->setAlignment(Qt::AlignCenter);
    m_positionLine->setTextFormat(Qt::PlainText);
    m_positionLine->setWordWrap(true);
    m_positionLine->hide();
    nav->addWidget(m_back);
    nav->addWidget(m_position, 1);
    nav->addWidget(m_next);
    column->addWidget(m_positionLine);
    column->addLayout(nav);
    connect(m_back, &QPushButton::clicked, this, &LessonBrowser::back);
    connect(m_next, &QPushButton::clicked, this, &LessonBrowser::next);
}

void LessonBrowser::connectLinks()
{
    for (QLabel* l : {m_text, m_do, m_reveal, m_predictPrompt})
        connect(l, &QLabel::linkActivated, this, [this](const QString& link) {
            if (link.startsWith(QLatin1String("p:")))
                emit knobRequested(link.mid(2));
        });
    auto hover = [](const QString& link) {
        // A computed value: its command line; a knob: what a click does.
        if (link.startsWith(QLatin1String("cmd:")))
            QToolTip::showText(QCursor::pos(), QUrl::fromPercentEncoding(link.mid(4).toUtf8()));
        else if (link.startsWith(QLatin1String("p:")))
            QToolTip::showText(QCursor::pos(), tr("%1: click to go to this knob").arg(link.mid(2)));
        else
            QToolTip::hideText();
    };
    for (QLabel* l : {m_text, m_do, m_reveal, m_predictPrompt})
        connect(l, &QLabel::linkHovered, this, hover);
}

void LessonBrowser::refreshList()
{
    const int current = m_list->currentIndex();
    m_list->clear();
    for (int i = 0; i < lessonList().size(); ++i) {
        const lessons::Lesson& l = lessonList()[i];
        m_list->addItem(tr("%1 \u00b7 %2 (%3/%4)").arg(l.number).arg(l.title).arg(stepsDone(i)).arg(l.steps.size()));
        m_list->setItemData(i, l.objective, Qt::ToolTipRole);
        m_list->setItemData(i,
                            QStringList{tr("Lesson %1 (%2/%3)").arg(l.number).arg(stepsDone(i)).arg(l.steps.size()),
                                        tr("Lesson %1").arg(l.number), QString::number(l.number)},
                            shortNamesRole);
    }
    m_list->setCurrentIndex(current >= 0 ? current : m_lesson);
}

bool LessonBrowser::open(int index, int stepIndex)
{
    if (index < 0 || index >= lessonList().size())
        return false;
    const lessons::Lesson& l = lessonList()[index];
    const int last = int(l.steps.size()) - (l.puzzle ? 0 : 1);
    if (stepIndex < 0 || stepIndex > last)
        return false;
    if (index != m_lesson)
        m_guesses = QStringList(l.steps.size() + 1, QString());
    m_lesson = index;
    m_step = stepIndex;
    m_list->setCurrentIndex(index);
    showStep();
    return true;
}

bool LessonBrowser::next()
{
    const lessons::Lesson* l = lesson();
    if (!l)
        return open(0);
    const int last = int(l->steps.size()) - (l->puzzle ? 0 : 1);
    if (m_step < last)
        return open(m_lesson, m_step + 1);
    return open(m_lesson + 1, 0);
}

bool LessonBrowser::back()
{
    if (!lesson())
        return false;
    if (m_step > 0)
        return open(m_lesson, m_step - 1);
    if (m_lesson == 0)
        return false;
    const lessons::Lesson& prev = lessonList()[m_lesson - 1];
    return open(m_lesson - 1, int(prev.steps.size()) - (prev.puzzle ? 0 : 1));
}

QString LessonBrowser::tryIt()
{
    const lessons::Step* s = step();
    QString problem;
    if (!s)
        problem = tr("The puzzle keeps the last step's state: answer it, or go back");
    else if (needsGuess())
        problem = tr("Commit a guess first: predicting before looking is what makes it stick");
    if (!problem.isEmpty()) {
        emit message(problem, true);
        return problem;
    }
    QJsonObject json = lessons::stepState(*lesson(), m_step);
    // The room's look stays what the lecturer chose, unless the step itself sets it.
    QJsonObject view = json.value(QLatin1String("view")).toObject();
    for (const char* name : {"theme", "font_scale"})
        if (const ViewProperty* p = findViewProperty(QLatin1String(name)); p && !view.contains(QLatin1String(name)))
            view.insert(QLatin1String(name), propertyJson(*p, m_state->viewOptions()));
    json.insert(QLatin1String("view"), view);
    problem = m_state->fromJson(json, true);
    if (!problem.isEmpty()) {
        problem = tr("Step %1 cannot load its state: %2").arg(s->id, problem);
        emit message(problem, true);
        return problem;
    }
    markDone();
    setLock(s->knobs);
    emit viewsRequested(s->views);
    emit message(tr("Step %1 loaded (Ctrl+Z goes back)").arg(s->id), false);
    return {};
}

void LessonBrowser::freePlay()
{
    setLock(std::nullopt);
}

void LessonBrowser::setLock(const std::optional<QStringList>& unlocked)
{
    m_unlocked = unlocked;
    m_free->setEnabled(unlocked.has_value());
    emit lockChanged(unlocked);
}

bool LessonBrowser::answerPuzzle(const QString& answer, QString* msg)
{
    const lessons::Lesson* l = lesson();
    QString text;
    bool right = false;
    if (!l || !l->puzzle || !onPuzzle()) {
        text = tr("There is no puzzle on this page");
    } else if (answer.trimmed().isEmpty()) {
        text = tr("Type an answer first");
    } else {
        right = l->puzzle->accepts(answer);
        // A number within 10% of the key but outside what it accepts is close (the same rule as a guess's).
        bool ok = false;
        const double x = QLocale::c().toDouble(answer.trimmed(), &ok);
        const bool close = !right && ok && l->puzzle->kind == QLatin1String("number")
            && lessons::judgeGuess(x, l->puzzle->answerNumber, 17) == lessons::GuessVerdict::Close;
        text = right ? tr("Right. %1 Everything is unlocked now: free play.").arg(l->puzzle->explain.toHtmlEscaped())
            : close ? tr("Close, but not yet: '%1' is within 10%% of the answer. Go Back to the steps and their views, "
                         "or answer again.")
                          .arg(answer.trimmed().toHtmlEscaped())
                    : tr("Not yet: '%1' is not it. Go Back to the steps and their views, or answer again.")
                          .arg(answer.trimmed().toHtmlEscaped());
    }
    m_verdict->setText(text);
    if (right)
        freePlay();
    if (msg)
        *msg = text;
    return right;
}

int LessonBrowser::stepsDone(int index) const
{
    if (index < 0 || index >= lessonList().size())
        return 0;
    const lessons::Lesson& l = lessonList()[index];
    const QStringList done = QSettings().value(doneKey(l)).toStringList();
    int n = 0;
    for (const lessons::Step& s : l.steps)
        n += done.contains(s.id) ? 1 : 0;
    return n;
}

void LessonBrowser::markDone()
{
    const lessons::Step* s = step();
    QSettings settings;
    QStringList done = settings.value(doneKey(*lesson())).toStringList();
    if (s && !done.contains(s->id)) {
        done << s->id;
        settings.setValue(doneKey(*lesson()), done);
        refreshList();
        m_list->setCurrentIndex(m_lesson);
    }
}

QString LessonBrowser::knobValue(const QString& name) const
{
    if (name == QLatin1String("dim"))
        return QString::number(m_state->dim());
    if (name == QLatin1String("positions"))
        return QString::number(m_state->positionCount());
    if (name == QLatin1String("cursor"))
        return QString::number(m_state->cursor());
    const std::string key = name.toStdString();
    if (m_state->params().has(key))
        return typedText(m_state->params().value(key));
    if (const ViewProperty* p = findViewProperty(name))
        return propertyText(*p, m_state->viewOptions());
    return QStringLiteral("?");
}

const NoticeResult& LessonBrowser::result(const lessons::Notice& notice) const
{
    for (const auto& [n, r] : m_results)
        if (n == &notice)
            return r;
    // Computed by core through the claim engine: what `poslab compute LINE` prints, and the check's verdict.
    NoticeResult r;
    for (const lessons::ProbeValue& v : m_engine->noticeValues(notice)) {
        r.values << v.text();
        r.numbers.push_back(v.values);
    }
    for (const lessons::Probe* p : notice.probes())
        r.commands << QStringLiteral("poslab compute ") + p->compute;
    const lessons::CheckResult verdict = m_engine->check(notice.check);
    r.holds = verdict.holds;
    r.reason = verdict.reason;
    m_results.emplace_back(&notice, std::move(r));
    return m_results.back().second;
}

QString LessonBrowser::probeValue(const lessons::Notice& notice, int k) const
{
    const NoticeResult& r = result(notice);
    return k >= 0 && k < r.values.size() ? r.values[k] : QStringLiteral("?");
}

QString LessonBrowser::liveText(const QString& text, const lessons::Step* s, const lessons::Notice* notice) const
{
    // The live fields as the lesson model splits them (lessons::textParts): {p:NAME} the knob's current value,
    // {v:K} a value of this notice, {v:nID.K} a value of notice nID of the step.
    QString out;
    for (const lessons::TextPart& part : lessons::textParts(text)) {
        switch (part.kind) {
        case lessons::TextPart::Kind::Text: out += part.text.toHtmlEscaped(); break;
        case lessons::TextPart::Kind::Field:
            out += QStringLiteral("<a href=\"p:%1\">%2</a>")
                       .arg(part.text.toHtmlEscaped(), knobValue(part.text).toHtmlEscaped());
            break;
        case lessons::TextPart::Kind::Value: {
            // Before the guess of the step shown, a computed value could answer its prediction: it stays hidden.
            if (s && s == step() && needsGuess()) {
                out += QStringLiteral("<b>?</b>");
                break;
            }
            const lessons::Notice* n = part.notice.isEmpty() ? notice : (s ? s->findNotice(part.notice) : nullptr);
            if (!n) {
                out += QStringLiteral("?");
                break;
            }
            const QList<const lessons::Probe*> probes = n->probes();
            const QString line = part.probe >= 0 && part.probe < probes.size()
                ? QStringLiteral("poslab compute ") + probes[part.probe]->compute
                : QString();
            out += QStringLiteral("<a href=\"cmd:%1\"><b>%2</b></a>")
                       .arg(QString::fromUtf8(QUrl::toPercentEncoding(line)),
                            probeValue(*n, part.probe).toHtmlEscaped());
            break;
        }
        }
    }
    return out;
}

void LessonBrowser::showStep()
{
    m_results.clear();
    const lessons::Lesson* l = lesson();
    const lessons::Step* s = step();
    showFormula();
    if (!l) {
        m_title->setText(tr("No lessons in this build"));
        m_text->clear();
        m_do->clear();
        for (QWidget* w : std::initializer_list<QWidget*>{m_predict, m_notices, m_puzzle, m_try, m_free})
            w->hide();
        m_back->setEnabled(false);
        m_next->setEnabled(false);
        return;
    }
    m_try->setVisible(s);
    m_free->setVisible(true);
    m_free->setEnabled(m_unlocked.has_value());
    m_puzzle->setVisible(!s);
    if (s) {
        m_title->setText(QStringLiteral("%1 \u00b7 %2").arg(s->id, s->title.toHtmlEscaped()));
        m_positionText
            = {tr("Step %1 of %2").arg(m_step + 1).arg(stepCount()), tr("%1/%2").arg(m_step + 1).arg(stepCount())};
    } else {
        m_title->setText(tr("Lesson %1 \u00b7 puzzle").arg(l->number));
        m_positionText = {tr("Puzzle"), tr("Puzzle")};
        showPuzzle();
    }
    placePosition();
    fitTitle();
    showPredict();
    showNotices();
    refreshLive();
    m_back->setEnabled(m_step > 0 || m_lesson > 0);
    m_next->setEnabled(m_lesson + 1 < lessonList().size() || m_step < stepCount() - (l->puzzle ? 0 : 1));
    syncAnswerPending();
    emit stepShown();
}

void LessonBrowser::placePosition()
{
    // The step counter by a stated rule, never cut and never elided: "Step 2 of 5" between Back and Next where it
    // fits, else the short "2/5" there, else "Step 2 of 5" on a line of its own above them (wrapped if need be).
    const QMargins m = layout()->contentsMargins();
    const int spacing = std::max(0, layout()->spacing());
    const int room = width() - m.left() - m.right() - m_back->sizeHint().width() - m_next->sizeHint().width()
        - 2 * spacing - 2 * m_position->margin();
    const QFontMetrics fm(m_position->font());
    const auto fits = [&](const QString& t) { return !t.isEmpty() && fm.horizontalAdvance(t) <= room; };
    const QString inRow = fits(m_positionText.first) ? m_positionText.first
        : fits(m_positionText.second)                ? m_positionText.second
                                                     : QString();
    m_position->setText(inRow);
    m_position->setToolTip(m_positionText.first);
    m_positionLine->setText(inRow.isEmpty() ? m_positionText.first : QString());
    m_positionLine->setVisible(inRow.isEmpty() && !m_positionText.first.isEmpty());
}

void LessonBrowser::fitTitle()
{
    // The step's title is bold at the panel's font and wraps between words; a word wider than the panel (a long
    // word at font scale 2 in a narrow dock) makes the title's font smaller, down to 70%, until the word fits.
    QFont f = font();
    f.setBold(true);
    const int room = m_title->width() - 2 * m_title->margin();
    const QStringList words
        = QTextDocumentFragment::fromHtml(m_title->text()).toPlainText().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    const double base = f.pointSizeF();
    for (double k = 1.0; room > 0 && k > 0.69; k -= 0.05) {
        f.setPointSizeF(base * k);
        const QFontMetrics fm(f);
        if (std::all_of(words.begin(), words.end(), [&](const QString& w) { return fm.horizontalAdvance(w) <= room; }))
            break;
    }
    if (m_title->font() != f)
        m_title->setFont(f);
}

void LessonBrowser::resizeEvent(QResizeEvent* e)
{
    QWidget::resizeEvent(e);
    placePosition();
    fitTitle();
}

void LessonBrowser::showFormula()
{
    while (QLayoutItem* item = m_formulaBox->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    m_formula = nullptr;
    // A formula that answers the step's prediction waits for the guess (lessons::Step::formulaReveals).
    if (const lessons::Step* s = step(); s && !s->formula.isEmpty() && !(s->formulaReveals && needsGuess())) {
        m_formula = makeLessonFormula(s->formula, m_title->parentWidget());
        m_formulaBox->addWidget(m_formula);
    }
}

bool LessonBrowser::eventFilter(QObject* watched, QEvent* e)
{
    // A click on a choice's text checks its radio button.
    if (e->type() == QEvent::MouseButtonRelease)
        if (auto* b = qobject_cast<QRadioButton*>(watched->property("choiceButton").value<QObject*>());
            b && b->isEnabled())
            b->setChecked(true);
    return QWidget::eventFilter(watched, e);
}

void LessonBrowser::changeEvent(QEvent* e)
{
    QWidget::changeEvent(e);
    // The formula is drawn in the text colour at the text's size: a new theme or font scale draws it again.
    if ((e->type() == QEvent::PaletteChange || e->type() == QEvent::FontChange) && m_formulaBox)
        showFormula();
    if (e->type() == QEvent::FontChange && m_position) {
        placePosition();
        fitTitle();
    }
}

void LessonBrowser::refreshLive()
{
    const lessons::Step* s = step();
    m_text->setText(s ? liveText(s->text, s, nullptr) : QString());
    m_text->setVisible(s && !s->text.isEmpty());
    m_do->setText(s && !s->doText.isEmpty() ? tr("<b>Do:</b> %1").arg(liveText(s->doText, s, nullptr)) : QString());
    m_do->setVisible(s && !s->doText.isEmpty());
}

void LessonBrowser::showNotices()
{
    while (QLayoutItem* item = m_noticeBox->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    const lessons::Step* s = step();
    m_notices->setVisible(s && !s->notice.isEmpty());
    if (!s)
        return;
    if (needsGuess()) {
        // Predict, then see: the claims (and their values) wait for the guess.
        auto* label = wrappedLabel(m_notices, "noticeHidden");
        label->setText(tr("Commit your prediction first; then the claims to check appear here."));
        m_noticeBox->addWidget(label);
        return;
    }
    for (const lessons::Notice& n : s->notice) {
        const NoticeResult r = result(n); // a copy: live text below may compute more
        const QString mark = r.holds ? QStringLiteral("<span style='color:#2a9d3c'>\u2713</span>")
                                     : QStringLiteral("<span style='color:#d0302f'>\u2717</span>");
        auto* label = wrappedLabel(m_notices, "noticeLine");
        label->setText(mark + QStringLiteral(" ") + liveText(n.text, s, &n));
        const QString tip = r.commands.join(QLatin1Char('\n')) + QStringLiteral("\n") + r.reason;
        label->setToolTip(tip);
        connect(label, &QLabel::linkHovered, this, [](const QString& link) {
            if (link.startsWith(QLatin1String("cmd:")))
                QToolTip::showText(QCursor::pos(), QUrl::fromPercentEncoding(link.mid(4).toUtf8()));
        });
        m_noticeBox->addWidget(label);
    }
}

void LessonBrowser::showPuzzle()
{
    const lessons::Lesson* l = lesson();
    const bool has = l && l->puzzle;
    m_puzzle->setVisible(has);
    if (!has)
        return;
    const lessons::Puzzle& z = *l->puzzle;
    m_puzzlePrompt->setText(z.prompt.toHtmlEscaped());
    const bool choice = z.kind == QLatin1String("choice");
    m_answerChoice->clear();
    m_answerChoice->addItems(z.choices);
    m_answerChoice->setVisible(choice);
    m_answer->setVisible(!choice);
    m_answer->clear();
    m_answer->setPlaceholderText(z.kind == QLatin1String("number") ? tr("a number") : tr("your answer"));
    m_verdict->clear();
}

QStringList LessonBrowser::noticeTexts() const
{
    QStringList out;
    for (const QLabel* l : m_notices->findChildren<QLabel*>(QStringLiteral("noticeLine")))
        out << l->text();
    return out;
}

} // namespace poslab::ui
