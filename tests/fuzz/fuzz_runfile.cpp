// SPDX-License-Identifier: MIT
// Fuzz target: the training run file reader (core/train/trainer.h readRuns, what `poslab --open run.json` and
// `poslab export lengthlab --run` read) and the lengthlab view's curves built from what it accepts. Any bytes
// give runs or an InputError; curves built from accepted runs never hold a non-finite mean.
#include "core/errors.h"
#include "core/train/trainer.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const auto runs = poslab::core::train::readRuns(text);
        for (const auto metric :
             {poslab::core::train::LengthMetric::ExactMatch, poslab::core::train::LengthMetric::TokenAccuracy,
              poslab::core::train::LengthMetric::Loss})
            (void)poslab::core::train::lengthCurves(runs, metric);
    } catch (const poslab::core::InputError&) {
    } catch (const poslab::core::RefusedError&) { }
    return 0;
}
