// SPDX-License-Identifier: MIT
#include "core/encodings/learned.h"

#include "core/errors.h"
#include "core/io/positiontable.h"
#include "core/random.h"

#include <algorithm>
#include <vector>

namespace poslab::core {

namespace {

// One generator per row, seeded from (seed, row): a row does not depend on which other rows are drawn.
void drawRow(Position row, int dim, double initStd, unsigned long long seed, float* out)
{
    SeededRandom rng(seed * 0x9E3779B97F4A7C15ull + std::uint64_t(row) * 0xD1B54A32D192ED03ull + 1);
    for (int d = 0; d < dim; ++d)
        out[d] = float(initStd * rng.normal());
}

} // namespace

MatrixF learnedBaseTable(long long rows, int dim, double initStd, unsigned long long seed)
{
    MatrixF t(rows, dim);
    for (long long r = 0; r < rows; ++r)
        drawRow(r, dim, initStd, seed, t.row(r).data());
    return t;
}

namespace {

/// Where the rows come from: the file named by table_file (loaded once, cached by path and mtime), or the
/// seeded draw.
struct RowSource {
    std::shared_ptr<const PositionTable> file; ///< null: seeded rows
    long long rows = 0;                        ///< n, the table's rows (max_position_embeddings)
    double initStd = 0.0;
    unsigned long long seed = 0;

    void row(Position r, int dim, float* out) const
    {
        if (file)
            file->readRow(r, out); // straight from the mapping: only this row's pages are touched
        else
            drawRow(r, dim, initStd, seed, out);
    }
};

/// A loaded table fixes the dimension.
void checkTableWidth(const TableContext& ctx, std::uint64_t cols, const std::string& source)
{
    if (std::uint64_t(ctx.dim) != cols)
        throw InputError("dimension " + std::to_string(ctx.dim) + " differs from the table in " + source
                         + ", which has " + std::to_string(cols) + " columns; set the dimension (--dim) to "
                         + std::to_string(cols));
}

RowSource rowSource(const ParamSet& params, const TableContext& ctx)
{
    RowSource s;
    const std::string& path = params.text("table_file");
    if (!path.empty()) {
        // The width is checked from the file's header, before its data are read.
        s.file = loadPositionTable(
            path, params.text("table_tensor"),
            [&](std::uint64_t, std::uint64_t cols, const std::string& source) { checkTableWidth(ctx, cols, source); });
        s.rows = s.file->rows;
        return s;
    }
    s.rows = params.integer("max_position_embeddings");
    s.initStd = params.real("init_std");
    s.seed = (unsigned long long)params.integer("seed");
    return s;
}

// A loaded table fixes the dimension; positions past the table have no vector: a learned table cannot
// extrapolate (the point of the scheme).
void checkRequest(const ParamSet& params, const TableContext& ctx, const RowSource& src)
{
    const long long n = src.rows;
    if (src.file)
        checkTableWidth(ctx, std::uint64_t(src.file->cols), src.file->source);
    const bool hier = params.flag("hierarchical");
    const long long limit = hier ? n * n : n;
    const Position top = ctx.positions.maxValue();
    const std::string rows = src.file ? std::to_string(n) + " rows of " + src.file->source
                                      : "learned table's " + std::to_string(n) + " rows (max_position_embeddings)";
    if (top >= limit) {
        if (hier)
            throw InputError("position " + std::to_string(top) + " is beyond the hierarchical extension of the " + rows
                             + " (n^2 = " + std::to_string(limit) + " positions)");
        throw InputError("position " + std::to_string(top) + " is beyond the " + rows
                         + "; set hierarchical=true to extend it to n^2 = " + std::to_string(n * n) + " positions");
    }
}

void validateLearned(const ParamSet& params, const TableContext& ctx)
{
    if (ctx.dim < 1)
        throw InputError("learned needs --dim of at least 1; got " + std::to_string(ctx.dim));
    checkRequest(params, ctx, rowSource(params, ctx));
}

} // namespace

MatrixF learnedEncoding(const ParamSet& params, const TableContext& ctx)
{
    const RowSource src = rowSource(params, ctx);
    const long long n = src.rows;
    const bool hier = params.flag("hierarchical");
    checkRequest(params, ctx, src);
    const std::size_t count = ctx.positions.size();
    if (src.file) {
        // What becomes resident is counted before a row is read: the rows' pages of the mapping (each position's
        // row; hierarchically row 0, i and j) and the result (compute's checkTable counts it too, alone).
        const double rows = hier ? 1.0 + 2.0 * double(count) : double(count);
        checkTableRows(*src.file, rows, double(count) * double(ctx.dim) * (sizeof(float) + sizeof(double)), ctx.limits,
                       "ask for fewer positions, or raise the cap (--max-memory)");
    }
    MatrixF out(Eigen::Index(count), ctx.dim);
    if (!hier) {
        // Only the rows asked for.
        for (std::size_t r = 0; r < count; ++r)
            src.row(ctx.positions[r], ctx.dim, out.row(Eigen::Index(r)).data());
        return out;
    }
    // Only the rows the positions need (row 0, row i and row j of each), never the whole n-row table.
    const double a = params.real("alpha");
    std::vector<float> p0(std::size_t(ctx.dim)), pi(std::size_t(ctx.dim)), pj(std::size_t(ctx.dim));
    src.row(0, ctx.dim, p0.data());
    for (std::size_t r = 0; r < count; ++r) {
        const Position p = ctx.positions[r];
        if (p < n) {
            // Su's construction gives q_j = p_j for j < n; take the row itself so it holds bit for bit.
            src.row(p, ctx.dim, out.row(Eigen::Index(r)).data());
            continue;
        }
        src.row(p / n, ctx.dim, pi.data());
        src.row(p % n, ctx.dim, pj.data());
        // Su 2020 (kexue.fm/archives/7947), 0-based: u_i = (p_i - alpha p_0)/(1 - alpha),
        // q_(i*n+j) = alpha u_i + (1 - alpha) u_j.
        for (std::size_t d = 0; d < std::size_t(ctx.dim); ++d) {
            const double ui = (double(pi[d]) - a * double(p0[d])) / (1.0 - a);
            const double uj = (double(pj[d]) - a * double(p0[d])) / (1.0 - a);
            out(Eigen::Index(r), Eigen::Index(d)) = float(a * ui + (1.0 - a) * uj);
        }
    }
    return out;
}

SchemeDescriptor learnedScheme()
{
    SchemeDescriptor s;
    s.id = "learned";
    s.name = "Learned absolute table";
    s.shortName = "Learned";
    s.trainedAs = TrainedAs::LearnedTable;
    s.family = "absolute, learned";
    s.relation = Relation::Absolute;
    s.application = Application::Embedding;
    s.origin = Origin::Learned;
    s.citation = "Gehring et al. 2017 (ConvS2S); Devlin et al. 2019 (BERT); Radford et al. 2019 (GPT-2). "
                 "Hierarchical extension: Su 2020, kexue.fm/archives/7947";
    s.year = 2017;
    s.reference = "openai/gpt-2 src/model.py (wpe, stddev 0.01); huggingface/transformers "
                  "models/gpt2/modeling_gpt2.py (initializer_range 0.02)";
    s.formula = "x_p = e(token_p) + P[p],  P = a trained table (table_file), or P[p] ~ N(0, init_std^2) at "
                "initialisation;  hierarchical: "
                "q_(i*n+j) = alpha*u_i + (1-alpha)*u_j,  u_i = (P[i] - alpha*P[0]) / (1-alpha)";
    s.summary = "One free vector per position, learned in training; nothing exists beyond the last trained row "
                "unless the table is extended.";
    s.params = {
        textParam("table_file", "", 4096,
                  "A trained table to show instead of the random one: an .npy file or a "
                  ".safetensors file (float32, float16 or bfloat16; rows = positions); empty = seeded random rows"),
        textParam("table_tensor", "", 1024,
                  "The tensor to read from a .safetensors table_file, e.g. wpe.weight "
                  "(GPT-2) or embeddings.position_embeddings.weight (BERT); ignored for .npy"),
        // The random table's knobs apply only without a file (a file brings its own rows and values).
        when(intParam("max_position_embeddings", 1024, 1, 1 << 20,
                      "Rows in the random table: the longest "
                      "trainable context",
                      true),
             "table_file", {""}),
        when(realParam("init_std", 0.02, 0.0, 1.0,
                       "Standard deviation of the random initialisation (GPT-2 code "
                       "0.01, Hugging Face 0.02)"),
             "table_file", {""}),
        when(intParam("seed", 0, 0, 2147483647, "Seed of the random initialisation"), "table_file", {""}),
        boolParam("hierarchical", false, "Extend n rows to n^2 positions by Su's hierarchical decomposition"),
        when(realParam("alpha", 0.4, 0.0, 0.99, "Hierarchical mixing weight alpha (Su uses 0.4)"), "hierarchical",
             {"true"}),
    };
    s.encoding = learnedEncoding;
    s.validate = validateLearned;
    return s;
}

} // namespace poslab::core
