// SPDX-License-Identifier: MIT
#pragma once
/// @file figuretitle.h
/// The words that name a figure's variant, written in one place so that the views, the export (file
/// titles, GIF frames) and the window show the same text: "RoPE · YaRN ×8, trained 4096",
/// "iRoPE · layer 3 (NoPE layer)", "T5 · 32 buckets, max distance 128".

#include "core/params.h"
#include "core/scheme.h"

#include <QString>

namespace poslab::ui {

/// The scheme's short name: the abbreviation its papers use ("RoPE", "ALiBi", "T5", "Transformer-XL").
QString shortSchemeName(const core::SchemeDescriptor& scheme);

/// "scheme · variant and key parameters" for @p params of @p scheme: RoPE names its rope_type with the
/// factor and trained length ("RoPE · YaRN ×8, trained 4096") and a non-default rope_theta or partial
/// rotation; iRoPE its layer and whether that layer rotates; every other scheme lists the applicable
/// parameters that differ from their defaults ("ALiBi", "T5 · relative_attention_num_buckets 64"). Seeds
/// are left out (they pick random tables, not a variant).
QString variantLabel(const core::SchemeDescriptor& scheme, const core::ParamSet& params);

} // namespace poslab::ui
