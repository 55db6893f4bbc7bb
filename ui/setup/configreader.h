// SPDX-License-Identifier: MIT
#pragma once
/// @file configreader.h
/// The typed reading of a config.json's keys for modelconfig.cpp: each getter refuses a value of the wrong type
/// with one line naming the file and the key, and records the keys it read (@c used) and the positional keys
/// PosLab cannot express (@c unmapped), which ModelConfig reports.

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>

#include <optional>

namespace poslab::ui::config {

/// What a JSON value is, in a message's words ("a number", "a list", "true/false").
QString typeName(const QJsonValue& v);

/// A number as the text --set takes: integers without a fraction or exponent, others in the shortest form
/// that reads back to the same double.
QString numberText(double x);

/// @p text on one line: a control character the file put into a key or value it quotes (a newline in
/// "model_type") is written as its JSON escape (\n, \t, \u001b), so the message stays one line.
QString oneLine(const QString& text);

/// Reads keys of one file. Each getter takes the object, the key and the key's dotted path for messages
/// ("rope_scaling.factor"); absent or null gives nullopt; the wrong type throws core::InputError.
class Reader {
public:
    explicit Reader(QString name)
        : m_name(std::move(name))
    { }

    /// Throws core::InputError "NAME: what", on one line.
    [[noreturn]] void fail(const QString& what) const;

    std::optional<double> number(const QJsonObject& o, const QString& key, const QString& path);
    /// An integer (a number without a fraction that fits an int).
    std::optional<int> count(const QJsonObject& o, const QString& key, const QString& path);
    /// A size (heads, widths, lengths): an integer of at least 1, checked before any arithmetic with it (a
    /// head_dim of 0 divided rotary_dim by zero).
    std::optional<int> size(const QJsonObject& o, const QString& key, const QString& path);
    /// true or false; with @p numberIsFlag a number too (nonzero is true).
    std::optional<bool> flag(const QJsonObject& o, const QString& key, const QString& path, bool numberIsFlag = false);
    std::optional<QString> text(const QJsonObject& o, const QString& key, const QString& path);
    /// An object; not marked used (its keys are).
    std::optional<QJsonObject> object(const QJsonObject& o, const QString& key, const QString& path);
    /// A list; not marked used.
    std::optional<QJsonArray> array(const QJsonObject& o, const QString& key, const QString& path);
    /// A list of numbers as --set's comma-separated text ("1,2.5,3").
    std::optional<QString> numberList(const QJsonObject& o, const QString& key, const QString& path);

    /// The value of @p key when present (not absent, not null), marked used with @p markUsed; fails
    /// "PATH must be KIND, got TYPE" unless @p is holds for it.
    std::optional<QJsonValue> present(const QJsonObject& o, const QString& key, const QString& path,
                                      bool (QJsonValue::*is)() const, const char* kind, bool markUsed);
    /// Marks @p path read.
    void use(const QString& path);
    /// Names @p path as positional but not expressible, with the reason; no longer counted as read.
    void unmap(const QString& path, const QString& why);

    QString m_name;
    QStringList used, unmapped;
    QStringList notes; ///< remarks that name no key (which half of a model is shown, a derived length)
};

} // namespace poslab::ui::config
