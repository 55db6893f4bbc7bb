// SPDX-License-Identifier: MIT
#include "core/encodings/vitlearned.h"

#include "core/encodings/learned.h"
#include "core/errors.h"
#include "core/interpolate.h"
#include "core/io/positiontable.h"

namespace poslab::core {

namespace {

void validateVit(const ParamSet& params, const SpatialContext& ctx)
{
    if (ctx.cls && !params.flag("class_token"))
        throw InputError("--cls asks for the class-token row, but class_token is false for this table");
    const double rows = double(params.integer("table_rows")) * double(params.integer("table_cols"));
    if (rows > double(maxSpatialTokens))
        throw InputError("vit_learned: a table of " + std::to_string(params.integer("table_rows")) + " x "
                         + std::to_string(params.integer("table_cols")) + " patches is more than "
                         + std::to_string(maxSpatialTokens));
}

} // namespace

MatrixF vitLearnedEncoding(const ParamSet& params, const SpatialContext& ctx)
{
    validateVit(params, ctx);
    const int h = int(params.integer("table_rows")), w = int(params.integer("table_cols"));
    const int prefix = params.flag("class_token") ? 1 : 0;
    const long long rows = prefix + (long long)h * w;
    MatrixF table;
    const std::string& path = params.text("table_file");
    if (!path.empty()) {
        // The shape is judged from the header, before a byte of the data is read (a 512 MB file of the wrong
        // shape used to be read whole first); then only its rows are read, from the mapping.
        const auto fits = [&](std::uint64_t fileRows, std::uint64_t fileCols, const std::string&) {
            if (fileRows != std::uint64_t(rows) || fileCols != std::uint64_t(ctx.dim))
                throw InputError("vit_learned: " + path + " holds " + std::to_string(fileRows) + " x "
                                 + std::to_string(fileCols) + "; table_rows x table_cols = " + std::to_string(h) + " x "
                                 + std::to_string(w) + (prefix ? " plus the class row" : "") + " at --dim "
                                 + std::to_string(ctx.dim) + " needs " + std::to_string(rows) + " x "
                                 + std::to_string(ctx.dim));
        };
        const auto file = loadPositionTable(path, params.text("table_tensor"), fits);
        table = file->readRows(0, rows);
    } else {
        table = learnedBaseTable(rows, ctx.dim, params.real("init_std"), (unsigned long long)params.integer("seed"));
    }
    const MatrixD grid = table.bottomRows(rows - prefix).cast<double>();
    const MatrixD resized = resizeGrid(grid, h, w, ctx.grid.rows, ctx.grid.cols,
                                       parseInterpolation(params.choice("interpolation")), params.flag("antialias"));
    const int first = ctx.cls ? 1 : 0;
    MatrixF out(resized.rows() + first, ctx.dim);
    if (ctx.cls)
        out.row(0) = table.row(0); // the prefix token is kept as it is
    out.bottomRows(resized.rows()) = resized.cast<float>();
    return out;
}

SpatialSchemeDescriptor vitLearnedScheme()
{
    SpatialSchemeDescriptor d;
    SchemeDescriptor& s = d.info;
    s.id = "vit_learned";
    s.name = "ViT learned table over the patch grid";
    s.family = "absolute, learned, 2-D";
    s.relation = Relation::Absolute;
    s.application = Application::Embedding;
    s.origin = Origin::Learned;
    s.citation = "Dosovitskiy et al. 2021, An Image is Worth 16x16 Words (ICLR), section 3.2 and appendix D.4";
    s.year = 2021;
    s.reference = "google-research/vision_transformer vit_jax/models_vit.py AddPositionEmbs; "
                  "huggingface/pytorch-image-models timm/layers/pos_embed.py resample_abs_pos_embed";
    s.formula = "x = [cls; patches] + P,  P = [P_cls; resize(P_grid, table_rows x table_cols -> H x W)]";
    s.summary = "One learned vector per patch of the training grid plus the class token; at another image size "
                "the grid part is resized as an image (bicubic in timm) and the class row kept.";
    s.params = {
        intParam("table_rows", 14, 1, maxGridSide,
                 "Rows of the trained patch grid (ViT-B/16 at 224 px: 224 / 16 = 14)"),
        intParam("table_cols", 14, 1, maxGridSide, "Columns of the trained patch grid (14 for ViT-B/16 at 224 px)"),
        boolParam("class_token", true, "The table's row 0 is the class token's (ViT, DeiT); it is never resized"),
        choiceParam("interpolation", "bicubic", {"bicubic", "bilinear"},
                    "How the grid part is resized (timm resample_abs_pos_embed: bicubic, as DeiT and MAE too)"),
        boolParam("antialias", true,
                  "PyTorch's antialiased resampling (timm's default True): Keys' cubic with "
                  "A = -0.5 instead of -0.75, weights renormalised at the borders"),
        textParam("table_file", "", 4096,
                  "A trained table (.npy or .safetensors, rows x D, e.g. timm's pos_embed[0]) "
                  "instead of the random one"),
        textParam("table_tensor", "", 1024, "The tensor to read from a .safetensors table_file"),
        when(realParam("init_std", 0.02, 0.0, 1.0,
                       "Standard deviation of the random table (vision_transformer: "
                       "normal(stddev=0.02); timm: trunc_normal_(std=.02))"),
             "table_file", {""}),
        when(intParam("seed", 0, 0, 2147483647, "Seed of the random table"), "table_file", {""}),
    };
    d.input = SpatialInput::Grid;
    d.hasClassToken = true;
    d.encoding = vitLearnedEncoding;
    d.validate = validateVit;
    return d;
}

} // namespace poslab::core
