// SPDX-License-Identifier: MIT
#pragma once
/// @file traincli.h
/// `poslab train` (trains the length lab's tiny transformer per scheme and seed, writes the run file) and
/// `poslab train-bench` (seconds to 95% exact match per scheme): thin clients of core/train/trainer.h.

#include "app/cli.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace poslab::app {

const std::vector<OptionSpec>& trainOptions();
const std::vector<OptionSpec>& trainBenchOptions();
/// `poslab train ...` without the command word. Progress lines go to @p err.
int runTrainCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
/// `poslab train-bench ...` without the command word.
int runTrainBenchCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
/// The default-size training step time for `poslab bench` (train_step_ms).
core::BenchFigure trainStepBenchmark();
/// The usage lines of both commands.
std::string trainUsage();

} // namespace poslab::app
