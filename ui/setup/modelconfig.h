// SPDX-License-Identifier: MIT
#pragma once
/// @file modelconfig.h
/// Reads a Hugging Face config.json into PosLab's state object (presets.h): the positional scheme, its keys,
/// the head dimension, heads, layers and lengths. Accepts the spellings the Hub carries (PRESETS.md "Key-name
/// caveats"; huggingface/transformers src/transformers/modeling_rope_utils.py):
///  - rope_scaling with "rope_type" or the older "type" ("rope_type" wins when both are there), types linear,
///    dynamic, ntk, yarn, llama3, longrope, and "su" (Phi-3's first name for longrope); rope_theta, or
///    GPT-NeoX's rotary_emb_base; transformers 5's rope_parameters, also per layer type
///    ({"full_attention": {...}, "sliding_attention": {...}}: the full-attention layers are shown);
///  - rotary_pct, rotary_dim, partial_rotary_factor; head_dim or hidden_size / num_attention_heads (also
///    GPT-2's n_embd / n_head, MPT's d_model / n_heads, T5's d_kv); DeepSeek's qk_rope_head_dim;
///  - ALiBi: model_type bloom (no flag), MPT's attn_config.alibi, Falcon's "alibi";
///  - T5's relative_attention_num_buckets / relative_attention_max_distance; DeBERTa's relative_attention,
///    position_buckets, max_relative_positions, position_biased_input;
///  - no_rope_layers / no_rope_layer_interval (Llama 4, SmolLM3) as the irope scheme;
///  - learned tables: GPT-2 n_positions, BERT max_position_embeddings, ViT image_size / patch_size.
/// Keys that bear on position but cannot be expressed in PosLab's keys (a sliding window, Gemma 3's local
/// layers, chunked attention) are listed in @c unmapped with the reason, and in the state's model notes.

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace poslab::ui {

/// What a config.json gave.
struct ModelConfig {
    QJsonObject state;    ///< the state object (presets.h), with "model" naming the file
    QStringList used;     ///< keys read, dotted for nested ones ("rope_scaling.factor")
    QStringList unmapped; ///< positional keys PosLab cannot express, each "key: why"
    QStringList ignored;  ///< every other key (not positional: vocab_size, dropout, ...)
};

/// Reads @p path. Throws core::InputError with one line naming the file and the problem (unreadable, not
/// JSON, not an object, a key of the wrong type, no positional settings PosLab recognises, a value the
/// scheme refuses).
ModelConfig readModelConfig(const QString& path);

/// The same from bytes; @p name stands for the file in messages.
ModelConfig parseModelConfig(const QByteArray& bytes, const QString& name);

} // namespace poslab::ui
