// SPDX-License-Identifier: MIT
#include "core/encodings/nope.h"

namespace poslab::core {

namespace {
MatrixF nopeEncoding(const ParamSet&, const TableContext& ctx)
{
    return MatrixF::Zero(Eigen::Index(ctx.positions.size()), ctx.dim);
}
} // namespace

SchemeDescriptor nopeScheme()
{
    SchemeDescriptor s;
    s.id = "nope";
    s.name = "No positional encoding (NoPE)";
    s.shortName = "NoPE";
    s.trainedAs = TrainedAs::NoPosition;
    s.family = "none";
    s.relation = Relation::None;
    s.application = Application::Nothing;
    s.origin = Origin::None;
    s.citation = "Kazemnejad et al. 2023, The Impact of Positional Encoding on Length Generalization in "
                 "Transformers (NeurIPS 2023)";
    s.year = 2023;
    s.reference = "github.com/McGill-NLP/length-generalization";
    s.formula = "x_p = e(token_p)   (nothing added; only the causal mask orders tokens)";
    s.summary = "Adds nothing. Without a causal mask attention is permutation-equivariant; with one, "
                "order leaks through what each token may see.";
    s.encoding = nopeEncoding;
    return s;
}

} // namespace poslab::core
