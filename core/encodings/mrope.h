// SPDX-License-Identifier: MIT
#pragma once
/// @file mrope.h
/// Multimodal RoPE (M-RoPE) of the Qwen vision-language models: every token carries three position ids
/// (temporal t, height h, width w) and the rotary pairs are split into three sections, each turned by one id.
///
/// Position ids (huggingface/transformers src/transformers/models/qwen2_vl/modeling_qwen2_vl.py
/// Qwen2VLModel.get_rope_index), over the runs of a TokenSequence in order, with `next` = the largest id so far
/// + 1 (0 at the start):
///   text of N tokens:   ids next, next+1, ..., the same on all three axes;
///   image or video block of T x H x W (after the spatial merge) preceded by the text before it: token
///   (f, r, c), row-major, gets (tid(f), r, c) + s with s = next (the id after that text);
///   text after a block continues from the block's largest id + 1.
/// Variants:
///   qwen2_vl:   tid(f) = f.
///   qwen2_5_vl: time-aligned ids (modeling_qwen2_5_vl.py get_rope_index): tid(f) = trunc(f * second_per_grid *
///               tokens_per_second) for videos, 0 for images (second_per_grid_t = 0), computed as transformers does:
///               second_per_grid_ts is a float32 tensor, so the products are float32 and .long() truncates toward
///               zero (second_per_grid 0.6666666666666666 gives frame 3 the id 4, where exact arithmetic gives 3).
///               time_ids picks the version: float_interval (current: time_interval = tokens_per_second *
///               second_per_grid_t, then (arange * time_interval).long() in get_vision_position_ids),
///               float_frame_first (the first code: arange * second_per_grid_t * tokens_per_second), integer_seconds
///               (versions that first cast second_per_grid_t to the range's int64 dtype, torch.as_tensor(...,
///               dtype=range_tensor.dtype), which turns 0.5 s into 0).
///   qwen3_vl:   a video of T frames is T blocks of one frame each (modeling_qwen3_vl.py get_rope_index:
///               video_grid_thw repeat_interleave, t set to 1), each starting after the previous block's largest
///               id + 1; the processor puts timestamp text between frames, which the sequence lists as text runs.
/// Sections over the d/2 half-split pairs (inv_freq_k = 1 / rope_theta^(2k/d)), mrope_section = [s_t, s_h, s_w]
/// summing to d/2:
///   chunked (Qwen2-VL, Qwen2.5-VL; apply_multimodal_rotary_pos_emb, cos.split(mrope_section * 2)): pairs
///     [0, s_t) follow t, [s_t, s_t + s_h) follow h, the rest w; [16, 24, 24] for d = 128;
///   interleaved (Qwen3-VL; Qwen3VLTextRotaryEmbedding.apply_interleaved_mrope): pair k follows h when
///     k % 3 == 1 and k < 3 s_h, w when k % 3 == 2 and k < 3 s_w, t otherwise; [24, 20, 20] for d = 128.

#include "core/spatial.h"

namespace poslab::core {

/// The axis (0 = t, 1 = h, 2 = w) of each of the d/2 pairs under @p sections [s_t, s_h, s_w].
std::vector<int> mropePairAxes(const std::vector<int>& sections, int pairs, bool interleaved);

/// 3 x L: the temporal, height and width id of every token. Throws InputError (RefusedError never: the
/// sequence is bounded by parseSequence) when an id would pass maxPosition.
MatrixD mropePositionIds(const ParamSet& params, const SpatialContext& ctx);

/// The angles of every token: pair k turns by id[axis(k)] * inv_freq_k.
SpatialRotary mropeRotary(const ParamSet& params, const SpatialContext& ctx);

SpatialSchemeDescriptor mropeScheme();

} // namespace poslab::core
