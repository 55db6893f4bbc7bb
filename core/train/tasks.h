// SPDX-License-Identifier: MIT
#pragma once
/// @file tasks.h
/// The synthetic tasks of the length-generalisation lab, generated on the fly from a seed (Kazemnejad et al. 2023,
/// "The Impact of Positional Encoding on Length Generalization in Transformers", NeurIPS, section 4 and appendix
/// C list copy, reverse and addition among their tasks; associative recall follows Ba et al. 2016 / Zoology).
/// One example of task length L is a token sequence; the loss and the accuracy count only its answer tokens.
///   copy      x_1..x_L SEP x_1..x_L                         answer: the L tokens after SEP
///   reverse   x_1..x_L SEP x_L..x_1                         answer: the L tokens after SEP
///   recall    k_1 v_1 .. k_L v_L SEP k_q v                  answer: v, the value after the LAST k_i equal to k_q
///   addition  a_0..a_{L-1} PLUS b_0..b_{L-1} EQ c_0..c_L     digits least significant first (reversed, as in
///             the length-generalisation literature, e.g. Lee et al. 2023); answer: the L+1 digits of c = a + b
/// Tokens 0..V-1 are the symbols (V = vocab; addition always uses the digits 0..9), then SEP, PLUS, EQ, PAD.
/// What is measured: exact match (every answer token of a sequence right, under teacher forcing, which for
/// greedy decoding is the same test) and per-token accuracy (answer tokens right / answer tokens).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace poslab::core::train {

enum class Task { Copy, Reverse, Recall, Addition };

std::string_view taskName(Task t);
/// "copy", "reverse", "recall", "addition"; throws InputError listing them.
Task parseTask(std::string_view name);
/// One sentence: what a sequence is and what is measured.
std::string taskDescription(Task t);

/// Token ids for a task with @p symbols symbols.
struct Vocabulary {
    int symbols = 8; ///< V: ids 0..V-1
    int sep() const { return symbols; }
    int plus() const { return symbols + 1; }
    int eq() const { return symbols + 2; }
    int pad() const { return symbols + 3; }
    int size() const { return symbols + 4; }
};

/// The symbols a task uses: @p vocab, or 10 for addition.
int taskSymbols(Task t, int vocab);
/// The number of tokens of an example of task length L (the input the model reads is one fewer).
int sequenceLength(Task t, int length);
/// The number of answer tokens of an example of length L.
int answerLength(Task t, int length);

/// One example: tokens[0..n-1]; answer[i] is 1 when tokens[i] is an answer token (predicted from position i-1).
struct Example {
    std::vector<int> tokens;
    std::vector<std::uint8_t> answer;
};

/// One example of task length @p length (>= 1) drawn from @p seed (same seed, same example).
Example makeExample(Task t, int length, int vocab, std::uint64_t seed);

} // namespace poslab::core::train
