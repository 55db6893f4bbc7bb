// SPDX-License-Identifier: MIT
#include "ui/lessons/lesson.h"

#include "core/errors.h"
#include "ui/lessons/derivation.h"
#include "ui/lessons/lessonreader.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QRegularExpression>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

namespace poslab::lessons {

using core::InputError;
using detail::Reader;

namespace {

Step readStep(Reader& r, const QJsonValue& v, int lessonNumber, int position)
{
    const QJsonObject o = r.object(v, QStringLiteral("step"));
    Step s;
    {
        auto scope = r.enter(QStringLiteral("step %1").arg(position + 1));
        s.id = r.string(o, "id", true);
        static const QRegularExpression idForm(QStringLiteral("^(\\d+)\\.(\\d+)$"));
        const auto m = idForm.match(s.id);
        if (!m.hasMatch() || m.captured(1).toInt() != lessonNumber)
            r.fail(QStringLiteral("\"id\" '%1' must be \"%2.N\" (LESSON.STEP)").arg(s.id).arg(lessonNumber));
    }
    auto scope = r.enter(QStringLiteral("step ") + s.id);
    r.knownKeys(o,
                {"id", "title", "text", "formula", "formula_reveals", "state", "views", "knobs", "do", "actions",
                 "predict", "notice", "derivation", "hide"});
    s.title = r.string(o, "title", true);
    s.derivation = r.string(o, "derivation", o.contains("derivation")); // present: a non-empty id
    if (!s.derivation.isEmpty() && !findDerivation(s.derivation))
        r.fail(
            QStringLiteral("\"derivation\": no derivation page '%1' (known: %2)")
                .arg(s.derivation,
                     derivationIds().isEmpty() ? QStringLiteral("none") : derivationIds().join(QStringLiteral(", "))));
    s.text = r.string(o, "text", true);
    s.formula = r.string(o, "formula", false);
    if (o.contains("formula_reveals")) {
        if (!o.value("formula_reveals").isBool())
            r.fail(QStringLiteral("\"formula_reveals\" must be true or false"));
        s.formulaReveals = o.value("formula_reveals").toBool();
    }
    s.doText = r.string(o, "do", false);
    if (!o.contains("state"))
        r.fail(QStringLiteral("\"state\" is missing (give {} to keep the previous step's)"));
    s.state = r.object(o.value("state"), QStringLiteral("state"));
    for (const char* key : {"params", "view"})
        if (s.state.contains(QLatin1String(key)) && !s.state.value(QLatin1String(key)).isObject())
            r.fail(QStringLiteral("\"state\": \"%1\" must be an object").arg(QLatin1String(key)));
    if (s.state.contains("scheme") && !s.state.value("scheme").isString())
        r.fail(QStringLiteral("\"state\": \"scheme\" must be a string"));
    s.views = r.stringList(o, "views", true, 1);
    s.knobs = r.stringList(o, "knobs", false);
    if (o.contains("notice")) {
        if (!o.value("notice").isArray())
            r.fail(QStringLiteral("\"notice\" must be a list of notices"));
        std::set<QString> ids;
        for (const QJsonValue& n : o.value("notice").toArray()) {
            s.notice << detail::readNotice(r, n);
            if (!ids.insert(s.notice.last().id).second)
                r.fail(QStringLiteral("notice id '%1' is used twice").arg(s.notice.last().id));
        }
    }
    if (o.contains("predict"))
        s.predict = detail::readPredict(r, o.value("predict"), s);
    if (o.contains("hide")) {
        s.hide = detail::readHide(r, o.value("hide"));
        if (!s.predict)
            r.fail(QStringLiteral("\"hide\" hides the answer to a prediction; the step has none"));
    }
    if (s.formulaReveals && (!s.predict || s.formula.isEmpty()))
        r.fail(QStringLiteral("\"formula_reveals\" needs a formula and a prediction"));
    detail::checkLiveText(r, s.text, "text", -1, &s);
    detail::checkLiveText(r, s.doText, "do", -1, &s);
    if (o.contains("actions")) {
        if (!o.value("actions").isArray() || o.value("actions").toArray().isEmpty())
            r.fail(QStringLiteral("\"actions\" must be a non-empty list of actions"));
        if (s.doText.isEmpty())
            r.fail(QStringLiteral("\"actions\" belong to a \"do\" line; the step has none"));
        const QJsonArray a = o.value("actions").toArray();
        for (int i = 0; i < a.size(); ++i) {
            auto sc = r.enter(QStringLiteral("actions[%1]").arg(i));
            s.actions << detail::readAction(r, a[i], s);
        }
    }
    return s;
}

} // namespace
Notice parseNotice(const QJsonValue& value, const QString& where)
{
    Reader r(where);
    return detail::readNotice(r, value);
}

void checkStepText(const QString& text, const Step& step, const QString& where, const char* field)
{
    Reader r(where);
    detail::checkLiveText(r, text, field, -1, &step);
}

QString Action::describe() const
{
    switch (kind) {
    case Kind::Set:
        return QStringLiteral("set %1 to %2")
            .arg(target,
                 value.isString()     ? value.toString()
                     : value.isBool() ? (value.toBool() ? QStringLiteral("true") : QStringLiteral("false"))
                                      : QString::number(value.toDouble(), 'g', 17));
    case Kind::Step: return QStringLiteral("step %1 by %2").arg(target).arg(by);
    case Kind::Hover:
        return QStringLiteral("hover %1%2 %3")
            .arg(target, sideB ? QStringLiteral(" (B)") : QString(),
                 at ? QStringLiteral("at %1").arg(*at) : QStringLiteral("row %1 column %2").arg(row).arg(column));
    case Kind::Probe: return QStringLiteral("run the probes of notice %1").arg(target);
    case Kind::Show: return QStringLiteral("show %1").arg(target);
    case Kind::Select:
        if (token >= 0)
            return QStringLiteral("select token %1 of %2 by %3")
                .arg(token)
                .arg(target, byKeys ? QStringLiteral("keys") : QStringLiteral("click"));
        return QStringLiteral("select patch row %1 column %2 of %3 by %4")
            .arg(row)
            .arg(column)
            .arg(target, byKeys ? QStringLiteral("keys") : QStringLiteral("click"));
    case Kind::Read: break;
    }
    return QStringLiteral("read %1").arg(target);
}

bool Probe::isSlice() const
{
    return std::any_of(at.begin(), at.end(), [](const ProbeIndex& i) { return i.all; });
}

QList<const Probe*> Notice::probes() const
{
    QList<const Probe*> out;
    detail::collectProbes(check, out);
    return out;
}

const Notice* Step::findNotice(const QString& id) const
{
    for (const Notice& n : notice)
        if (n.id == id)
            return &n;
    return nullptr;
}

bool Puzzle::accepts(const QString& given) const
{
    const QString g = given.simplified();
    if (kind == QLatin1String("number")) {
        bool ok = false;
        const double x = g.toDouble(&ok);
        if (!ok || !std::isfinite(x))
            return false;
        if (from && below)
            return *from <= x && x < *below;
        if (absolute)
            return std::abs(x - answerNumber) <= *absolute;
        return std::abs(x - answerNumber) <= relative.value_or(1e-9) * std::abs(answerNumber);
    }
    if (kind == QLatin1String("choice")) {
        bool ok = false;
        const int i = g.toInt(&ok);
        return (ok && i == answerChoice)
            || (answerChoice >= 0 && g.compare(choices.value(answerChoice).simplified(), Qt::CaseInsensitive) == 0);
    }
    return std::any_of(answerTexts.begin(), answerTexts.end(),
                       [&](const QString& a) { return g.compare(a.simplified(), Qt::CaseInsensitive) == 0; });
}

GuessVerdict judgeGuess(double guess, double answer, int digits)
{
    if (!std::isfinite(guess) || !std::isfinite(answer))
        return GuessVerdict::Wrong;
    const double off = std::abs(guess - answer);
    if (answer == 0)
        return off == 0 ? GuessVerdict::Right : off <= 0.05 ? GuessVerdict::Close : GuessVerdict::Wrong;
    // Half a unit of the last digit shown: the guess reads as the answer at that many significant digits.
    const double lastDigit = std::pow(10.0, std::floor(std::log10(std::abs(answer))) - (std::max(1, digits) - 1));
    if (off <= 0.5 * lastDigit * (1 + 1e-12))
        return GuessVerdict::Right;
    return off <= 0.1 * std::abs(answer) ? GuessVerdict::Close : GuessVerdict::Wrong;
}

QString verdictName(GuessVerdict v)
{
    switch (v) {
    case GuessVerdict::Right: return QStringLiteral("right");
    case GuessVerdict::Close: return QStringLiteral("close");
    case GuessVerdict::Wrong: break;
    }
    return QStringLiteral("wrong");
}

QString Puzzle::answerText() const
{
    if (kind == QLatin1String("number")) {
        char buf[64];
        const auto res = std::to_chars(buf, buf + sizeof buf, answerNumber); // shortest exact form
        return QString::fromLatin1(buf, int(res.ptr - buf));
    }
    if (kind == QLatin1String("choice"))
        return QString::number(answerChoice);
    return answerTexts.value(0);
}

QList<TextPart> textParts(const QString& text)
{
    static const QRegularExpression live(QStringLiteral("\\{v:(?:([^}.]+)\\.)?(\\d+)\\}|\\{p:([^}]+)\\}"));
    QList<TextPart> parts;
    auto plain = [&](const QString& t) {
        if (t.isEmpty())
            return;
        if (!parts.isEmpty() && parts.last().kind == TextPart::Kind::Text)
            parts.last().text += t;
        else
            parts << TextPart{TextPart::Kind::Text, t, {}, 0};
    };
    qsizetype last = 0;
    for (auto it = live.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        plain(text.mid(last, m.capturedStart() - last));
        if (m.capturedLength(3) > 0)
            parts << TextPart{TextPart::Kind::Field, m.captured(3), {}, 0};
        else
            parts << TextPart{TextPart::Kind::Value, m.captured(0), m.captured(1), m.captured(2).toInt()};
        last = m.capturedEnd();
    }
    plain(text.mid(last));
    return parts;
}

Lesson parseLesson(const QByteArray& bytes, const QString& fileName)
{
    Reader r(fileName);
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &pe);
    if (pe.error != QJsonParseError::NoError)
        r.fail(QStringLiteral("not valid JSON at byte %1: %2").arg(pe.offset).arg(pe.errorString()));
    if (!doc.isObject())
        r.fail(QStringLiteral("a lesson file holds one JSON object"));
    const QJsonObject o = doc.object();
    r.knownKeys(
        o, {"format", "version", "number", "title", "objective", "resolves", "steps", "puzzle", "sources", "verify"});
    if (o.value("format") != QJsonValue(QStringLiteral("poslab-lesson")))
        r.fail(QStringLiteral("\"format\" must be \"poslab-lesson\""));
    if (o.value("version") != QJsonValue(1))
        r.fail(QStringLiteral("\"version\" must be 1 (the version this PosLab reads)"));
    Lesson l;
    l.file = fileName;
    l.number = r.integer(o.value("number"), QStringLiteral("number"), 1, 99);
    l.title = r.string(o, "title", true);
    l.objective = r.string(o, "objective", true);
    l.resolves = r.stringList(o, "resolves", false);
    l.sources = r.stringList(o, "sources", true, 1);
    if (!o.value("steps").isArray() || o.value("steps").toArray().isEmpty())
        r.fail(QStringLiteral("\"steps\" must be a non-empty list of steps"));
    std::set<QString> ids;
    const QJsonArray steps = o.value("steps").toArray();
    for (int i = 0; i < steps.size(); ++i) {
        l.steps << readStep(r, steps[i], l.number, i);
        if (!ids.insert(l.steps.last().id).second)
            r.fail(QStringLiteral("step id '%1' is used twice").arg(l.steps.last().id));
    }
    // A hover must point inside what the step shows: a cell within its positions, a pair within dim / 2.
    for (int i = 0; i < l.steps.size(); ++i) {
        const QJsonObject state = stepState(l, i);
        const int positions = state.value("positions").toInt(1024), pairs = state.value("dim").toInt(128) / 2;
        if (l.steps[i].hide) {
            auto sc = r.enter(QStringLiteral("step %1: hide").arg(l.steps[i].id));
            detail::checkHide(r, *l.steps[i].hide, state);
        }
        for (int k = 0; k < l.steps[i].actions.size(); ++k) {
            const Action& a = l.steps[i].actions[k];
            auto sc = r.enter(QStringLiteral("step %1: actions[%2]").arg(l.steps[i].id).arg(k));
            if (a.kind != Action::Kind::Hover)
                continue;
            if (a.row >= positions || a.column >= positions)
                r.fail(QStringLiteral("hover row %1 column %2 lies outside the step's %3 positions")
                           .arg(a.row)
                           .arg(a.column)
                           .arg(positions));
            if (a.target == QLatin1String("extension") && !(*a.at >= 0 && *a.at < pairs && *a.at == std::floor(*a.at)))
                r.fail(QStringLiteral("hover at pair %1: the step's dim has pairs 0 to %2").arg(*a.at).arg(pairs - 1));
        }
    }
    if (o.contains("puzzle"))
        l.puzzle = detail::readPuzzle(r, o.value("puzzle"));
    if (o.contains("verify")) {
        auto scope = r.enter(QStringLiteral("verify"));
        if (!o.value("verify").isArray())
            r.fail(QStringLiteral("\"verify\" must be a list of {\"item\", \"finding\", \"source\"}"));
        for (const QJsonValue& item : o.value("verify").toArray()) {
            const QJsonObject it = r.object(item, QStringLiteral("verify"));
            r.knownKeys(it, {"item", "finding", "source"});
            r.string(it, "item", true);
            r.string(it, "finding", true);
            r.string(it, "source", true);
        }
        l.verify = o.value("verify").toArray();
    }
    return l;
}

Lesson readLessonFile(const QString& path)
{
    QFile f(path);
    const QString name = path.section(QLatin1Char('/'), -1);
    if (!f.open(QIODevice::ReadOnly))
        throw InputError((name + QStringLiteral(": cannot be read: ") + f.errorString()).toStdString());
    // A lesson is text of a few dozen KiB; refuse anything that could not be one before reading it whole.
    constexpr qint64 maxLessonBytes = 4 << 20;
    if (f.size() > maxLessonBytes)
        throw InputError(
            (name + QStringLiteral(": %1 bytes; a lesson file is at most 4 MiB").arg(f.size())).toStdString());
    return parseLesson(f.readAll(), name);
}

namespace {

struct Store {
    QList<Lesson> lessons;
    QStringList problems;
};

const Store& store()
{
    static const Store s = [] {
        Store st;
        const QDir dir(QStringLiteral(":/lessons"));
        for (const QString& name : dir.entryList({QStringLiteral("L*.json")}, QDir::Files, QDir::Name)) {
            try {
                Lesson l = readLessonFile(dir.filePath(name));
                if (name != QStringLiteral("L%1.json").arg(l.number, 2, 10, QLatin1Char('0')))
                    st.problems << name + QStringLiteral(": its number %1 differs from the file name").arg(l.number);
                else if (std::any_of(st.lessons.begin(), st.lessons.end(),
                                     [&](const Lesson& x) { return x.number == l.number; }))
                    st.problems << name + QStringLiteral(": lesson %1 is given twice").arg(l.number);
                else
                    st.lessons << std::move(l);
            } catch (const std::exception& e) {
                st.problems << QString::fromStdString(e.what());
            }
        }
        std::sort(st.lessons.begin(), st.lessons.end(),
                  [](const Lesson& a, const Lesson& b) { return a.number < b.number; });
        st.problems << derivationLoadProblems(); // a page that does not read cannot be checked with its lessons
        return st;
    }();
    return s;
}

} // namespace

const QList<Lesson>& lessons()
{
    return store().lessons;
}

const QStringList& lessonLoadProblems()
{
    return store().problems;
}

const Lesson* findLesson(int number)
{
    for (const Lesson& l : lessons())
        if (l.number == number)
            return &l;
    return nullptr;
}

const Step* findStep(const QString& id, const Lesson** lesson, int* index)
{
    for (const Lesson& l : lessons()) {
        for (int i = 0; i < l.steps.size(); ++i) {
            if (l.steps[i].id != id)
                continue;
            if (lesson)
                *lesson = &l;
            if (index)
                *index = i;
            return &l.steps[i];
        }
    }
    return nullptr;
}

QJsonObject mergeState(const QJsonObject& base, const QJsonObject& partial)
{
    QJsonObject out = base;
    // A new scheme drops the old scheme's params first, so that the step's own params (if any) apply to it.
    if (partial.contains("scheme") && partial.value("scheme") != base.value("scheme"))
        out.remove(QStringLiteral("params"));
    for (auto it = partial.begin(); it != partial.end(); ++it) {
        if ((it.key() == QLatin1String("params") || it.key() == QLatin1String("view")) && it.value().isObject()) {
            QJsonObject merged = out.value(it.key()).toObject();
            const QJsonObject add = it.value().toObject();
            for (auto a = add.begin(); a != add.end(); ++a)
                merged.insert(a.key(), a.value());
            out.insert(it.key(), merged);
        } else {
            out.insert(it.key(), it.value());
        }
    }
    return out;
}

QJsonObject stepState(const Lesson& lesson, int index)
{
    QJsonObject state;
    for (int i = 0; i <= index && i < lesson.steps.size(); ++i)
        state = mergeState(state, lesson.steps[i].state);
    if (!state.contains("version"))
        state.insert(QStringLiteral("version"), 2);
    return state;
}

} // namespace poslab::lessons
