// SPDX-License-Identifier: MIT
#include "ui/lessons/lesson.h"

#include "core/errors.h"
#include "core/spatial.h"
#include "ui/lessons/derivation.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QRegularExpression>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

namespace poslab::lessons {

namespace {

using core::InputError;

/// Walks one file, keeping the path to the field being read ("step 2.3", "notice n1", "check") so that every
/// message names the file, the step and the field.
class Reader {
public:
    explicit Reader(QString file) : m_file(std::move(file)) {}

    [[noreturn]] void fail(const QString& problem) const
    {
        QString where = m_file;
        for (const QString& part : m_path)
            where += QStringLiteral(": ") + part;
        throw InputError((where + QStringLiteral(": ") + problem).toStdString());
    }

    /// Enters a part of the path for the lifetime of the returned guard.
    struct Scope {
        Reader* reader;
        ~Scope() { reader->m_path.removeLast(); }
    };
    [[nodiscard]] Scope enter(const QString& part)
    {
        m_path << part;
        return Scope{this};
    }

    void knownKeys(const QJsonObject& o, std::initializer_list<const char*> keys) const
    {
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (std::none_of(keys.begin(), keys.end(), [&](const char* k) { return it.key() == QLatin1String(k); })) {
                QStringList names;
                for (const char* k : keys)
                    names << QString::fromLatin1(k);
                fail(QStringLiteral("unknown field \"%1\" (known: %2)").arg(it.key(), names.join(QStringLiteral(", "))));
            }
        }
    }

    QJsonObject object(const QJsonValue& v, const QString& field) const
    {
        if (!v.isObject())
            fail(QStringLiteral("\"%1\" must be an object").arg(field));
        return v.toObject();
    }

    QString string(const QJsonObject& o, const char* key, bool required) const
    {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isUndefined()) {
            if (required)
                fail(QStringLiteral("\"%1\" is missing").arg(QLatin1String(key)));
            return {};
        }
        if (!v.isString() || (required && v.toString().trimmed().isEmpty()))
            fail(QStringLiteral("\"%1\" must be a non-empty string").arg(QLatin1String(key)));
        return v.toString();
    }

    QStringList stringList(const QJsonObject& o, const char* key, bool required, int minCount = 0) const
    {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isUndefined()) {
            if (required)
                fail(QStringLiteral("\"%1\" is missing").arg(QLatin1String(key)));
            return {};
        }
        if (!v.isArray())
            fail(QStringLiteral("\"%1\" must be a list of strings").arg(QLatin1String(key)));
        QStringList out;
        for (const QJsonValue& item : v.toArray()) {
            if (!item.isString() || item.toString().isEmpty())
                fail(QStringLiteral("\"%1\" must be a list of non-empty strings").arg(QLatin1String(key)));
            out << item.toString();
        }
        if (out.size() < minCount)
            fail(QStringLiteral("\"%1\" needs at least %2 entries").arg(QLatin1String(key)).arg(minCount));
        return out;
    }

    double number(const QJsonValue& v, const QString& field) const
    {
        if (!v.isDouble() || !std::isfinite(v.toDouble()))
            fail(QStringLiteral("\"%1\" must be a finite number").arg(field));
        return v.toDouble();
    }

    int integer(const QJsonValue& v, const QString& field, int min, int max) const
    {
        const double x = v.isDouble() ? v.toDouble() : std::nan("");
        if (!(x >= min && x <= max && x == std::floor(x)))
            fail(QStringLiteral("\"%1\" must be a whole number from %2 to %3").arg(field).arg(min).arg(max));
        return int(x);
    }

private:
    QString m_file;
    QStringList m_path;
};

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

Check readCheck(Reader& r, const QJsonValue& v);

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

Check readCheck(Reader& r, const QJsonValue& v)
{
    auto scope = r.enter(QStringLiteral("check"));
    const QJsonObject o = r.object(v, QStringLiteral("check"));
    Check c;
    c.json = o;
    // A refusal probe written as the check itself: {"compute": "...", "refused": "..."}.
    if (o.contains("compute")) {
        Probe p = readProbe(r, o);
        if (!p.isRefusal())
            r.fail(QStringLiteral("a probe given as the whole check must be a refusal (\"refused\"); put a number "
                                  "probe under \"value\" with equals, less_than, ..."));
        c.kind = Check::Kind::Refused;
        c.values << p;
        return c;
    }
    r.knownKeys(o, {"value", "values", "equals", "digits", "tol", "less_than", "greater_than", "all_equal", "differ",
                    "order", "distinct", "all"});
    static const std::pair<const char*, Check::Kind> kinds[] = {
        {"equals", Check::Kind::Equals},          {"less_than", Check::Kind::LessThan},
        {"greater_than", Check::Kind::GreaterThan}, {"all_equal", Check::Kind::AllEqual},
        {"differ", Check::Kind::Differ},          {"order", Check::Kind::Order},
        {"distinct", Check::Kind::Distinct},      {"all", Check::Kind::All},
    };
    QStringList given;
    for (const auto& [key, kind] : kinds) {
        if (o.contains(QLatin1String(key))) {
            given << QString::fromLatin1(key);
            c.kind = kind;
        }
    }
    if (given.size() > 1)
        r.fail(QStringLiteral("one comparison per check (got %1); combine several with \"all\"")
                   .arg(given.join(QStringLiteral(", "))));
    c.values = readValues(r, o);
    if (o.contains("tol")) {
        c.tol = r.number(o.value("tol"), QStringLiteral("tol"));
        if (c.tol < 0)
            r.fail(QStringLiteral("\"tol\" must not be negative"));
    }
    if (o.contains("digits"))
        c.digits = r.integer(o.value("digits"), QStringLiteral("digits"), 1, 17);
    const auto oneNumberProbe = [&](const char* what) {
        if (c.values.size() != 1 || !o.contains("value"))
            r.fail(QStringLiteral("%1 compares one probe: give \"value\"").arg(QLatin1String(what)));
        if (c.values[0].isRefusal() || c.values[0].isSlice())
            r.fail(QStringLiteral("%1 needs a probe of one number (not a slice \"*\" or a refusal)").arg(QLatin1String(what)));
    };
    const auto noRefusals = [&](const char* what) {
        for (const Probe& p : c.values)
            if (p.isRefusal())
                r.fail(QStringLiteral("%1 compares numbers; a refusal probe is a check of its own").arg(QLatin1String(what)));
    };
    const auto slicesOrList = [&](const char* what) {
        noRefusals(what);
        const bool oneSlice = c.values.size() == 1 && c.values[0].isSlice();
        const bool list = c.values.size() >= 2 && std::none_of(c.values.begin(), c.values.end(), [](const Probe& p) { return p.isSlice(); });
        if (!oneSlice && !list)
            r.fail(QStringLiteral("%1 needs \"values\" with at least two one-number probes, or one slice probe (\"*\") as \"value\"")
                       .arg(QLatin1String(what)));
    };
    if (given.isEmpty()) {
        if (c.values.size() == 1 && c.values[0].isRefusal()) {
            c.kind = Check::Kind::Refused;
            return c;
        }
        r.fail(QStringLiteral("no comparison: give one of equals, less_than, greater_than, all_equal, differ, order, "
                              "distinct, all (or a refusal probe as \"value\")"));
    }
    if (c.digits && c.kind != Check::Kind::Equals)
        r.fail(QStringLiteral("\"digits\" applies to equals only"));
    switch (c.kind) {
    case Check::Kind::Equals:
        oneNumberProbe("equals");
        c.number = r.number(o.value("equals"), QStringLiteral("equals"));
        if (c.digits.has_value() == o.contains("tol"))
            r.fail(QStringLiteral("equals needs exactly one of \"digits\" (significant digits) and \"tol\" (absolute)"));
        break;
    case Check::Kind::LessThan:
    case Check::Kind::GreaterThan: {
        const char* key = c.kind == Check::Kind::LessThan ? "less_than" : "greater_than";
        oneNumberProbe(key);
        c.number = r.number(o.value(QLatin1String(key)), QLatin1String(key));
        if (o.contains("tol"))
            r.fail(QStringLiteral("\"tol\" does not apply to %1").arg(QLatin1String(key)));
        break;
    }
    case Check::Kind::AllEqual:
        if (o.value("all_equal") != QJsonValue(true))
            r.fail(QStringLiteral("\"all_equal\" must be true"));
        slicesOrList("all_equal");
        break;
    case Check::Kind::Differ:
        if (o.value("differ") != QJsonValue(true))
            r.fail(QStringLiteral("\"differ\" must be true"));
        noRefusals("differ");
        if (c.values.size() < 2 || std::any_of(c.values.begin(), c.values.end(), [](const Probe& p) { return p.isSlice(); }))
            r.fail(QStringLiteral("differ needs \"values\" with at least two one-number probes"));
        break;
    case Check::Kind::Order: {
        const QString order = o.value("order").toString();
        if (order != QLatin1String("increasing") && order != QLatin1String("decreasing"))
            r.fail(QStringLiteral("\"order\" must be \"increasing\" or \"decreasing\""));
        c.increasing = order == QLatin1String("increasing");
        slicesOrList("order");
        if (o.contains("tol"))
            r.fail(QStringLiteral("\"tol\" does not apply to order (it is strict)"));
        break;
    }
    case Check::Kind::Distinct:
        c.distinct = r.integer(o.value("distinct"), QStringLiteral("distinct"), 1, 1 << 30);
        if (c.values.size() != 1 || !c.values[0].isSlice() || c.values[0].isRefusal())
            r.fail(QStringLiteral("distinct counts the values of one slice probe (\"*\" in \"at\") given as \"value\""));
        break;
    case Check::Kind::All: {
        if (!c.values.isEmpty() || o.contains("tol"))
            r.fail(QStringLiteral("\"all\" takes only a list of checks"));
        if (!o.value("all").isArray() || o.value("all").toArray().isEmpty())
            r.fail(QStringLiteral("\"all\" must be a non-empty list of checks"));
        const QJsonArray a = o.value("all").toArray();
        for (int i = 0; i < a.size(); ++i) {
            auto s = r.enter(QStringLiteral("all[%1]").arg(i));
            c.all << readCheck(r, a[i]);
        }
        break;
    }
    case Check::Kind::Refused:
        break;
    }
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

/// Checks the live fields of @p text: {v:K} (when @p probes >= 0, a notice's text) or {v:nID.K} (a step's text,
/// resolved in @p step), and {p:NAME} (any non-empty name; the browser and the tests check the names).
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
                r.fail(QStringLiteral("\"%1\": {v:%2} in a step's text names a notice: {v:NOTICE.K}").arg(QLatin1String(field), arg));
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
                       .arg(QLatin1String(field), arg).arg(count));
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

/// The views a hover can point into, with the coordinates each takes.
bool hoverTakesCell(const QString& view)
{
    return view == QLatin1String("attention") || view == QLatin1String("table");
}
bool hoverTakesAt(const QString& view)
{
    return view == QLatin1String("decay") || view == QLatin1String("extension");
}

/// A range [first, last] written as a list of two whole numbers, both in [0, max].
std::pair<int, int> readRange(Reader& r, const QJsonValue& v, const QString& field)
{
    const QJsonArray a = v.toArray();
    if (!v.isArray() || a.size() != 2)
        r.fail(QStringLiteral("\"%1\" must be [FIRST, LAST]").arg(field));
    const int first = r.integer(a[0], field, 0, 1 << 30), last = r.integer(a[1], field, 0, 1 << 30);
    if (last < first)
        r.fail(QStringLiteral("\"%1\": [%2, %3] ends before it starts").arg(field).arg(first).arg(last));
    return {first, last};
}

/// "hide" (FORMAT.md): {"ids": {"tokens": [FIRST, LAST], "axes": "thw"}, "pairs": [FIRST, LAST], "scores": true}.
/// The ranges are checked against the step's spatial set-up once the lesson's states are merged.
Hide readHide(Reader& r, const QJsonValue& v)
{
    auto scope = r.enter(QStringLiteral("hide"));
    const QJsonObject o = r.object(v, QStringLiteral("hide"));
    r.knownKeys(o, {"ids", "pairs", "scores"});
    if (o.isEmpty())
        r.fail(QStringLiteral("names nothing to hide (give \"ids\", \"pairs\" or \"scores\")"));
    Hide h;
    if (o.contains("ids")) {
        // One range {"tokens", "axes"} or a list of them.
        const QJsonValue v = o.value("ids");
        const QJsonArray list = v.isArray() ? v.toArray() : QJsonArray{v};
        if (list.isEmpty())
            r.fail(QStringLiteral("\"ids\" must be {\"tokens\": [FIRST, LAST], \"axes\": ...} or a non-empty list of them"));
        for (const QJsonValue& item : list) {
            const QJsonObject ids = r.object(item, QStringLiteral("ids"));
            r.knownKeys(ids, {"tokens", "axes"});
            if (!ids.contains("tokens"))
                r.fail(QStringLiteral("\"ids\": \"tokens\" is missing"));
            Hide::Ids range;
            std::tie(range.first, range.last) = readRange(r, ids.value("tokens"), QStringLiteral("tokens"));
            if (ids.contains("axes")) {
                const QString axes = ids.value("axes").toString();
                static const QRegularExpression form(QStringLiteral("^(?!.*(.).*\\1)[thw]{1,3}$"));
                if (!ids.value("axes").isString() || !form.match(axes).hasMatch())
                    r.fail(QStringLiteral("\"axes\" must name each of t, h and w at most once (\"t\", \"hw\", \"thw\")"));
                for (int a = 0; a < 3; ++a)
                    range.axes[a] = axes.contains(QLatin1Char("thw"[a]));
            }
            h.ids << range;
        }
    }
    if (o.contains("pairs"))
        std::tie(h.pairsFrom, h.pairsTo) = readRange(r, o.value("pairs"), QStringLiteral("pairs"));
    if (o.contains("scores")) {
        if (!o.value("scores").isBool() || !o.value("scores").toBool())
            r.fail(QStringLiteral("\"scores\" must be true (leave it out to show them)"));
        h.scores = true;
    }
    return h;
}

/// A "hide" must point inside what the step shows: tokens of its sequence, pairs of its spatial dim.
void checkHide(Reader& r, const Hide& h, const QJsonObject& state)
{
    const QJsonObject spatial = state.value("spatial").toObject();
    if (!h.ids.isEmpty()) {
        std::int64_t tokens = 0;
        try {
            tokens = core::parseSequence(spatial.value("sequence").toString().toStdString()).tokens();
        } catch (const InputError& e) {
            r.fail(QStringLiteral("\"ids\" needs the step's spatial sequence: %1").arg(QString::fromUtf8(e.what())));
        }
        for (const Hide::Ids& range : h.ids)
            if (range.last >= tokens)
                r.fail(QStringLiteral("\"ids\": token %1 lies outside the step's sequence of %2 tokens").arg(range.last).arg(tokens));
    }
    const int pairs = spatial.value("dim").toInt(0) / 2;
    if (h.pairsFrom >= 0 && h.pairsTo >= pairs)
        r.fail(QStringLiteral("\"pairs\": pair %1 lies outside the step's spatial dim (pairs 0 to %2)").arg(h.pairsTo).arg(pairs - 1));
}

Action readAction(Reader& r, const QJsonValue& v, const Step& s)
{
    const QJsonObject o = r.object(v, QStringLiteral("action"));
    Action a;
    a.json = o;
    static const std::pair<const char*, Action::Kind> kinds[] = {
        {"set", Action::Kind::Set},     {"step", Action::Kind::Step}, {"hover", Action::Kind::Hover},
        {"probe", Action::Kind::Probe}, {"read", Action::Kind::Read}, {"show", Action::Kind::Show},
        {"select", Action::Kind::Select},
    };
    QStringList given;
    for (const auto& [key, kind] : kinds)
        if (o.contains(QLatin1String(key))) {
            given << QString::fromLatin1(key);
            a.kind = kind;
        }
    if (given.size() != 1)
        r.fail(given.isEmpty() ? QStringLiteral("unknown action (known: set, step, hover, probe, read, show, select)")
                               : QStringLiteral("one action per entry (got %1)").arg(given.join(QStringLiteral(", "))));
    a.target = r.string(o, given[0].toLatin1().constData(), true);
    const auto knob = [&] {
        if (!s.knobs.contains(a.target))
            r.fail(QStringLiteral("\"%1\": knob '%2' is not one the step unlocks (knobs: %3)")
                       .arg(given[0], a.target, s.knobs.isEmpty() ? QStringLiteral("none") : s.knobs.join(QStringLiteral(", "))));
    };
    const auto view = [&] {
        if (!s.views.contains(a.target))
            r.fail(QStringLiteral("\"%1\": view '%2' is not one the step shows (views: %3)")
                       .arg(given[0], a.target, s.views.join(QStringLiteral(", "))));
    };
    switch (a.kind) {
    case Action::Kind::Set:
        r.knownKeys(o, {"set", "to", "refused"});
        knob();
        a.value = o.value("to");
        if (o.contains("refused")) {
            if (!o.value("refused").isBool())
                r.fail(QStringLiteral("\"refused\" must be true or false"));
            a.refused = o.value("refused").toBool();
        }
        if (!(a.value.isDouble() || a.value.isString() || a.value.isBool()))
            r.fail(QStringLiteral("\"to\" must be a number, a string or true/false"));
        break;
    case Action::Kind::Step:
        r.knownKeys(o, {"step", "by"});
        knob();
        a.by = r.integer(o.value("by"), QStringLiteral("by"), -100000, 100000);
        if (a.by == 0)
            r.fail(QStringLiteral("\"by\" must not be 0"));
        break;
    case Action::Kind::Hover:
        r.knownKeys(o, {"hover", "row", "column", "at", "side"});
        view();
        if (o.contains("side")) {
            if (o.value("side") != QJsonValue(QStringLiteral("A")) && o.value("side") != QJsonValue(QStringLiteral("B")))
                r.fail(QStringLiteral("\"side\" must be \"A\" or \"B\""));
            a.sideB = o.value("side") == QJsonValue(QStringLiteral("B"));
        }
        if (hoverTakesCell(a.target)) {
            if (o.contains("at"))
                r.fail(QStringLiteral("a hover on %1 takes \"row\" and \"column\"").arg(a.target));
            a.row = r.integer(o.value("row"), QStringLiteral("row"), 0, 1 << 30);
            a.column = r.integer(o.value("column"), QStringLiteral("column"), 0, 1 << 30);
        } else if (hoverTakesAt(a.target)) {
            if (o.contains("row") || o.contains("column"))
                r.fail(QStringLiteral("a hover on %1 takes \"at\"").arg(a.target));
            a.at = r.number(o.value("at"), QStringLiteral("at"));
        } else {
            r.fail(QStringLiteral("\"hover\": view '%1' has no hover action (known: attention, table, decay, extension)").arg(a.target));
        }
        break;
    case Action::Kind::Probe:
        r.knownKeys(o, {"probe"});
        if (!s.findNotice(a.target))
            r.fail(QStringLiteral("\"probe\": notice '%1' is not one of the step's").arg(a.target));
        break;
    case Action::Kind::Read:
        r.knownKeys(o, {"read"});
        view();
        break;
    case Action::Kind::Show:
        r.knownKeys(o, {"show"});
        view();
        break;
    case Action::Kind::Select:
        view();
        if (a.target == QLatin1String("patchgrid")) {
            r.knownKeys(o, {"select", "row", "column", "by"});
            a.row = r.integer(o.value("row"), QStringLiteral("row"), 0, 1 << 16);
            a.column = r.integer(o.value("column"), QStringLiteral("column"), 0, 1 << 16);
        } else if (a.target == QLatin1String("sequence")) {
            r.knownKeys(o, {"select", "token", "by"});
            a.token = r.integer(o.value("token"), QStringLiteral("token"), 0, 1 << 16);
        } else {
            r.fail(QStringLiteral("\"select\": view '%1' has no select action (known: patchgrid, sequence)").arg(a.target));
        }
        if (o.value("by") != QJsonValue(QStringLiteral("click")) && o.value("by") != QJsonValue(QStringLiteral("keys")))
            r.fail(QStringLiteral("\"by\" must be \"click\" or \"keys\""));
        a.byKeys = o.value("by") == QJsonValue(QStringLiteral("keys"));
        break;
    }
    return a;
}

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
    r.knownKeys(o, {"id", "title", "text", "formula", "formula_reveals", "state", "views", "knobs", "do", "actions", "predict", "notice", "derivation", "hide"});
    s.title = r.string(o, "title", true);
    s.derivation = r.string(o, "derivation", o.contains("derivation")); // present: a non-empty id
    if (!s.derivation.isEmpty() && !findDerivation(s.derivation))
        r.fail(QStringLiteral("\"derivation\": no derivation page '%1' (known: %2)")
                   .arg(s.derivation, derivationIds().isEmpty() ? QStringLiteral("none") : derivationIds().join(QStringLiteral(", "))));
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
            s.notice << readNotice(r, n);
            if (!ids.insert(s.notice.last().id).second)
                r.fail(QStringLiteral("notice id '%1' is used twice").arg(s.notice.last().id));
        }
    }
    if (o.contains("predict"))
        s.predict = readPredict(r, o.value("predict"), s);
    if (o.contains("hide")) {
        s.hide = readHide(r, o.value("hide"));
        if (!s.predict)
            r.fail(QStringLiteral("\"hide\" hides the answer to a prediction; the step has none"));
    }
    if (s.formulaReveals && (!s.predict || s.formula.isEmpty()))
        r.fail(QStringLiteral("\"formula_reveals\" needs a formula and a prediction"));
    checkLiveText(r, s.text, "text", -1, &s);
    checkLiveText(r, s.doText, "do", -1, &s);
    if (o.contains("actions")) {
        if (!o.value("actions").isArray() || o.value("actions").toArray().isEmpty())
            r.fail(QStringLiteral("\"actions\" must be a non-empty list of actions"));
        if (s.doText.isEmpty())
            r.fail(QStringLiteral("\"actions\" belong to a \"do\" line; the step has none"));
        const QJsonArray a = o.value("actions").toArray();
        for (int i = 0; i < a.size(); ++i) {
            auto sc = r.enter(QStringLiteral("actions[%1]").arg(i));
            s.actions << readAction(r, a[i], s);
        }
    }
    return s;
}

} // namespace

Notice parseNotice(const QJsonValue& value, const QString& where)
{
    Reader r(where);
    return readNotice(r, value);
}

void checkStepText(const QString& text, const Step& step, const QString& where, const char* field)
{
    Reader r(where);
    checkLiveText(r, text, field, -1, &step);
}

QString Action::describe() const
{
    switch (kind) {
    case Kind::Set:
        return QStringLiteral("set %1 to %2").arg(target, value.isString() ? value.toString()
                                                              : value.isBool() ? (value.toBool() ? QStringLiteral("true") : QStringLiteral("false"))
                                                                               : QString::number(value.toDouble(), 'g', 17));
    case Kind::Step:
        return QStringLiteral("step %1 by %2").arg(target).arg(by);
    case Kind::Hover:
        return QStringLiteral("hover %1%2 %3").arg(target, sideB ? QStringLiteral(" (B)") : QString(),
                                                    at ? QStringLiteral("at %1").arg(*at) : QStringLiteral("row %1 column %2").arg(row).arg(column));
    case Kind::Probe:
        return QStringLiteral("run the probes of notice %1").arg(target);
    case Kind::Show:
        return QStringLiteral("show %1").arg(target);
    case Kind::Select:
        if (token >= 0)
            return QStringLiteral("select token %1 of %2 by %3").arg(token).arg(target, byKeys ? QStringLiteral("keys") : QStringLiteral("click"));
        return QStringLiteral("select patch row %1 column %2 of %3 by %4")
            .arg(row).arg(column).arg(target, byKeys ? QStringLiteral("keys") : QStringLiteral("click"));
    case Kind::Read:
        break;
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
    collectProbes(check, out);
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
        return (ok && i == answerChoice) || (answerChoice >= 0 && g.compare(choices.value(answerChoice).simplified(), Qt::CaseInsensitive) == 0);
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
    case GuessVerdict::Right:
        return QStringLiteral("right");
    case GuessVerdict::Close:
        return QStringLiteral("close");
    case GuessVerdict::Wrong:
        break;
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
    r.knownKeys(o, {"format", "version", "number", "title", "objective", "resolves", "steps", "puzzle", "sources", "verify"});
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
            checkHide(r, *l.steps[i].hide, state);
        }
        for (int k = 0; k < l.steps[i].actions.size(); ++k) {
            const Action& a = l.steps[i].actions[k];
            auto sc = r.enter(QStringLiteral("step %1: actions[%2]").arg(l.steps[i].id).arg(k));
            if (a.kind != Action::Kind::Hover)
                continue;
            if (a.row >= positions || a.column >= positions)
                r.fail(QStringLiteral("hover row %1 column %2 lies outside the step's %3 positions").arg(a.row).arg(a.column).arg(positions));
            if (a.target == QLatin1String("extension") && !(*a.at >= 0 && *a.at < pairs && *a.at == std::floor(*a.at)))
                r.fail(QStringLiteral("hover at pair %1: the step's dim has pairs 0 to %2").arg(*a.at).arg(pairs - 1));
        }
    }
    if (o.contains("puzzle"))
        l.puzzle = readPuzzle(r, o.value("puzzle"));
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
        throw InputError((name + QStringLiteral(": %1 bytes; a lesson file is at most 4 MiB").arg(f.size())).toStdString());
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
                else if (std::any_of(st.lessons.begin(), st.lessons.end(), [&](const Lesson& x) { return x.number == l.number; }))
                    st.problems << name + QStringLiteral(": lesson %1 is given twice").arg(l.number);
                else
                    st.lessons << std::move(l);
            } catch (const std::exception& e) {
                st.problems << QString::fromStdString(e.what());
            }
        }
        std::sort(st.lessons.begin(), st.lessons.end(), [](const Lesson& a, const Lesson& b) { return a.number < b.number; });
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
