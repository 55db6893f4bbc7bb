// SPDX-License-Identifier: MIT
#pragma once
/// @file soak.h
/// `poslab --soak SECONDS` (hidden; scripts/soak.sh runs it under Xvfb): the real window plays its animation
/// while a parameter sweeps back and forth through WorkbenchState's setters (rope_theta of RoPE from 100 to
/// 1,000,000 and back, every 50 ms, as a slider drag: mergeable, so the undo stack holds one step), and the
/// resident memory (VmRSS of /proc/self/status) is sampled every second and printed, one line each.
/// After the warm-up (the first 10 seconds, or a fifth of the run when that is longer) the highest sample
/// of the warm-up is the baseline; a sample more than soakGrowthLimitMiB above it ends the run with exit
/// status 1. Otherwise the run exits 0 after SECONDS with a summary line (baseline, last, growth per minute).

namespace poslab::ui {
class MainWindow;
}

namespace poslab::app {

/// The growth of resident memory over the warm-up's highest sample that fails a soak run.
inline constexpr double soakGrowthLimitMiB = 48.0;

/// Starts the soak on @p window (already shown or about to be); the application exits when it ends.
void startSoak(ui::MainWindow& window, int seconds);

} // namespace poslab::app
