// SPDX-License-Identifier: MIT
// Reading a step's actions and what it hides while its prediction waits (FORMAT.md, "Actions" and "hide").
#include "ui/lessons/lessonreader.h"

#include "core/spatial.h"

#include <QRegularExpression>

#include <tuple>

namespace poslab::lessons::detail {
namespace {

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

} // namespace

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
            r.fail(QStringLiteral(
                "\"ids\" must be {\"tokens\": [FIRST, LAST], \"axes\": ...} or a non-empty list of them"));
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
                    r.fail(
                        QStringLiteral("\"axes\" must name each of t, h and w at most once (\"t\", \"hw\", \"thw\")"));
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

void checkHide(Reader& r, const Hide& h, const QJsonObject& state)
{
    const QJsonObject spatial = state.value("spatial").toObject();
    if (!h.ids.isEmpty()) {
        std::int64_t tokens = 0;
        try {
            tokens = core::parseSequence(spatial.value("sequence").toString().toStdString()).tokens();
        } catch (const core::InputError& e) {
            r.fail(QStringLiteral("\"ids\" needs the step's spatial sequence: %1").arg(QString::fromUtf8(e.what())));
        }
        for (const Hide::Ids& range : h.ids)
            if (range.last >= tokens)
                r.fail(QStringLiteral("\"ids\": token %1 lies outside the step's sequence of %2 tokens")
                           .arg(range.last)
                           .arg(tokens));
    }
    const int pairs = spatial.value("dim").toInt(0) / 2;
    if (h.pairsFrom >= 0 && h.pairsTo >= pairs)
        r.fail(QStringLiteral("\"pairs\": pair %1 lies outside the step's spatial dim (pairs 0 to %2)")
                   .arg(h.pairsTo)
                   .arg(pairs - 1));
}

namespace {

/// The action @p key ("set", "step") names a knob the step unlocks.
void requireKnob(Reader& r, const Step& s, const Action& a, const char* key)
{
    if (!s.knobs.contains(a.target))
        r.fail(QStringLiteral("\"%1\": knob '%2' is not one the step unlocks (knobs: %3)")
                   .arg(QLatin1String(key), a.target,
                        s.knobs.isEmpty() ? QStringLiteral("none") : s.knobs.join(QStringLiteral(", "))));
}

/// The action @p key ("hover", "read", ...) names a view the step shows.
void requireView(Reader& r, const Step& s, const Action& a, const char* key)
{
    if (!s.views.contains(a.target))
        r.fail(QStringLiteral("\"%1\": view '%2' is not one the step shows (views: %3)")
                   .arg(QLatin1String(key), a.target, s.views.join(QStringLiteral(", "))));
}

// What each kind of action reads besides its target (@p o is the action), and what it requires of the step.

void readSet(Reader& r, const QJsonObject& o, const Step& s, Action& a)
{
    r.knownKeys(o, {"set", "to", "refused"});
    requireKnob(r, s, a, "set");
    a.value = o.value("to");
    if (o.contains("refused")) {
        if (!o.value("refused").isBool())
            r.fail(QStringLiteral("\"refused\" must be true or false"));
        a.refused = o.value("refused").toBool();
    }
    if (!(a.value.isDouble() || a.value.isString() || a.value.isBool()))
        r.fail(QStringLiteral("\"to\" must be a number, a string or true/false"));
}

void readStepBy(Reader& r, const QJsonObject& o, const Step& s, Action& a)
{
    r.knownKeys(o, {"step", "by"});
    requireKnob(r, s, a, "step");
    a.by = r.integer(o.value("by"), QStringLiteral("by"), -100000, 100000);
    if (a.by == 0)
        r.fail(QStringLiteral("\"by\" must not be 0"));
}

void readHover(Reader& r, const QJsonObject& o, const Step& s, Action& a)
{
    r.knownKeys(o, {"hover", "row", "column", "at", "side"});
    requireView(r, s, a, "hover");
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
        r.fail(QStringLiteral("\"hover\": view '%1' has no hover action (known: attention, table, decay, extension)")
                   .arg(a.target));
    }
}

void readProbeAction(Reader& r, const QJsonObject& o, const Step& s, Action& a)
{
    r.knownKeys(o, {"probe"});
    if (!s.findNotice(a.target))
        r.fail(QStringLiteral("\"probe\": notice '%1' is not one of the step's").arg(a.target));
}

void readRead(Reader& r, const QJsonObject& o, const Step& s, Action& a)
{
    r.knownKeys(o, {"read"});
    requireView(r, s, a, "read");
}

void readShow(Reader& r, const QJsonObject& o, const Step& s, Action& a)
{
    r.knownKeys(o, {"show"});
    requireView(r, s, a, "show");
}

void readSelect(Reader& r, const QJsonObject& o, const Step& s, Action& a)
{
    requireView(r, s, a, "select");
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
}

/// The kinds of action, by the key that names the target, in the order a message lists them.
struct ActionKind {
    const char* key;
    Action::Kind kind;
    void (*read)(Reader& r, const QJsonObject& o, const Step& s, Action& a);
};
constexpr ActionKind actionKinds[] = {
    {"set", Action::Kind::Set, readSet},          {"step", Action::Kind::Step, readStepBy},
    {"hover", Action::Kind::Hover, readHover},    {"probe", Action::Kind::Probe, readProbeAction},
    {"read", Action::Kind::Read, readRead},       {"show", Action::Kind::Show, readShow},
    {"select", Action::Kind::Select, readSelect},
};

} // namespace

Action readAction(Reader& r, const QJsonValue& v, const Step& s)
{
    const QJsonObject o = r.object(v, QStringLiteral("action"));
    Action a;
    a.json = o;
    const ActionKind* kind = nullptr;
    const QStringList given = keysGiven(o, actionKinds, &kind);
    if (given.size() != 1)
        r.fail(given.isEmpty() ? QStringLiteral("unknown action (known: set, step, hover, probe, read, show, select)")
                               : QStringLiteral("one action per entry (got %1)").arg(given.join(QStringLiteral(", "))));
    a.kind = kind->kind;
    a.target = r.string(o, kind->key, true);
    kind->read(r, o, s, a);
    return a;
}

} // namespace poslab::lessons::detail
