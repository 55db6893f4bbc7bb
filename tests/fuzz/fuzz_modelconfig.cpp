// SPDX-License-Identifier: MIT
// Fuzz target: the Hugging Face config.json reader (ui/setup/modelconfig.h parseModelConfig). Any bytes give a
// state object or one InputError line; a state it gives must also pass the command line's reading of it
// (stateSetup) and load into the workbench (WorkbenchState::fromJson returns no error).
#include "core/errors.h"
#include "ui/setup/modelconfig.h"
#include "ui/setup/presets.h"
#include "ui/state/workbenchstate.h"

#include <QByteArray>
#include <QCoreApplication>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char*>(data), qsizetype(size));
    poslab::ui::ModelConfig config;
    try {
        config = poslab::ui::parseModelConfig(bytes, QStringLiteral("config.json"));
    } catch (const poslab::core::InputError& e) {
        if (std::string(e.what()).find('\n') != std::string::npos)
            std::abort(); // one line
        return 0;
    }
    try {
        (void)poslab::ui::stateSetup(config.state);
    } catch (const poslab::core::InputError& e) {
        std::fprintf(stderr, "a config.json state the command line refuses: %s\n", e.what());
        std::abort();
    }
    poslab::ui::WorkbenchState state;
    const QString why = state.fromJson(config.state);
    if (!why.isEmpty()) {
        std::fprintf(stderr, "a config.json state the window refuses: %s\n", qPrintable(why));
        std::abort();
    }
    return 0;
}
