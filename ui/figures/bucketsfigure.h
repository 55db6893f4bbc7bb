// SPDX-License-Identifier: MIT
#pragma once
/// @file bucketsfigure.h
/// The buckets figure: core's bucket profile of T5 or DeBERTa (core/buckets.h) over the relative positions
/// -N..N, N = positionCount - 1, which the buckets view draws, and its data export.

#include "ui/figures/figure.h"

#include "core/buckets.h"

namespace poslab::ui {

/// The buckets view's numbers: core's bucket profile of T5 or DeBERTa over distances 1..maxDistance each way.
struct BucketData {
    QString error;                  ///< non-empty when core refused; then no profile
    core::Position maxDistance = 1; ///< positionCount - 1 (at least 1)
    core::BucketProfile profile;
    /// T5's buckets (key - query, a last bucket) rather than DeBERTa's (query - key, rows of a table): the
    /// profile has no table span.
    bool t5 = false;
    /// T5's parameter bidirectional (true for DeBERTa, which has none): the causal variant gives every key after
    /// the query bucket 0.
    bool bidirectional = true;
};

/// The buckets figure (figure.h's pattern).
struct BucketsFigure {
    /// The scheme, its parameters and the number of positions: nothing else moves a bucket.
    struct Inputs {
        std::string scheme;
        core::ParamSet params;
        int positionCount = 1;
        bool operator==(const Inputs&) const = default;
    };
    static Inputs inputsOf(const FigureSnapshot& snapshot);
    using Data = BucketData;
    /// core::bucketProfile over distances up to positionCount - 1 (at least 1); an error message instead when core
    /// refuses (a scheme without buckets).
    static BucketData compute(const Inputs& inputs);
    /// The bucket of every relative position -N..N (N = positionCount - 1): one query at N, keys 0..2N, as `poslab
    /// compute buckets --positions N --keys 0:2N+1` prints them. Throws core::InputError or core::RefusedError.
    static core::ComputeResult dataExport(const FigureSnapshot& snapshot, QStringList* notes);
};

} // namespace poslab::ui
