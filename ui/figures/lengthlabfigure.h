// SPDX-License-Identifier: MIT
#pragma once
/// @file lengthlabfigure.h
/// The length-lab figure: the length-generalisation curves of a run file of `poslab train` or of the window's own
/// runs (core::train::readRuns and lengthCurves) with each run's loss against the step, which the lengthlab view
/// draws, and its data export.

#include "ui/figures/figure.h"

#include "core/train/trainer.h"

#include <memory>

namespace poslab::ui {

/// The lengthlab view's numbers: the run file named by the view option run_file, read and summarised by core
/// (core::train::readRuns, lengthCurves), or the window's runs.
struct LengthLabData {
    QString error; ///< non-empty when there is no file or it cannot be read
    QString file;
    core::train::LengthCurves curves;
    /// The runs are the window's own (WorkbenchState::trainedRuns), not read from run_file.
    bool window = false;
    bool running = false; ///< the window's runs are still training (curves are previews)
    QString message;      ///< the window's last problem or stop (a divergence names its step)
    /// Each run's loss against the step (so far while training; kept once done, and read from a run file's
    /// loss_curve), in its group's colour.
    struct LossSeries {
        int group = 0; ///< index into curves.groups
        std::vector<int> steps;
        std::vector<double> loss;
        int totalSteps = 0;
    };
    std::vector<LossSeries> losses;
};

/// The length-lab figure (figure.h's pattern). It does not depend on the set-up: it draws what the runs hold.
struct LengthLabFigure {
    /// The run file, the measure and the window's runs (compared by identity: the state publishes a new object
    /// for every change).
    struct Inputs {
        QString runFile;
        LengthMetricChoice metric = LengthMetricChoice::ExactMatch;
        std::shared_ptr<const TrainedRuns> window;
        bool operator==(const Inputs&) const = default;
    };
    static Inputs inputsOf(const FigureSnapshot& snapshot);
    using Data = LengthLabData;
    /// The window's runs when there are any and run_file is empty or names the file they were saved to: the same
    /// curves (core::train::lengthCurves) as the file would give, with the loss so far; else the run file's
    /// (fromRunFile); an error message when there is neither.
    static LengthLabData compute(const Inputs& inputs);
    /// The curves of the run file @p runFile in the measure @p metric (core::train::readRuns, lengthCurves), with
    /// each run's loss curve; an error message when @p runFile is empty or cannot be read. Reads the file.
    static LengthLabData fromRunFile(const QString& runFile, LengthMetricChoice metric);
    /// The curves: rows = every seed's curve and then each scheme's mean, columns = the test lengths; NaN where a
    /// run has no such length. Throws core::RefusedError when there is nothing to draw.
    static core::ComputeResult dataExport(const FigureSnapshot& snapshot, QStringList* notes);
};

} // namespace poslab::ui
