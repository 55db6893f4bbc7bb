// SPDX-License-Identifier: MIT
// Learned absolute table: seeded N(0, init_std^2) initialisation (openai/gpt-2 src/model.py wpe; Hugging Face
// GPT2PreTrainedModel._init_weights) and Su's hierarchical extension (kexue.fm/archives/7947).
#include "core/encodingregistry.h"
#include "core/encodings/learned.h"
#include "core/errors.h"

#include <QTest>

#include <cmath>
#include <string>

using namespace poslab::core;

namespace {

TableContext context(int dim, PositionList positions)
{
    TableContext ctx;
    ctx.dim = dim;
    ctx.positions = std::move(positions);
    return ctx;
}

ParamSet params(const std::vector<std::pair<std::string, std::string>>& overrides, const TableContext& ctx)
{
    return resolveParams(schemeOrThrow("learned"), overrides, ctx);
}

} // namespace

class TestLearned : public QObject {
    Q_OBJECT
private slots:
    void deterministicBySeed();
    void rowsIndependentOfRequest();
    void initialisationIsNormalWithInitStd();
    void hierarchicalKeepsFirstRowsExactly();
    void hierarchicalFormula();
    void positionsBeyondTableRejected();
};

void TestLearned::deterministicBySeed()
{
    const TableContext ctx = context(16, PositionList::range(0, 32));
    const MatrixF a = learnedEncoding(params({{"seed", "7"}}, ctx), ctx);
    const MatrixF b = learnedEncoding(params({{"seed", "7"}}, ctx), ctx);
    const MatrixF c = learnedEncoding(params({{"seed", "8"}}, ctx), ctx);
    QVERIFY(a == b);
    QVERIFY(a != c);
    // Different rows of one table differ too (a generator reseeded identically per row would fail).
    QVERIFY(a.row(0) != a.row(1));
}

void TestLearned::rowsIndependentOfRequest()
{
    // Row r is the same whether 1 or 100 rows are asked for, and equals learnedBaseTable's row r.
    const TableContext all = context(8, PositionList::range(0, 100));
    const TableContext one = context(8, PositionList::list({57}));
    const ParamSet p = params({{"seed", "3"}, {"init_std", "0.01"}}, all);
    const MatrixF a = learnedEncoding(p, all);
    const MatrixF b = learnedEncoding(p, one);
    const MatrixF t = learnedBaseTable(100, 8, 0.01, 3);
    QVERIFY(a.row(57) == b.row(0));
    QVERIFY(a == t);
}

void TestLearned::initialisationIsNormalWithInitStd()
{
    // GPT-2 (openai/gpt-2 src/model.py) draws wpe from N(0, 0.01^2); Hugging Face uses initializer_range 0.02.
    // 4096 x 64 = 262144 samples: the sample std has relative standard error 1/sqrt(2N) ~ 0.14%.
    for (const char* stdText : {"0.02", "0.01"}) {
        const double sigma = std::stod(stdText);
        const TableContext ctx = context(64, PositionList::range(0, 4096));
        const MatrixF m
            = learnedEncoding(params({{"max_position_embeddings", "4096"}, {"init_std", stdText}}, ctx), ctx);
        const double n = double(m.size());
        long double sum = 0, sumSq = 0;
        long double within1 = 0, within2 = 0;
        for (Eigen::Index i = 0; i < m.size(); ++i) {
            const double x = m.data()[i];
            sum += x;
            sumSq += (long double)x * x;
            within1 += std::fabs(x) < sigma ? 1 : 0;
            within2 += std::fabs(x) < 2 * sigma ? 1 : 0;
        }
        const double mean = double(sum / n);
        const double sd = std::sqrt(double(sumSq / n) - mean * mean);
        QVERIFY2(std::fabs(mean) < 5 * sigma / std::sqrt(n), qPrintable(QString::number(mean)));
        QVERIFY2(std::fabs(sd / sigma - 1.0) < 0.01, qPrintable(QString::number(sd)));
        // Normal, not just the right variance: P(|x| < sigma) = 0.6827, P(|x| < 2 sigma) = 0.9545
        // (a uniform with the same std would give 0.577 and 1.0).
        QVERIFY2(std::fabs(double(within1 / n) - 0.682689) < 0.005, qPrintable(QString::number(double(within1 / n))));
        QVERIFY2(std::fabs(double(within2 / n) - 0.954500) < 0.003, qPrintable(QString::number(double(within2 / n))));
    }
}

void TestLearned::hierarchicalKeepsFirstRowsExactly()
{
    // Su 2020 (kexue.fm/archives/7947): q_j = p_j for the first n positions.
    const TableContext ctx = context(12, PositionList::range(0, 16));
    const MatrixF flat = learnedEncoding(params({{"max_position_embeddings", "16"}, {"seed", "5"}}, ctx), ctx);
    for (const char* alpha : {"0.4", "0.9", "0"}) {
        const MatrixF hier = learnedEncoding(
            params({{"max_position_embeddings", "16"}, {"seed", "5"}, {"hierarchical", "true"}, {"alpha", alpha}}, ctx),
            ctx);
        QVERIFY2(hier == flat, alpha);
    }
}

void TestLearned::hierarchicalFormula()
{
    // Su 2020, 0-based: u_i = (p_i - alpha p_0) / (1 - alpha), q_(i*n + j) = alpha u_i + (1 - alpha) u_j.
    const int n = 10;
    const int dim = 6;
    const double alpha = 0.4;
    const MatrixF base = learnedBaseTable(n, dim, 0.02, 11);
    std::vector<Position> pos;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; j += 3)
            pos.push_back(Position(i) * n + j);
    pos.push_back(n * n - 1);
    const TableContext ctx = context(dim, PositionList::list(pos));
    const MatrixF q = learnedEncoding(
        params({{"max_position_embeddings", "10"}, {"seed", "11"}, {"hierarchical", "true"}, {"alpha", "0.4"}}, ctx),
        ctx);
    for (std::size_t r = 0; r < pos.size(); ++r) {
        const Position i = pos[r] / n;
        const Position j = pos[r] % n;
        for (int d = 0; d < dim; ++d) {
            const long double p0 = base(0, d);
            const long double ui = ((long double)base(i, d) - alpha * p0) / (1 - alpha);
            const long double uj = ((long double)base(j, d) - alpha * p0) / (1 - alpha);
            const long double expected = alpha * ui + (1 - alpha) * uj;
            QVERIFY2(std::fabs(q(Eigen::Index(r), d) - expected) <= 1e-7L * std::fabs(expected) + 1e-10L,
                     qPrintable(QString("position %1 dim %2").arg(pos[r]).arg(d)));
        }
    }
    // Positions past the first n are new vectors, not copies of an existing row.
    QVERIFY(q.row(Eigen::Index(pos.size() - 1)) != base.row(n - 1));
}

void TestLearned::positionsBeyondTableRejected()
{
    const TableContext inside = context(4, PositionList::range(0, 1024));
    QVERIFY(learnedEncoding(params({}, inside), inside).rows() == 1024); // default n = 1024: 0..1023 fine
    const TableContext beyond = context(4, PositionList::list({3, 1024}));
    try {
        params({}, beyond);
        QFAIL("position 1024 of a 1024-row table was accepted");
    } catch (const InputError& e) {
        const std::string m = e.what();
        QVERIFY2(m.find("1024") != std::string::npos && m.find("max_position_embeddings") != std::string::npos
                     && m.find("hierarchical") != std::string::npos,
                 e.what());
    }
    // Calling the encoding directly (bypassing the registry's validation) refuses too.
    const ParamSet p = params({}, inside);
    QVERIFY_THROWS_EXCEPTION(InputError, learnedEncoding(p, beyond));
    // Hierarchical: n^2 positions, the next one refused.
    const TableContext lastHier = context(4, PositionList::list({99}));
    const TableContext pastHier = context(4, PositionList::list({100}));
    const std::vector<std::pair<std::string, std::string>> h
        = {{"max_position_embeddings", "10"}, {"hierarchical", "true"}};
    QCOMPARE(learnedEncoding(params(h, lastHier), lastHier).rows(), Eigen::Index(1));
    try {
        params(h, pastHier);
        QFAIL("position n^2 was accepted");
    } catch (const InputError& e) {
        QVERIFY2(std::string(e.what()).find("n^2 = 100") != std::string::npos, e.what());
    }
}

QTEST_APPLESS_MAIN(TestLearned)
#include "tst_learned.moc"
