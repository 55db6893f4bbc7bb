// SPDX-License-Identifier: MIT
#pragma once
/// @file types.h
/// Matrix aliases shared by the whole project. Tables are row-major so that row i (position i) is
/// contiguous: a QImage fill, a texture upload or an .npy write is then a straight copy.

#include <Eigen/Core>
#include <cstdint>

namespace poslab::core {

/// Row-major float32 matrix: rows x cols, row r contiguous. Used for large tables (positions x dims).
using MatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
/// Row-major float64 matrix, for small exact results and references.
using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
/// Column vector of doubles (e.g. per-pair frequencies).
using VectorD = Eigen::VectorXd;
/// Column vector of floats.
using VectorF = Eigen::VectorXf;

/// A token position. Positions are non-negative and below maxPosition.
using Position = std::int64_t;

/// Largest position accepted anywhere (2^31 - 1). Angles p * omega are reduced in double precision, which
/// keeps them within 1e-6 rad of the exact value up to here.
inline constexpr Position maxPosition = (Position(1) << 31) - 1;

} // namespace poslab::core
