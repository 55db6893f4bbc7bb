// SPDX-License-Identifier: MIT
#pragma once
/// @file benchmark.h
/// The workbench's frame-time benchmark for `poslab bench`: a scripted sweep of a parameter slider on the
/// real main window at default sizes (table 1024 x 128, attention 512 x 512), timing each step from the
/// slider move to every visible view repainted.

#include "core/bench.h"

#include <vector>

namespace poslab::ui {

/// Needs a QApplication. Returns "frame_ms_median", "frame_ms_p95" (and "frame_count"), then the same sweep with
/// compare mode side by side (two configurations drawn): "frame_ms_median_compare", "frame_ms_p95_compare".
std::vector<core::BenchFigure> runWorkbenchBenchmark();

} // namespace poslab::ui
