// SPDX-License-Identifier: MIT
#pragma once
/// @file ops.h
/// The operations of the lab's tiny transformer, forward and backward written by hand (in the spirit of
/// karpathy/llm.c train_gpt2.c: layernorm_forward/backward, attention_forward/backward, gelu_forward/backward,
/// crossentropy_softmax_backward). Templates over the scalar: float for training, double for the finite-difference
/// tests (tests/core/tst_train_grad.cpp). Matrices are row-major, row = token.

#include "core/attentionkernel.h"
#include "core/encodings/cope.h"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <type_traits>
#include <vector>

namespace poslab::core::train {

template <typename T> using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T> using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
template <typename T> using MapMat = Eigen::Map<Mat<T>>;
template <typename T> using CMapMat = Eigen::Map<const Mat<T>>;
template <typename T> using MapVec = Eigen::Map<Vec<T>>;
template <typename T> using CMapVec = Eigen::Map<const Vec<T>>;

inline constexpr double layerNormEps = 1e-5; ///< PyTorch nn.LayerNorm's default

/// y = (x - mean) / sqrt(var + eps) * w + b per row (biased variance, as nn.LayerNorm). Keeps mean and
/// rstd = 1/sqrt(var + eps) per row for the backward pass.
template <typename T, typename In>
void layerNormForward(const In& x, const CMapVec<T>& w, const CMapVec<T>& b, Mat<T>& y, Vec<T>& mean, Vec<T>& rstd)
{
    const Eigen::Index n = x.rows(), d = x.cols();
    y.resize(n, d);
    mean.resize(n);
    rstd.resize(n);
    for (Eigen::Index r = 0; r < n; ++r) {
        const T m = x.row(r).mean();
        const T v = (x.row(r).array() - m).square().mean();
        const T s = T(1) / std::sqrt(v + T(layerNormEps));
        mean[r] = m;
        rstd[r] = s;
        y.row(r) = (((x.row(r).array() - m) * s) * w.transpose().array() + b.transpose().array()).matrix();
    }
}

/// Adds dL/dx to @p dx and dL/dw, dL/db to @p dw, @p db.
template <typename T, typename In>
void layerNormBackward(const Mat<T>& dy, const In& x, const CMapVec<T>& w, const Vec<T>& mean, const Vec<T>& rstd,
                       Mat<T>& dx, MapVec<T> dw, MapVec<T> db)
{
    const Eigen::Index n = x.rows(), d = x.cols();
    Eigen::Array<T, 1, Eigen::Dynamic> xhat(d), dxhat(d);
    for (Eigen::Index r = 0; r < n; ++r) {
        xhat = (x.row(r).array() - mean[r]) * rstd[r];
        dxhat = dy.row(r).array() * w.transpose().array();
        dw.transpose().array() += dy.row(r).array() * xhat;
        db.transpose().array() += dy.row(r).array();
        const T m1 = dxhat.mean();
        const T m2 = (dxhat * xhat).mean();
        dx.row(r).array() += rstd[r] * (dxhat - m1 - xhat * m2);
    }
}

/// GELU, tanh approximation (Hendrycks and Gimpel 2016; PyTorch approximate="tanh", llm.c gelu_forward).
template <typename T> T gelu(T x)
{
    const T k = T(std::sqrt(2.0 / std::numbers::pi));
    return T(0.5) * x * (T(1) + std::tanh(k * (x + T(0.044715) * x * x * x)));
}
template <typename T> T geluGrad(T x)
{
    const T k = T(std::sqrt(2.0 / std::numbers::pi));
    const T th = std::tanh(k * (x + T(0.044715) * x * x * x));
    return T(0.5) * (T(1) + th) + T(0.5) * x * (T(1) - th * th) * k * (T(1) + T(3 * 0.044715) * x * x);
}

/// GELU (tanh approximation) over a whole matrix; @p th keeps tanh(k (x + 0.044715 x^3)) for geluBackward().
/// Same formula as gelu() and geluGrad() above; float runs core's vectorised kernel (the widest instruction
/// set the CPU has), double (the gradient tests) Eigen's.
template <typename T> void geluForward(const Mat<T>& x, Mat<T>& y, Mat<T>& th)
{
    y.resize(x.rows(), x.cols());
    th.resize(x.rows(), x.cols());
    if constexpr (std::is_same_v<T, float>) {
        kernel::geluTanh(x.data(), y.data(), th.data(), int(x.size()));
    } else {
        const T k = T(std::sqrt(2.0 / std::numbers::pi));
        th = (k * (x.array() + T(0.044715) * x.array().cube())).tanh().matrix();
        y = (T(0.5) * x.array() * (T(1) + th.array())).matrix();
    }
}

/// C = op(A) op(B), or C += op(A) op(B) when @p accumulate (C then already has its size). Row-major operands with
/// contiguous rows (matrices, or maps of the flat parameter vector). float goes to core's GEMM kernel built for
/// each instruction set (AVX2 or AVX-512 where the CPU has them); double (the gradient tests) to Eigen.
template <typename T, typename MC, typename MA, typename MB>
void matmul(MC&& c, const MA& a, bool ta, const MB& b, bool tb, bool accumulate, T alpha = T(1))
{
    const Eigen::Index m = ta ? a.cols() : a.rows(), k = ta ? a.rows() : a.cols(), n = tb ? b.rows() : b.cols();
    if (!accumulate)
        c.resize(m, n);
    if constexpr (std::is_same_v<T, float>) {
        kernel::gemm(ta, tb, int(m), int(n), int(k), alpha, a.data(), int(a.outerStride()), b.data(),
                     int(b.outerStride()), accumulate ? 1.0f : 0.0f, c.data(), int(c.outerStride()));
    } else {
        if (!accumulate)
            c.setZero();
        if (!ta && !tb)
            c.noalias() += alpha * a * b;
        else if (!ta)
            c.noalias() += alpha * a * b.transpose();
        else if (!tb)
            c.noalias() += alpha * a.transpose() * b;
        else
            c.noalias() += alpha * a.transpose() * b.transpose();
    }
}
/// dh *= GELU'(x), with th from geluForward().
template <typename T> void geluBackward(Mat<T>& dh, const Mat<T>& x, const Mat<T>& th)
{
    const T k = T(std::sqrt(2.0 / std::numbers::pi));
    dh.array() *= T(0.5) * (T(1) + th.array())
        + T(0.5) * x.array() * (T(1) - th.array().square()) * k * (T(1) + T(3 * 0.044715) * x.array().square());
}

/// One head of causal attention: S = Q K^T * scale + bias (bias T x T, may be empty), keys after the query
/// masked, P = softmax(S) per row, O = P V. Q, K: T x dh; V: T x dv. Keeps P.
template <typename T, typename A, typename B, typename C, typename Bias>
void attentionForward(const A& q, const B& k, const C& v, const Bias* bias, T scale, Mat<T>& p, Mat<T>& o)
{
    const Eigen::Index n = q.rows();
    matmul<T>(p, q, false, k, true, false, scale);
    if (bias)
        p += *bias;
    for (Eigen::Index i = 0; i < n; ++i) {
        const T mx = p.row(i).head(i + 1).maxCoeff();
        T sum = 0;
        for (Eigen::Index j = 0; j <= i; ++j) {
            const T e = std::exp(p(i, j) - mx);
            p(i, j) = e;
            sum += e;
        }
        p.row(i).head(i + 1) /= sum;
        p.row(i).tail(n - i - 1).setZero();
    }
    matmul<T>(o, p, false, v, false, false);
}

/// Backward of attentionForward: given dO, returns dQ, dK, dV (assigned) and dS (the gradient of the scores, which
/// is also the gradient of the bias; masked entries 0).
template <typename T, typename A, typename B, typename C>
void attentionBackward(const Mat<T>& dO, const A& q, const B& k, const C& v, const Mat<T>& p, T scale, Mat<T>& dq,
                       Mat<T>& dk, Mat<T>& dv, Mat<T>& ds)
{
    Mat<T> dp;
    matmul<T>(dp, dO, false, v, true, false);
    matmul<T>(dv, p, true, dO, false, false);
    ds.resize(p.rows(), p.cols());
    for (Eigen::Index i = 0; i < p.rows(); ++i) {
        const T dot = (dp.row(i).array() * p.row(i).array()).sum();
        ds.row(i).array() = p.row(i).array() * (dp.row(i).array() - dot);
    }
    matmul<T>(dq, ds, false, k, false, false, scale);
    matmul<T>(dk, ds, true, q, false, false, scale);
}

/// Rotates the pairs (a_i, b_i) of each row t in place: a' = a c - b s, b' = b c + a s with c = cos(t, i),
/// s = sin(t, i) (Hugging Face apply_rotary_pos_emb: x cos + rotate_half(x) sin). @p inverse applies the
/// transpose (the backward pass of the forward rotation). Column offset @p col0 selects the head.
template <typename T, typename M>
void rotateRows(M& x, Eigen::Index col0, const Mat<T>& cosT, const Mat<T>& sinT, const int* pairA, const int* pairB,
                int pairs, int period, bool inverse)
{
    for (Eigen::Index r = 0; r < x.rows(); ++r) {
        const Eigen::Index t = r % period;
        for (int i = 0; i < pairs; ++i) {
            const T c = cosT(t, i), s = inverse ? -sinT(t, i) : sinT(t, i);
            T& a = x(r, col0 + pairA[i]);
            T& b = x(r, col0 + pairB[i]);
            const T na = a * c - b * s, nb = b * c + a * s;
            a = na;
            b = nb;
        }
    }
}

/// CoPE's position part of one causal head (Golovneva et al. 2024, section 3; facebookresearch/RAM
/// projects/cope/src/cope/context_position.py ContextPosSelfAttn.forward): the gates and positions come from
/// core::copeSweep, the function the views use, on a = Q K^T * scale with the causal mask, and
/// z = Q E^T for the rows of E (npos_max x dh, row n = e[n]) a count can reach (min(npos_max, T + 1)).
/// bias = copeSweep's interpolation times @p posScale (1: the paper's listing; 1/sqrt(dh): RAM's default).
template <typename T, typename A, typename B, typename E>
void copeForward(const A& q, const B& k, const E& e, T scale, T posScale, int nposMax, Mat<T>& bias, Mat<T>& gates,
                 Mat<T>& positions)
{
    const Eigen::Index n = q.rows();
    const Eigen::Index rows = std::min<Eigen::Index>(nposMax, n + 1);
    const Mat<T> a = (q * k.transpose()) * scale;
    const Mat<T> z = q * e.topRows(rows).transpose();
    core::copeSweep(
        a, [](Eigen::Index i, Eigen::Index j) { return j <= i; }, z, nposMax, bias, &gates, &positions);
    if (posScale != T(1))
        bias *= posScale;
}

/// Backward of copeForward given dB = dL/dbias (T x T; entries after the query ignored): adds to dQ, dK
/// (through the gates and through z) and dE (rows a count reached). With w = p - floor p:
///   dz(i, ceil p) += s dB w,  dz(i, floor p) += s dB (1 - w),  dp = s dB (z(i, ceil p) - z(i, floor p))
///   (s = posScale; floor and ceil carry no gradient, as in the reference; a clamped count has dp = 0),
///   dg_it = sum_{j <= t} dp_ij (p_ij = sum_{t >= j} g_it),  da_it = dg_it g_it (1 - g_it),
///   dQ += da K scale + dz E,  dK += da^T Q scale,  dE += dz^T Q.
template <typename T, typename A, typename B, typename E, typename DE>
void copeBackward(const Mat<T>& dB, const A& q, const B& k, const E& e, T scale, T posScale, int nposMax,
                  const Mat<T>& gates, const Mat<T>& positions, Mat<T>& dq, Mat<T>& dk, DE&& de)
{
    const Eigen::Index n = q.rows();
    const Eigen::Index rows = std::min<Eigen::Index>(nposMax, n + 1);
    const Mat<T> z = q * e.topRows(rows).transpose();
    Mat<T> dz = Mat<T>::Zero(n, rows);
    Mat<T> da = Mat<T>::Zero(n, n);
    std::vector<T> dp(static_cast<std::size_t>(n));
    for (Eigen::Index i = 0; i < n; ++i) {
        for (Eigen::Index j = i; j >= 0; --j) {
            const T p = positions(i, j);
            const T lo = std::floor(p), hi = std::ceil(p), w = p - lo;
            const T g = dB(i, j) * posScale;
            dz(i, Eigen::Index(hi)) += g * w;
            dz(i, Eigen::Index(lo)) += g * (T(1) - w);
            // A count at npos_max - 1 is the clamp's constant (a sum of gates in (0, 1) is not a whole number).
            dp[std::size_t(j)] = p >= T(nposMax - 1) ? T(0) : g * (z(i, Eigen::Index(hi)) - z(i, Eigen::Index(lo)));
        }
        T dg = 0;
        for (Eigen::Index t = 0; t <= i; ++t) {
            dg += dp[std::size_t(t)];
            const T gt = gates(i, t);
            da(i, t) = dg * gt * (T(1) - gt);
        }
    }
    dq.noalias() += (da * k) * scale;
    dq.noalias() += dz * e.topRows(rows);
    dk.noalias() += (da.transpose() * q) * scale;
    de.topRows(rows).noalias() += dz.transpose() * q;
}

/// Shaw et al. 2018's relative key term of one causal head (section 3, eq. 4; tensor2tensor
/// common_attention.py dot_product_attention_relative, _relative_attention_inner): bias_ij = q_i . a[idx(i, j)] *
/// scale for j <= i (0 after the query), with a the (2k + 1) x dh table and idx the clipped index
/// (core's shawBuckets). z = Q a^T first, then a gather, as core's shawScore.
template <typename T, typename A, typename Tab, typename Idx>
void relativeKeyForward(const A& q, const Tab& table, const Idx& idx, T scale, Mat<T>& bias)
{
    const Eigen::Index n = q.rows();
    const Mat<T> z = q * table.transpose();
    bias.setZero(n, n);
    for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = 0; j <= i; ++j)
            bias(i, j) = z(i, idx(i, j)) * scale;
}

/// Backward of relativeKeyForward given dB: dz(i, idx(i, j)) += dB_ij scale; dQ += dz a; da += dz^T Q.
template <typename T, typename A, typename Tab, typename Idx, typename DTab>
void relativeKeyBackward(const Mat<T>& dB, const A& q, const Tab& table, const Idx& idx, T scale, Mat<T>& dq,
                         DTab&& dtable)
{
    const Eigen::Index n = q.rows();
    Mat<T> dz = Mat<T>::Zero(n, table.rows());
    for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = 0; j <= i; ++j)
            dz(i, idx(i, j)) += dB(i, j) * scale;
    dq.noalias() += dz * table;
    dtable.noalias() += dz.transpose() * q;
}

/// Transformer-XL's position terms of one causal head (Dai et al. 2019, section 3.3, A^rel terms (b), (c), (d);
/// kimiyoung/transformer-xl pytorch/mem_transformer.py RelPartialLearnableMultiHeadAttn: AC = (q + r_w_bias).k,
/// BD = (q + r_r_bias).r after _rel_shift, times 1/sqrt(d_head)): with r the head's rows of R W_R (row delta =
/// the projected sinusoid of distance delta = i - j),
///   bias_ij = (q_i . r_{i-j} + u . k_j + v . r_{i-j}) * scale   for j <= i (0 after the query).
/// Term (a), q_i . k_j * scale, is the attention's own score.
template <typename T, typename A, typename B, typename Rr, typename U, typename V>
void txlForward(const A& q, const B& k, const Rr& r, const U& u, const V& v, T scale, Mat<T>& bias)
{
    const Eigen::Index n = q.rows();
    const Mat<T> qr = q * r.transpose(); // (i, delta)
    const Vec<T> uk = k * u;
    const Vec<T> vr = r * v;
    bias.setZero(n, n);
    for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = 0; j <= i; ++j)
            bias(i, j) = (qr(i, i - j) + uk[j] + vr[i - j]) * scale;
}

/// Backward of txlForward given dB: adds to dQ, dK, dR (the head's rows of d(R W_R)), du and dv.
template <typename T, typename A, typename B, typename Rr, typename U, typename V, typename DR, typename DU,
          typename DV>
void txlBackward(const Mat<T>& dB, const A& q, const B& k, const Rr& r, const U& u, const V& v, T scale, Mat<T>& dq,
                 Mat<T>& dk, DR&& dr, DU&& du, DV&& dv)
{
    const Eigen::Index n = q.rows();
    Mat<T> dqr = Mat<T>::Zero(n, n);
    Vec<T> duk = Vec<T>::Zero(n), dvr = Vec<T>::Zero(n);
    for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = 0; j <= i; ++j) {
            const T g = dB(i, j) * scale;
            dqr(i, i - j) += g;
            duk[j] += g;
            dvr[i - j] += g;
        }
    dq.noalias() += dqr * r;
    dr.noalias() += dqr.transpose() * q;
    dr.noalias() += dvr * v.transpose();
    dk.noalias() += duk * u.transpose();
    du.noalias() += k.transpose() * duk;
    dv.noalias() += r.transpose() * dvr;
}

/// Softmax cross-entropy of one row of @p n logits against @p target: returns -log softmax(logits)[target] and
/// writes d(loss)/d(logits) * @p weight into @p dlogits (softmax - onehot, scaled). Plain loops over contiguous
/// rows (a row of a row-major matrix).
template <typename T> T crossEntropy(const T* logits, int n, int target, T weight, T* dlogits)
{
    T mx = logits[0];
    for (int j = 1; j < n; ++j)
        mx = std::max(mx, logits[j]);
    T sum = 0;
    for (int j = 0; j < n; ++j)
        sum += std::exp(logits[j] - mx);
    const T lse = mx + std::log(sum);
    for (int j = 0; j < n; ++j)
        dlogits[j] = weight * std::exp(logits[j] - lse);
    dlogits[target] -= weight;
    return lse - logits[target];
}

} // namespace poslab::core::train
