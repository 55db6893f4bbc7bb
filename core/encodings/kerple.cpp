// SPDX-License-Identifier: MIT
#include "core/encodings/kerple.h"

#include "core/errors.h"

#include <cmath>

namespace poslab::core {

double kerpleBias(bool logVariant, double r1, double r2, double distance)
{
    // 0.0 - x rather than -x, so distance 0 gives +0 (printed "0", not "-0").
    return logVariant ? 0.0 - r1 * std::log1p(r2 * distance) : 0.0 - r1 * std::pow(distance, r2);
}

namespace {
MatrixD kerpleBiasMatrix(const ParamSet& p, const PairContext& ctx, int)
{
    const bool lg = p.choice("variant") == "log";
    const double r1 = p.real("r1");
    const double r2 = p.real("r2");
    MatrixD b(Eigen::Index(ctx.queries.size()), Eigen::Index(ctx.keys.size()));
    for (std::size_t i = 0; i < ctx.queries.size(); ++i)
        for (std::size_t j = 0; j < ctx.keys.size(); ++j)
            b(Eigen::Index(i), Eigen::Index(j))
                = kerpleBias(lg, r1, r2, std::fabs(double(ctx.queries[i] - ctx.keys[j])));
    return b;
}

void validateKerple(const ParamSet& p, const TableContext&)
{
    if (p.choice("variant") == "power" && p.real("r2") > 2.0)
        throw InputError("r2 " + p.value("r2").toString()
                         + " is out of range for the power variant; allowed: "
                           "0 < r2 <= 2 (the kernel must stay conditionally positive definite)");
}
} // namespace

SchemeDescriptor kerpleScheme()
{
    SchemeDescriptor s;
    s.id = "kerple";
    s.name = "KERPLE (kernelized relative positions)";
    s.shortName = "KERPLE";
    s.trainedAs = TrainedAs::Kerple;
    s.family = "relative bias, learned";
    s.relation = Relation::Relative;
    s.relativePosition = "query - key";
    s.application = Application::ScoreBias;
    s.origin = Origin::Learned;
    s.citation = "Chi, Fan, Ramadge, Rudnicky 2022, KERPLE: Kernelized Relative Positional Embedding for Length "
                 "Extrapolation (NeurIPS 2022), section 4.2";
    s.year = 2022;
    s.reference = "chijames/KERPLE megatron/mpu/layers.py ParallelKerpleLog, ParallelKerplePower";
    s.formula = "log: b = -r1 ln(1 + r2 |i-j|);   power: b = -r1 |i-j|^r2 (0 < r2 <= 2)";
    s.summary = "Generalises ALiBi with a kernel of the distance: the log variant decays fast nearby and slowly far "
                "away. r1 and r2 are learned per head in the paper; here they are knobs.";
    s.params = {
        choiceParam("variant", "log", {"log", "power"}, "Kernel: log (-r1 ln(1 + r2 |i-j|)) or power (-r1 |i-j|^r2)"),
        realParam("r1", 1.0, 1e-3, 100.0, "Scale r1 > 0 of the bias", true),
        realParam("r2", 1.0, 1e-3, 100.0, "Log: rate inside the logarithm; power: exponent (at most 2)", true),
    };
    s.bias = kerpleBiasMatrix;
    s.validate = validateKerple;
    return s;
}

} // namespace poslab::core
