// SPDX-License-Identifier: MIT
// Reading a lesson's probes, checks, notices, predictions and puzzle (FORMAT.md, "Probes" and "Checks").
#include "ui/lessons/lessonreader.h"

#include <QRegularExpression>

namespace poslab::lessons::detail {

Probe readProbe(Reader& r, const QJsonValue& v)
{
    Probe p;
    const QJsonObject o = r.object(v, QStringLiteral("probe"));
    r.knownKeys(o, {"compute", "at", "scalar", "refused"});
    p.json = o;
    p.compute = r.string(o, "compute", true);
    const int ways = int(o.contains("at")) + int(o.contains("scalar")) + int(o.contains("refused"));
    if (ways != 1)
        r.fail(QStringLiteral("a probe needs exactly one of \"at\", \"scalar\" and \"refused\""));
    if (o.contains("scalar"))
        p.scalar = r.string(o, "scalar", true);
    if (o.contains("refused"))
        p.refused = r.string(o, "refused", true);
    if (o.contains("at")) {
        if (!o.value("at").isArray() || o.value("at").toArray().isEmpty())
            r.fail(QStringLiteral("\"at\" must be a non-empty list of indices, column names or \"*\""));
        for (const QJsonValue& i : o.value("at").toArray()) {
            ProbeIndex index;
            if (i.isString()) {
                if (i.toString() == QLatin1String("*"))
                    index.all = true;
                else if (i.toString().isEmpty())
                    r.fail(QStringLiteral("\"at\": a column name must not be empty"));
                else
                    index.column = i.toString();
            } else {
                index.index = r.integer(i, QStringLiteral("at"), 0, 1 << 30);
            }
            p.at << index;
        }
    }
    return p;
}

namespace {

/// A check's probes: its "value" (one probe) or "values" (a list).
QList<Probe> readValues(Reader& r, const QJsonObject& o)
{
    if (o.contains("value") && o.contains("values"))
        r.fail(QStringLiteral("give \"value\" or \"values\", not both"));
    QList<Probe> out;
    if (o.contains("value")) {
        auto s = r.enter(QStringLiteral("value"));
        out << readProbe(r, o.value("value"));
    } else if (o.contains("values")) {
        if (!o.value("values").isArray() || o.value("values").toArray().isEmpty())
            r.fail(QStringLiteral("\"values\" must be a non-empty list of probes"));
        const QJsonArray a = o.value("values").toArray();
        for (int i = 0; i < a.size(); ++i) {
            auto s = r.enter(QStringLiteral("values[%1]").arg(i));
            out << readProbe(r, a[i]);
        }
    }
    return out;
}

/// equals, less_than and greater_than compare one probe of one number, given as "value".
void requireOneNumberProbe(Reader& r, const QJsonObject& o, const Check& c, const char* what)
{
    if (c.values.size() != 1 || !o.contains("value"))
        r.fail(QStringLiteral("%1 compares one probe: give \"value\"").arg(QLatin1String(what)));
    if (c.values[0].isRefusal() || c.values[0].isSlice())
        r.fail(
            QStringLiteral("%1 needs a probe of one number (not a slice \"*\" or a refusal)").arg(QLatin1String(what)));
}

void requireNoRefusals(Reader& r, const Check& c, const char* what)
{
    for (const Probe& p : c.values)
        if (p.isRefusal())
            r.fail(
                QStringLiteral("%1 compares numbers; a refusal probe is a check of its own").arg(QLatin1String(what)));
}

/// all_equal and order compare the values of one slice probe, or a list of one-number probes.
void requireSlicesOrList(Reader& r, const Check& c, const char* what)
{
    requireNoRefusals(r, c, what);
    const bool oneSlice = c.values.size() == 1 && c.values[0].isSlice();
    const bool list = c.values.size() >= 2
        && std::none_of(c.values.begin(), c.values.end(), [](const Probe& p) { return p.isSlice(); });
    if (!oneSlice && !list)
        r.fail(QStringLiteral(
                   "%1 needs \"values\" with at least two one-number probes, or one slice probe (\"*\") as \"value\"")
                   .arg(QLatin1String(what)));
}

// What each comparison reads besides the probes, "tol" and "digits" (@p o is the check), and what it requires of
// them.

void readEquals(Reader& r, const QJsonObject& o, Check& c)
{
    requireOneNumberProbe(r, o, c, "equals");
    c.number = r.number(o.value("equals"), QStringLiteral("equals"));
    if (c.digits.has_value() == o.contains("tol"))
        r.fail(QStringLiteral("equals needs exactly one of \"digits\" (significant digits) and \"tol\" (absolute)"));
}

void readBound(Reader& r, const QJsonObject& o, Check& c)
{
    const char* key = c.kind == Check::Kind::LessThan ? "less_than" : "greater_than";
    requireOneNumberProbe(r, o, c, key);
    c.number = r.number(o.value(QLatin1String(key)), QLatin1String(key));
    if (o.contains("tol"))
        r.fail(QStringLiteral("\"tol\" does not apply to %1").arg(QLatin1String(key)));
}

void readAllEqual(Reader& r, const QJsonObject& o, Check& c)
{
    if (o.value("all_equal") != QJsonValue(true))
        r.fail(QStringLiteral("\"all_equal\" must be true"));
    requireSlicesOrList(r, c, "all_equal");
}

void readDiffer(Reader& r, const QJsonObject& o, Check& c)
{
    if (o.value("differ") != QJsonValue(true))
        r.fail(QStringLiteral("\"differ\" must be true"));
    requireNoRefusals(r, c, "differ");
    if (c.values.size() < 2
        || std::any_of(c.values.begin(), c.values.end(), [](const Probe& p) { return p.isSlice(); }))
        r.fail(QStringLiteral("differ needs \"values\" with at least two one-number probes"));
}

void readOrder(Reader& r, const QJsonObject& o, Check& c)
{
    const QString order = o.value("order").toString();
    if (order != QLatin1String("increasing") && order != QLatin1String("decreasing"))
        r.fail(QStringLiteral("\"order\" must be \"increasing\" or \"decreasing\""));
    c.increasing = order == QLatin1String("increasing");
    requireSlicesOrList(r, c, "order");
    if (o.contains("tol"))
        r.fail(QStringLiteral("\"tol\" does not apply to order (it is strict)"));
}

void readDistinct(Reader& r, const QJsonObject& o, Check& c)
{
    c.distinct = r.integer(o.value("distinct"), QStringLiteral("distinct"), 1, 1 << 30);
    if (c.values.size() != 1 || !c.values[0].isSlice() || c.values[0].isRefusal())
        r.fail(QStringLiteral("distinct counts the values of one slice probe (\"*\" in \"at\") given as \"value\""));
}

void readAll(Reader& r, const QJsonObject& o, Check& c)
{
    if (!c.values.isEmpty() || o.contains("tol"))
        r.fail(QStringLiteral("\"all\" takes only a list of checks"));
    if (!o.value("all").isArray() || o.value("all").toArray().isEmpty())
        r.fail(QStringLiteral("\"all\" must be a non-empty list of checks"));
    const QJsonArray a = o.value("all").toArray();
    for (int i = 0; i < a.size(); ++i) {
        auto s = r.enter(QStringLiteral("all[%1]").arg(i));
        c.all << readCheck(r, a[i]);
    }
}

/// The comparisons a check may give, by their key, in the order a message lists them.
struct Comparison {
    const char* key;
    Check::Kind kind;
    void (*read)(Reader& r, const QJsonObject& o, Check& c);
};
constexpr Comparison comparisons[] = {
    {"equals", Check::Kind::Equals, readEquals},           {"less_than", Check::Kind::LessThan, readBound},
    {"greater_than", Check::Kind::GreaterThan, readBound}, {"all_equal", Check::Kind::AllEqual, readAllEqual},
    {"differ", Check::Kind::Differ, readDiffer},           {"order", Check::Kind::Order, readOrder},
    {"distinct", Check::Kind::Distinct, readDistinct},     {"all", Check::Kind::All, readAll},
};

/// A refusal probe written as the check itself: {"compute": "...", "refused": "..."}.
Check readRefusalCheck(Reader& r, const QJsonObject& o, Check c)
{
    Probe p = readProbe(r, o);
    if (!p.isRefusal())
        r.fail(QStringLiteral("a probe given as the whole check must be a refusal (\"refused\"); put a number "
                              "probe under \"value\" with equals, less_than, ..."));
    c.kind = Check::Kind::Refused;
    c.values << p;
    return c;
}

/// The check's "tol" (absolute, not negative) and "digits" (significant digits, 1 to 17).
void readTolerance(Reader& r, const QJsonObject& o, Check& c)
{
    if (o.contains("tol")) {
        c.tol = r.number(o.value("tol"), QStringLiteral("tol"));
        if (c.tol < 0)
            r.fail(QStringLiteral("\"tol\" must not be negative"));
    }
    if (o.contains("digits"))
        c.digits = r.integer(o.value("digits"), QStringLiteral("digits"), 1, 17);
}

} // namespace

Check readCheck(Reader& r, const QJsonValue& v)
{
    auto scope = r.enter(QStringLiteral("check"));
    const QJsonObject o = r.object(v, QStringLiteral("check"));
    Check c;
    c.json = o;
    if (o.contains("compute"))
        return readRefusalCheck(r, o, std::move(c));
    r.knownKeys(o,
                {"value", "values", "equals", "digits", "tol", "less_than", "greater_than", "all_equal", "differ",
                 "order", "distinct", "all"});
    const Comparison* comparison = nullptr;
    const QStringList given = keysGiven(o, comparisons, &comparison);
    if (given.size() > 1)
        r.fail(QStringLiteral("one comparison per check (got %1); combine several with \"all\"")
                   .arg(given.join(QStringLiteral(", "))));
    c.values = readValues(r, o);
    readTolerance(r, o, c);
    if (!comparison) {
        if (c.values.size() == 1 && c.values[0].isRefusal()) {
            c.kind = Check::Kind::Refused;
            return c;
        }
        r.fail(QStringLiteral("no comparison: give one of equals, less_than, greater_than, all_equal, differ, order, "
                              "distinct, all (or a refusal probe as \"value\")"));
    }
    c.kind = comparison->kind;
    if (c.digits && c.kind != Check::Kind::Equals)
        r.fail(QStringLiteral("\"digits\" applies to equals only"));
    comparison->read(r, o, c);
    return c;
}

void collectProbes(const Check& c, QList<const Probe*>& out)
{
    for (const Probe& p : c.values)
        out << &p;
    for (const Check& sub : c.all)
        collectProbes(sub, out);
}

int probeCount(const Check& c)
{
    QList<const Probe*> probes;
    collectProbes(c, probes);
    return int(probes.size());
}

void checkLiveText(Reader& r, const QString& text, const char* field, int probes, const Step* step)
{
    static const QRegularExpression live(QStringLiteral("\\{([a-z]):([^}]*)\\}"));
    for (auto it = live.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        const QString kind = m.captured(1), arg = m.captured(2);
        if (kind == QLatin1String("p")) {
            if (arg.trimmed().isEmpty())
                r.fail(QStringLiteral("\"%1\": {p:} needs a name").arg(QLatin1String(field)));
            continue;
        }
        if (kind != QLatin1String("v"))
            r.fail(QStringLiteral("\"%1\": unknown live field {%2:...} (known: {v:K}, {v:nID.K}, {p:NAME})")
                       .arg(QLatin1String(field), kind));
        QString noticeId;
        QString index = arg;
        int count = probes;
        if (probes < 0) {
            const int dot = arg.lastIndexOf(QLatin1Char('.'));
            if (dot <= 0)
                r.fail(QStringLiteral("\"%1\": {v:%2} in a step's text names a notice: {v:NOTICE.K}")
                           .arg(QLatin1String(field), arg));
            noticeId = arg.left(dot);
            index = arg.mid(dot + 1);
            const Notice* n = step ? step->findNotice(noticeId) : nullptr;
            if (!n)
                r.fail(QStringLiteral("\"%1\": {v:%2} names notice '%3', which this step does not have")
                           .arg(QLatin1String(field), arg, noticeId));
            count = probeCount(n->check);
        }
        bool ok = false;
        const int k = index.toInt(&ok);
        if (!ok || k < 0 || k >= count)
            r.fail(QStringLiteral("\"%1\": {v:%2}: the notice has %3 probe(s), numbered from 0")
                       .arg(QLatin1String(field), arg)
                       .arg(count));
    }
}

Notice readNotice(Reader& r, const QJsonValue& v)
{
    const QJsonObject o = r.object(v, QStringLiteral("notice"));
    Notice n;
    n.id = r.string(o, "id", true);
    auto scope = r.enter(QStringLiteral("notice ") + n.id);
    r.knownKeys(o, {"id", "text", "check"});
    n.text = r.string(o, "text", true);
    if (!o.contains("check"))
        r.fail(QStringLiteral("\"check\" is missing"));
    n.check = readCheck(r, o.value("check"));
    checkLiveText(r, n.text, "text", probeCount(n.check), nullptr);
    return n;
}

Predict readPredict(Reader& r, const QJsonValue& v, const Step& step)
{
    auto scope = r.enter(QStringLiteral("predict"));
    const QJsonObject o = r.object(v, QStringLiteral("predict"));
    r.knownKeys(o, {"prompt", "kind", "answer", "digits", "choices", "why", "because", "check"});
    Predict p;
    p.prompt = r.string(o, "prompt", true);
    p.because = r.string(o, "because", false);
    checkLiveText(r, p.because, "because", -1, &step);
    p.kind = r.string(o, "kind", true);
    if (p.kind == QLatin1String("number")) {
        const QJsonObject a = r.object(o.value("answer"), QStringLiteral("answer"));
        auto s = r.enter(QStringLiteral("answer"));
        r.knownKeys(a, {"notice", "probe"});
        p.answerNotice = r.string(a, "notice", true);
        p.answerProbe = a.contains("probe") ? r.integer(a.value("probe"), QStringLiteral("probe"), 0, 1 << 20) : 0;
        const Notice* n = step.findNotice(p.answerNotice);
        if (!n)
            r.fail(QStringLiteral("names notice '%1', which this step does not have").arg(p.answerNotice));
        const QList<const Probe*> probes = n->probes();
        if (p.answerProbe >= probes.size())
            r.fail(QStringLiteral("notice %1 has %2 probe(s), numbered from 0").arg(p.answerNotice).arg(probes.size()));
        if (probes[p.answerProbe]->isSlice() || probes[p.answerProbe]->isRefusal())
            r.fail(QStringLiteral("the answer must be a probe of one number"));
        if (o.contains("digits"))
            p.digits = r.integer(o.value("digits"), QStringLiteral("digits"), 1, 17);
        if (o.contains("choices") || o.contains("why"))
            r.fail(QStringLiteral("\"choices\" and \"why\" belong to a choice prediction"));
    } else if (p.kind == QLatin1String("choice")) {
        p.choices = r.stringList(o, "choices", true, 2);
        p.answerChoice = r.integer(o.value("answer"), QStringLiteral("answer"), 0, int(p.choices.size()) - 1);
        if (o.contains("why")) {
            const QJsonObject w = r.object(o.value("why"), QStringLiteral("why"));
            auto s = r.enter(QStringLiteral("why"));
            r.knownKeys(w, {"notice"});
            p.whyNotice = r.string(w, "notice", true);
            if (!step.findNotice(p.whyNotice))
                r.fail(QStringLiteral("names notice '%1', which this step does not have").arg(p.whyNotice));
        }
        if (o.contains("digits"))
            r.fail(QStringLiteral("\"digits\" belongs to a number prediction"));
    } else {
        r.fail(QStringLiteral("\"kind\" must be \"number\" or \"choice\" (got \"%1\")").arg(p.kind));
    }
    if (o.contains("check"))
        p.check = readCheck(r, o.value("check"));
    return p;
}

Puzzle readPuzzle(Reader& r, const QJsonValue& v)
{
    auto scope = r.enter(QStringLiteral("puzzle"));
    const QJsonObject o = r.object(v, QStringLiteral("puzzle"));
    r.knownKeys(o, {"prompt", "kind", "answer", "accept", "choices", "check", "explain"});
    Puzzle p;
    p.prompt = r.string(o, "prompt", true);
    p.kind = r.string(o, "kind", true);
    p.explain = r.string(o, "explain", false);
    if (p.kind == QLatin1String("number")) {
        p.answerNumber = r.number(o.value("answer"), QStringLiteral("answer"));
        if (o.contains("accept")) {
            const QJsonObject a = r.object(o.value("accept"), QStringLiteral("accept"));
            auto s = r.enter(QStringLiteral("accept"));
            r.knownKeys(a, {"relative", "absolute", "from", "below"});
            if (a.contains("from") || a.contains("below")) {
                if (a.size() != 2 || !a.contains("from") || !a.contains("below"))
                    r.fail(QStringLiteral("a range needs both \"from\" and \"below\", and nothing else"));
                p.from = r.number(a.value("from"), QStringLiteral("from"));
                p.below = r.number(a.value("below"), QStringLiteral("below"));
                if (!(*p.from <= p.answerNumber && p.answerNumber < *p.below))
                    r.fail(QStringLiteral("the answer must lie in [from, below)"));
            } else {
                if (a.size() != 1)
                    r.fail(QStringLiteral("give one of \"relative\" and \"absolute\", or \"from\" and \"below\""));
                const double x = r.number(a.begin().value(), a.begin().key());
                if (!(x >= 0))
                    r.fail(QStringLiteral("\"%1\" must not be negative").arg(a.begin().key()));
                (a.contains("relative") ? p.relative : p.absolute) = x;
            }
        }
    } else if (p.kind == QLatin1String("choice")) {
        p.choices = r.stringList(o, "choices", true, 2);
        p.answerChoice = r.integer(o.value("answer"), QStringLiteral("answer"), 0, int(p.choices.size()) - 1);
    } else if (p.kind == QLatin1String("text")) {
        if (o.value("answer").isString())
            p.answerTexts << r.string(o, "answer", true);
        else
            p.answerTexts = r.stringList(o, "answer", true, 1);
    } else {
        r.fail(QStringLiteral("\"kind\" must be \"number\", \"choice\" or \"text\" (got \"%1\")").arg(p.kind));
    }
    if (p.kind != QLatin1String("number") && o.contains("accept"))
        r.fail(QStringLiteral("\"accept\" belongs to a number puzzle"));
    if (p.kind != QLatin1String("choice") && o.contains("choices"))
        r.fail(QStringLiteral("\"choices\" belongs to a choice puzzle"));
    if (o.contains("check"))
        p.check = readCheck(r, o.value("check"));
    return p;
}

} // namespace poslab::lessons::detail
