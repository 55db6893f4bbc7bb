// SPDX-License-Identifier: MIT
#pragma once
/// @file lessonreader.h
/// The reader of lesson files, shared by the files that read a lesson's parts (not part of the lessons API):
/// lesson.cpp reads the file and its steps, lessonchecks.cpp probes, checks, notices, predictions and the
/// puzzle, lessonactions.cpp a step's actions and what it hides.

#include "core/errors.h"
#include "ui/lessons/lesson.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <initializer_list>

namespace poslab::lessons::detail {

/// Walks one file, keeping the path to the field being read ("step 2.3", "notice n1", "check") so that every
/// message names the file, the step and the field.
class Reader {
public:
    explicit Reader(QString file)
        : m_file(std::move(file))
    { }

    [[noreturn]] void fail(const QString& problem) const
    {
        QString where = m_file;
        for (const QString& part : m_path)
            where += QStringLiteral(": ") + part;
        throw core::InputError((where + QStringLiteral(": ") + problem).toStdString());
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
                fail(
                    QStringLiteral("unknown field \"%1\" (known: %2)").arg(it.key(), names.join(QStringLiteral(", "))));
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

/// The keys of @p table (entries with a `key`: the kinds of a check, of an action) that @p o gives, in the table's
/// order; @p last: the entry of the last of them, nullptr for none.
template <typename Entry, std::size_t N>
QStringList keysGiven(const QJsonObject& o, const Entry (&table)[N], const Entry** last)
{
    QStringList given;
    *last = nullptr;
    for (const Entry& e : table) {
        if (o.contains(QLatin1String(e.key))) {
            given << QString::fromLatin1(e.key);
            *last = &e;
        }
    }
    return given;
}

// lessonchecks.cpp
Probe readProbe(Reader& r, const QJsonValue& v);
Check readCheck(Reader& r, const QJsonValue& v);
/// Appends the probes of @p c and of its sub-checks, in order.
void collectProbes(const Check& c, QList<const Probe*>& out);
int probeCount(const Check& c);
/// Checks the live fields of @p text: {v:K} (when @p probes >= 0, a notice's text) or {v:nID.K} (a step's text,
/// resolved in @p step), and {p:NAME} (any non-empty name; the browser and the tests check the names).
void checkLiveText(Reader& r, const QString& text, const char* field, int probes, const Step* step);
Notice readNotice(Reader& r, const QJsonValue& v);
Predict readPredict(Reader& r, const QJsonValue& v, const Step& step);
Puzzle readPuzzle(Reader& r, const QJsonValue& v);

// lessonactions.cpp
Action readAction(Reader& r, const QJsonValue& v, const Step& s);
Hide readHide(Reader& r, const QJsonValue& v);
/// A "hide" must point inside what the step shows: tokens of its sequence, pairs of its spatial dim.
void checkHide(Reader& r, const Hide& h, const QJsonObject& state);

} // namespace poslab::lessons::detail
