// SPDX-License-Identifier: MIT
#include "ui/figures/lengthlabfigure.h"

#include "core/errors.h"
#include "core/io/inputfile.h"

#include <algorithm>

namespace poslab::ui {
namespace {

/// Each run's loss against the step, in its group's colour (the lengthlab view's lower panel).
void addLosses(LengthLabData& d, const std::vector<core::train::RunResult>& runs, bool running)
{
    for (const core::train::RunResult& r : runs) {
        if (r.loss.empty())
            continue;
        LengthLabData::LossSeries l;
        // The run's group: the one whose label core gives this run alone (scheme plus its settings).
        const std::string label = core::train::lengthCurves({r}, core::train::LengthMetric::Loss).groups.at(0).label;
        for (std::size_t g = 0; g < d.curves.groups.size(); ++g)
            if (d.curves.groups[g].label == label)
                l.group = int(g);
        // While training the axis runs to the steps asked for; once done, to the last step taken.
        l.totalSteps
            = running ? std::max(r.config.steps, r.loss.back().step) : std::max(r.stepsDone, r.loss.back().step);
        for (const core::train::LossPoint& p : r.loss) {
            l.steps.push_back(p.step);
            l.loss.push_back(p.loss);
        }
        d.losses.push_back(std::move(l));
    }
}

} // namespace

LengthLabFigure::Inputs LengthLabFigure::inputsOf(const FigureSnapshot& s)
{
    return {s.options.runFile, s.options.lengthMetric, s.trainedRuns};
}

LengthLabData LengthLabFigure::fromRunFile(const QString& runFile, LengthMetricChoice metric)
{
    LengthLabData d;
    d.file = runFile;
    if (runFile.isEmpty()) {
        d.error = QObject::tr("No run file: train with poslab train -o run.json, then open it (File > Open or "
                              "poslab --open run.json)");
        return d;
    }
    // The one bounded reader: a run file larger than 16 MiB is refused as such (not cut and then called invalid
    // JSON), and a device or an endless pipe is refused without being read.
    std::string bytes;
    try {
        bytes = core::readInputFile(runFile.toStdString(), std::uint64_t(16) << 20, std::string(),
                                    "a run file of poslab train is a few megabytes");
    } catch (const std::exception& e) {
        d.error = QString::fromStdString(e.what());
        return d;
    }
    try {
        const std::vector<core::train::RunResult> runs = core::train::readRuns(std::string_view(bytes));
        d.curves = core::train::lengthCurves(runs, core::train::LengthMetric(int(metric)));
        addLosses(d, runs, false);
    } catch (const std::exception& e) {
        d.error = QObject::tr("%1: %2").arg(runFile, QString::fromStdString(e.what()));
    }
    return d;
}

LengthLabData LengthLabFigure::compute(const Inputs& in)
{
    const TrainedRuns* window = in.window.get();
    if (in.runFile.isEmpty() && (!window || window->runs.empty())) {
        LengthLabData d;
        d.error = QObject::tr("No run file and no runs yet: choose schemes and press Train, or open a run file of "
                              "poslab train -o run.json (File > Open)");
        return d;
    }
    if (!window || window->runs.empty() || !(in.runFile.isEmpty() || in.runFile == window->file))
        return fromRunFile(in.runFile, in.metric);
    LengthLabData d;
    d.file = window->file;
    d.window = true;
    d.running = window->running;
    d.message = window->message;
    try {
        d.curves = core::train::lengthCurves(window->runs, core::train::LengthMetric(int(in.metric)));
    } catch (const std::exception& e) {
        d.error = QString::fromStdString(e.what());
        return d;
    }
    // The loss so far while training, and kept once done (the run file holds it too).
    addLosses(d, window->runs, window->running);
    return d;
}

core::ComputeResult LengthLabFigure::dataExport(const FigureSnapshot& s, QStringList* notes)
{
    const LengthLabData d = computeFigure<LengthLabFigure>(s);
    if (!d.error.isEmpty())
        throw core::RefusedError("the lengthlab view has nothing to draw: " + d.error.toStdString());
    const core::train::LengthCurves& c = d.curves;
    core::ComputeResult r;
    r.quantity = "lengthlab";
    r.axes = {"curve", "test_length"};
    for (int L : c.lengths)
        r.columns.push_back(std::to_string(L));
    std::size_t rows = 0;
    for (const auto& g : c.groups) {
        for (std::size_t k = 0; k < g.values.size(); ++k) {
            r.data.insert(r.data.end(), g.values[k].begin(), g.values[k].end());
            r.labels.push_back({"curve_" + std::to_string(rows++), g.label + " seed " + std::to_string(g.seeds[k])});
        }
        r.data.insert(r.data.end(), g.mean.begin(), g.mean.end());
        r.labels.push_back({"curve_" + std::to_string(rows++), g.label + " mean"});
    }
    r.shape = {rows, c.lengths.size()};
    r.labels.push_back({"measure", std::string(core::train::lengthMetricName(c.metric))});
    r.labels.push_back({"task", c.task});
    for (int L : c.trainLens)
        r.scalars.push_back({"train_len", double(L)});
    if (notes)
        *notes << QStringLiteral("every seed's curve, then each scheme's mean (curves x test lengths)");
    return r;
}

} // namespace poslab::ui
