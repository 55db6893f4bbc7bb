// SPDX-License-Identifier: MIT
#pragma once
/// @file stateform.h
/// Small pieces of the state form (the JSON of WorkbenchState::toJson and of the spatial set-up) that its
/// readers share: how a message quotes a value, and the text a parameter value gives.

#include <QJsonValue>
#include <QString>

#include <optional>

namespace poslab::ui {

/// @p v as JSON text (2.5, "x", null, [1,2]): how a message quotes the value it refuses.
QString jsonText(const QJsonValue& v);

/// The text a parameter's value in a state file gives to core's resolver, as `--set KEY=TEXT` would: a string as
/// it is, a number to 17 significant digits, true or false; nullopt for any other JSON value.
std::optional<QString> paramText(const QJsonValue& v);

} // namespace poslab::ui
