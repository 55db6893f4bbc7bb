// SPDX-License-Identifier: MIT
// Fuzz target: presets (ui/setup/presets.h) on arbitrary JSON: validatePreset never crashes; a preset it accepts
// turns into a state (presetState) that the command line reads (stateSetup) and the window loads
// (WorkbenchState::fromJson, for the 1-D schemes it holds) without a problem.
#include "core/errors.h"
#include "core/spatial.h"
#include "ui/setup/presets.h"
#include "ui/state/workbenchstate.h"

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char*>(data), qsizetype(size));
    const QJsonDocument doc = QJsonDocument::fromJson(bytes);
    if (!doc.isObject())
        return 0;
    const QJsonObject preset = doc.object();
    const QStringList problems = poslab::ui::validatePreset(preset);
    const QJsonObject state = poslab::ui::presetState(preset); // must not crash on an invalid preset either
    if (!problems.isEmpty())
        return 0;
    try {
        (void)poslab::ui::stateSetup(state);
    } catch (const poslab::core::InputError& e) {
        std::fprintf(stderr, "a valid preset's state the command line refuses: %s\n", e.what());
        std::abort();
    }
    // The window's state holds the 1-D schemes; a valid grid or sequence preset (ViT, Qwen2-VL) reaches compute only.
    if (poslab::core::findSpatialScheme(state.value("scheme").toString().toStdString()))
        return 0;
    poslab::ui::WorkbenchState workbench;
    const QString why = workbench.fromJson(state);
    if (!why.isEmpty()) {
        std::fprintf(stderr, "a valid preset's state the window refuses: %s\n", qPrintable(why));
        std::abort();
    }
    return 0;
}
