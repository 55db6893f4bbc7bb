// SPDX-License-Identifier: MIT
#pragma once
/// @file configstages.h
/// What the two files of the config.json reader share (not part of its API): the config being read, which the
/// stages fill in order. modelconfig.cpp reads the names, sizes and the non-rotary schemes and chooses the scheme;
/// modelconfigrope.cpp reads the rotary keys.

#include "core/encodingregistry.h"
#include "ui/setup/configreader.h"

#include <QJsonObject>
#include <QString>

#include <algorithm>
#include <optional>

namespace poslab::ui::config {

/// One config.json being read: the file's object, the language model's object (text_config when there is one)
/// and what the stages below have found so far, in the order they run.
struct Config {
    Config(Reader& reader, QJsonObject json)
        : r(reader)
        , root(std::move(json))
        , c(root)
    { }

    Reader& r;
    QJsonObject root;
    QJsonObject c; ///< the language model's settings
    QString pre;   ///< "text_config." when @c c is text_config: the prefix of its keys in messages
    QString modelType, nameOrPath;
    std::optional<int> heads, hidden, layers, context, headDim, trained;
    QString scheme;
    core::Overrides params; ///< the scheme's keys as --set takes them

    QString key(const QString& k) const { return pre + k; }
    void set(const QString& k, const QString& v) { params.emplace_back(k.toStdString(), v.toStdString()); }
    /// Whether a stage has set @p k already.
    bool isSet(const char* k) const
    {
        return std::any_of(params.begin(), params.end(), [&](const auto& p) { return p.first == k; });
    }
};

/// The rotary settings: rope_parameters or rope_scaling, rope_theta, the rope type's keys, and the NoPE layers of
/// iRoPE (Llama 4) and SmolLM3. @p falconAlibi: Falcon's alibi flag was read (and is false).
void readRotary(Config& m, bool falconAlibi);

} // namespace poslab::ui::config
