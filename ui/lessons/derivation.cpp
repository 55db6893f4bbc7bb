// SPDX-License-Identifier: MIT
#include "ui/lessons/derivation.h"

#include "core/errors.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>
#include <set>

namespace poslab::lessons {

namespace {

using core::InputError;

[[noreturn]] void fail(const QString& where, const QString& problem)
{
    throw InputError((where + QStringLiteral(": ") + problem).toStdString());
}

void knownKeys(const QJsonObject& o, const QStringList& keys, const QString& where)
{
    for (auto it = o.begin(); it != o.end(); ++it)
        if (!keys.contains(it.key()))
            fail(where,
                 QStringLiteral("unknown field \"%1\" (known: %2)").arg(it.key(), keys.join(QStringLiteral(", "))));
}

/// A required (non-empty) or optional string field; an optional one given must be non-empty too.
QString text(const QJsonObject& o, const char* key, bool required, const QString& where)
{
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isUndefined()) {
        if (required)
            fail(where, QStringLiteral("\"%1\" is missing").arg(QLatin1String(key)));
        return {};
    }
    if (!v.isString() || v.toString().trimmed().isEmpty())
        fail(where, QStringLiteral("\"%1\" must be a non-empty string").arg(QLatin1String(key)));
    return v.toString();
}

DerivationStep readStep(const QJsonValue& v, const Step& claims, const QString& where)
{
    if (!v.isObject())
        fail(where, QStringLiteral("a step must be an object"));
    const QJsonObject o = v.toObject();
    knownKeys(o, {QStringLiteral("text"), QStringLiteral("formula"), QStringLiteral("code")}, where);
    DerivationStep s;
    s.text = text(o, "text", true, where);
    s.formula = text(o, "formula", false, where);
    checkStepText(s.text, claims, where, "text");
    if (s.text.contains(QLatin1String("{p:")))
        fail(where, QStringLiteral("\"text\": a derivation page has no knobs; {p:NAME} belongs in a lesson step"));
    if (o.contains(QLatin1String("code"))) {
        const QString at = where + QStringLiteral(": code");
        if (!o.value(QLatin1String("code")).isObject())
            fail(at, QStringLiteral("must be an object {\"label\", \"text\"}"));
        const QJsonObject c = o.value(QLatin1String("code")).toObject();
        knownKeys(c, {QStringLiteral("label"), QStringLiteral("text")}, at);
        s.code = DerivationCode{text(c, "label", true, at), text(c, "text", true, at)};
    }
    return s;
}

struct Store {
    QList<Derivation> pages;
    QStringList problems;
};

const Store& store()
{
    static const Store s = [] {
        Store st;
        const QDir dir(QStringLiteral(":/derivations"));
        for (const QString& name : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
            QFile f(dir.filePath(name));
            if (!f.open(QIODevice::ReadOnly)) {
                st.problems << name + QStringLiteral(": cannot be read: ") + f.errorString();
                continue;
            }
            try {
                st.pages << parseDerivation(f.readAll(), name);
            } catch (const std::exception& e) {
                st.problems << QString::fromStdString(e.what());
            }
        }
        std::sort(st.pages.begin(), st.pages.end(),
                  [](const Derivation& a, const Derivation& b) { return a.id < b.id; });
        return st;
    }();
    return s;
}

} // namespace

Derivation parseDerivation(const QByteArray& bytes, const QString& fileName)
{
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &pe);
    if (pe.error != QJsonParseError::NoError)
        fail(fileName, QStringLiteral("not valid JSON at byte %1: %2").arg(pe.offset).arg(pe.errorString()));
    if (!doc.isObject())
        fail(fileName, QStringLiteral("a derivation file holds one JSON object"));
    const QJsonObject o = doc.object();
    knownKeys(o,
              {QStringLiteral("format"), QStringLiteral("version"), QStringLiteral("title"), QStringLiteral("summary"),
               QStringLiteral("steps"), QStringLiteral("notice"), QStringLiteral("sources")},
              fileName);
    if (o.value(QLatin1String("format")) != QJsonValue(QStringLiteral("poslab-derivation")))
        fail(fileName, QStringLiteral("\"format\" must be \"poslab-derivation\""));
    if (o.value(QLatin1String("version")) != QJsonValue(1))
        fail(fileName, QStringLiteral("\"version\" must be 1 (the version this PosLab reads)"));
    static const QRegularExpression idForm(QStringLiteral("^([a-z0-9]+(-[a-z0-9]+)*)\\.json$"));
    const auto m = idForm.match(fileName);
    if (!m.hasMatch())
        fail(fileName, QStringLiteral("the file name must be ID.json, ID in lower case letters, digits and '-'"));
    Derivation d;
    d.file = fileName;
    d.id = m.captured(1);
    d.title = text(o, "title", true, fileName);
    d.summary = text(o, "summary", true, fileName);
    d.claims.id = d.id;
    d.claims.title = d.title;
    if (o.contains(QLatin1String("notice"))) {
        if (!o.value(QLatin1String("notice")).isArray())
            fail(fileName, QStringLiteral("\"notice\" must be a list of notices"));
        std::set<QString> ids;
        for (const QJsonValue& n : o.value(QLatin1String("notice")).toArray()) {
            d.claims.notice << parseNotice(n, fileName);
            if (!ids.insert(d.claims.notice.last().id).second)
                fail(fileName, QStringLiteral("notice id '%1' is used twice").arg(d.claims.notice.last().id));
        }
    }
    const QJsonValue steps = o.value(QLatin1String("steps"));
    if (!steps.isArray() || steps.toArray().isEmpty())
        fail(fileName, QStringLiteral("\"steps\" must be a non-empty list of steps"));
    const QJsonArray a = steps.toArray();
    for (int i = 0; i < a.size(); ++i)
        d.steps << readStep(a[i], d.claims, QStringLiteral("%1: step %2").arg(fileName).arg(i + 1));
    const QJsonValue sources = o.value(QLatin1String("sources"));
    if (!sources.isArray() || sources.toArray().isEmpty())
        fail(fileName, QStringLiteral("\"sources\" must be a non-empty list of strings"));
    for (const QJsonValue& s : sources.toArray()) {
        if (!s.isString() || s.toString().trimmed().isEmpty())
            fail(fileName, QStringLiteral("\"sources\" must be a non-empty list of strings"));
        d.sources << s.toString();
    }
    return d;
}

const QList<Derivation>& derivations()
{
    return store().pages;
}

const QStringList& derivationLoadProblems()
{
    return store().problems;
}

const Derivation* findDerivation(const QString& id)
{
    for (const Derivation& d : derivations())
        if (d.id == id)
            return &d;
    return nullptr;
}

QStringList derivationIds()
{
    QStringList ids;
    for (const Derivation& d : derivations())
        ids << d.id;
    return ids;
}

QList<ClaimReport> checkDerivation(const Derivation& d, ClaimEngine& engine)
{
    QList<ClaimReport> out;
    for (const Notice& n : d.claims.notice) {
        const CheckResult r = engine.check(n.check);
        out << ClaimReport{{}, {}, QStringLiteral("derivation %1 notice %2").arg(d.id, n.id), r.holds, r.reason};
    }
    return out;
}

} // namespace poslab::lessons
