// SPDX-License-Identifier: MIT
// The lesson browser's prediction: the guess committed (or made aloud in presentation mode), its verdict against
// the computed answer, the reveal with the sentence of why, and the prediction box the panel shows.
#include "ui/teaching/lessonbrowser.h"

#include "ui/lessons/derivation.h"
#include "ui/state/workbenchstate.h"

#include <QButtonGroup>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

#include <cmath>

namespace poslab::ui {

bool LessonBrowser::needsGuess() const
{
    const lessons::Step* s = step();
    return s && s->predict && committedGuess().isEmpty();
}

QString LessonBrowser::committedGuess() const
{
    return m_step >= 0 && m_step < m_guesses.size() ? m_guesses[m_step] : QString();
}

QString LessonBrowser::commitGuess(const QString& guess)
{
    const lessons::Step* s = step();
    if (!s || !s->predict)
        return tr("This step asks for no prediction");
    const lessons::Predict& p = *s->predict;
    const QString g = guess.trimmed();
    if (p.kind == QLatin1String("number")) {
        bool ok = false;
        const double v = QLocale::c().toDouble(g, &ok);
        if (!ok || !std::isfinite(v))
            return tr("The guess must be a number (got '%1')").arg(g);
    } else {
        bool ok = false;
        const int i = g.toInt(&ok);
        if (!ok || i < 0 || i >= p.choices.size())
            return tr("Pick one of the choices first");
    }
    m_guesses[m_step] = g;
    showFormula();
    showPredict();
    showNotices();
    refreshLive();
    syncAnswerPending();
    return {};
}

void LessonBrowser::reveal()
{
    if (!needsGuess())
        return;
    m_guesses[m_step] = QString(aloudGuess);
    showFormula();
    showPredict();
    showNotices();
    refreshLive();
    syncAnswerPending();
}

void LessonBrowser::syncAnswerPending()
{
    // The views' header and caption lines that state a computed result follow the same rule as the notices.
    m_state->setAnswerPending(m_answersShown && needsGuess(), step() ? step()->id : QString());
}

void LessonBrowser::setAnswersShown(bool shown)
{
    m_answersShown = shown;
    syncAnswerPending();
}

QString LessonBrowser::predictionAnswer() const
{
    const lessons::Step* s = step();
    if (!s || !s->predict)
        return {};
    const lessons::Predict& p = *s->predict;
    if (p.kind == QLatin1String("choice"))
        return p.answerChoice >= 0 && p.answerChoice < p.choices.size() ? p.choices[p.answerChoice] : QString();
    const lessons::Notice* n = s->findNotice(p.answerNotice);
    if (!n)
        return {};
    // As the notice shows it (54,410.1), never in the exponent form of a rounded number (5.44e+04).
    return probeValue(*n, p.answerProbe);
}

std::optional<lessons::GuessVerdict> LessonBrowser::guessVerdict() const
{
    const lessons::Step* s = step();
    const QString guess = committedGuess();
    if (!s || !s->predict || guess.isEmpty() || guess == QString(aloudGuess))
        return std::nullopt;
    const lessons::Predict& p = *s->predict;
    if (p.kind == QLatin1String("choice"))
        return guess.toInt() == p.answerChoice ? lessons::GuessVerdict::Right : lessons::GuessVerdict::Wrong;
    const lessons::Notice* n = s->findNotice(p.answerNotice);
    if (!n)
        return std::nullopt;
    const NoticeResult& r = result(*n);
    if (p.answerProbe < 0 || p.answerProbe >= int(r.numbers.size())
        || r.numbers[std::size_t(p.answerProbe)].size() != 1)
        return std::nullopt;
    return lessons::judgeGuess(QLocale::c().toDouble(guess), r.numbers[std::size_t(p.answerProbe)][0],
                               p.digits.value_or(3));
}

QString LessonBrowser::revealText() const
{
    const lessons::Step* s = step();
    const QString guess = committedGuess();
    if (!s || !s->predict || guess.isEmpty())
        return {};
    const lessons::Predict& p = *s->predict;
    const bool number = p.kind == QLatin1String("number");
    QString text;
    const std::optional<lessons::GuessVerdict> v = guessVerdict();
    const QString answer = predictionAnswer().toHtmlEscaped();
    if (!v) {
        text = tr("Predicted aloud \u00b7 the answer: <b>%1</b>").arg(answer);
    } else {
        const QString word = *v == lessons::GuessVerdict::Right ? tr("Right")
            : *v == lessons::GuessVerdict::Close                ? tr("Close")
                                                                : tr("Wrong");
        const QString colour = *v == lessons::GuessVerdict::Right ? QStringLiteral("#2a9d3c")
            : *v == lessons::GuessVerdict::Close                  ? QStringLiteral("#b7791f")
                                                                  : QStringLiteral("#d0302f");
        const QString verdict = QStringLiteral("<b style='color:%1'>%2.</b> ").arg(colour, word);
        if (number)
            text = verdict + tr("You said %1; the app computes <b>%2</b>.").arg(guess.toHtmlEscaped(), answer);
        else if (*v == lessons::GuessVerdict::Right)
            text = verdict + tr("The answer: <b>%1</b>").arg(answer);
        else
            text = verdict
                + tr("You chose \u201c%1\u201d. The answer: <b>%2</b>")
                      .arg(p.choices.value(guess.toInt()).toHtmlEscaped(), answer);
    }
    if (!p.because.isEmpty())
        text += QStringLiteral("<br>") + tr("Why: %1").arg(liveText(p.because, s, nullptr));
    if (const lessons::Notice* why = s->findNotice(p.whyNotice))
        text += QStringLiteral("<br>") + liveText(why->text, s, why);
    return text;
}

void LessonBrowser::showPredict()
{
    const lessons::Step* s = step();
    const bool asks = s && s->predict;
    m_predict->setVisible(asks);
    m_try->setEnabled(s && !needsGuess());
    m_try->setToolTip(needsGuess() ? tr("Commit a guess first")
                                   : tr("Load this step's state and views (one undo step)"));
    // The step's derivation page: the reasons behind it, open once the guess is in (it may answer the prediction).
    const lessons::Derivation* d = s && !s->derivation.isEmpty() ? lessons::findDerivation(s->derivation) : nullptr;
    m_derivation->setVisible(d);
    if (d) {
        m_derivation->setText(tr("Derivation"));
        m_derivation->setEnabled(!needsGuess());
        m_derivation->setToolTip(needsGuess() ? tr("Commit a guess first: the derivation may answer the prediction")
                                              : QStringLiteral("%1: %2").arg(d->title, d->summary));
    }
    if (!asks)
        return;
    const lessons::Predict& p = *s->predict;
    m_predictPrompt->setText(liveText(p.prompt, s, nullptr));
    const bool number = p.kind == QLatin1String("number");
    const QString guess = committedGuess();
    // The choices as radio buttons with wrapped labels (a long choice wraps in a narrow dock), made again for
    // each step; a click on the text picks it too.
    for (QAbstractButton* b : m_choiceGroup->buttons())
        m_choiceGroup->removeButton(b);
    while (QLayoutItem* item = m_choices->layout()->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    if (!number)
        for (int i = 0; i < p.choices.size(); ++i) {
            auto* row = new QWidget(m_choices);
            auto* line = new QHBoxLayout(row);
            line->setContentsMargins(0, 0, 0, 0);
            auto* b = new QRadioButton(row);
            b->setObjectName(QStringLiteral("predictChoice%1").arg(i));
            b->setChecked(guess == QString::number(i) || (guess == QString(aloudGuess) && i == p.answerChoice));
            b->setEnabled(guess.isEmpty());
            b->setAccessibleName(p.choices[i]);
            auto* text = wrappedLabel(row, "predictChoiceText");
            text->setTextFormat(Qt::PlainText);
            text->setText(p.choices[i]);
            text->setEnabled(guess.isEmpty());
            text->installEventFilter(this);
            text->setProperty("choiceButton", QVariant::fromValue(static_cast<QObject*>(b)));
            line->addWidget(b, 0, Qt::AlignTop);
            line->addWidget(text, 1);
            m_choiceGroup->addButton(b, i);
            m_choices->layout()->addWidget(row);
        }
    m_guess->setVisible(number);
    m_guess->setEnabled(guess.isEmpty());
    m_guess->setText(number ? guess : QString());
    m_choices->setVisible(!number);
    m_commit->setVisible(guess.isEmpty());
    if (guess.isEmpty()) {
        m_reveal->clear();
        m_reveal->hide();
        return;
    }
    // The verdict and the computed answer beside the guess, then the sentence of why.
    m_reveal->setText(revealText());
    m_reveal->show();
}

} // namespace poslab::ui
