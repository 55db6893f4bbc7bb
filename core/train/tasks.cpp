// SPDX-License-Identifier: MIT
#include "core/train/tasks.h"

#include "core/errors.h"
#include "core/random.h"

namespace poslab::core::train {

std::string_view taskName(Task t)
{
    switch (t) {
    case Task::Copy: return "copy";
    case Task::Reverse: return "reverse";
    case Task::Recall: return "recall";
    case Task::Addition: return "addition";
    }
    return "copy";
}

Task parseTask(std::string_view name)
{
    for (Task t : {Task::Copy, Task::Reverse, Task::Recall, Task::Addition})
        if (name == taskName(t))
            return t;
    throw InputError("unknown task '" + std::string(name) + "'; tasks: copy, reverse, recall, addition");
}

std::string taskDescription(Task t)
{
    switch (t) {
    case Task::Copy:
        return "copy: x1..xL SEP x1..xL; measured: exact match of the L tokens after SEP, and per-token accuracy";
    case Task::Reverse:
        return "reverse: x1..xL SEP xL..x1; measured: exact match of the L tokens after SEP, and per-token accuracy";
    case Task::Recall:
        return "recall: k1 v1 .. kL vL SEP k -> the value after the last k; measured: that one token "
               "(exact match = per-token accuracy)";
    case Task::Addition:
        return "addition: L-digit a PLUS b EQ c, digits least significant first; measured: exact match of the "
               "L+1 digits of c, and per-token accuracy";
    }
    return {};
}

int taskSymbols(Task t, int vocab)
{
    return t == Task::Addition ? 10 : vocab;
}

int sequenceLength(Task t, int length)
{
    switch (t) {
    case Task::Copy:
    case Task::Reverse: return 2 * length + 1;
    case Task::Recall: return 2 * length + 3;
    case Task::Addition: return 3 * length + 3;
    }
    return 0;
}

int answerLength(Task t, int length)
{
    switch (t) {
    case Task::Copy:
    case Task::Reverse: return length;
    case Task::Recall: return 1;
    case Task::Addition: return length + 1;
    }
    return 0;
}

Example makeExample(Task t, int length, int vocab, std::uint64_t seed)
{
    const Vocabulary voc{taskSymbols(t, vocab)};
    SeededRandom rng(seed);
    auto draw = [&](int n) { return int(rng.nextBits() % std::uint64_t(n)); };
    Example e;
    const int n = sequenceLength(t, length);
    e.tokens.reserve(std::size_t(n));
    e.answer.assign(std::size_t(n), 0);
    auto push = [&](int tok, bool ans) {
        e.answer[e.tokens.size()] = ans ? 1 : 0;
        e.tokens.push_back(tok);
    };
    switch (t) {
    case Task::Copy:
    case Task::Reverse: {
        std::vector<int> x(static_cast<std::size_t>(length));
        for (int& v : x)
            v = draw(voc.symbols);
        for (int v : x)
            push(v, false);
        push(voc.sep(), false);
        for (int i = 0; i < length; ++i)
            push(x[std::size_t(t == Task::Copy ? i : length - 1 - i)], true);
        break;
    }
    case Task::Recall: {
        std::vector<int> k(static_cast<std::size_t>(length)), v(static_cast<std::size_t>(length));
        for (int i = 0; i < length; ++i) {
            k[std::size_t(i)] = draw(voc.symbols);
            v[std::size_t(i)] = draw(voc.symbols);
            push(k[std::size_t(i)], false);
            push(v[std::size_t(i)], false);
        }
        const int q = k[std::size_t(draw(length))];
        int value = 0;
        for (int i = 0; i < length; ++i)
            if (k[std::size_t(i)] == q)
                value = v[std::size_t(i)];
        push(voc.sep(), false);
        push(q, false);
        push(value, true);
        break;
    }
    case Task::Addition: {
        std::vector<int> a(static_cast<std::size_t>(length)), b(static_cast<std::size_t>(length));
        for (int& d : a)
            d = draw(10);
        for (int& d : b)
            d = draw(10);
        for (int d : a)
            push(d, false);
        push(voc.plus(), false);
        for (int d : b)
            push(d, false);
        push(voc.eq(), false);
        int carry = 0;
        for (int i = 0; i < length; ++i) {
            const int s = a[std::size_t(i)] + b[std::size_t(i)] + carry;
            push(s % 10, true);
            carry = s / 10;
        }
        push(carry, true);
        break;
    }
    }
    return e;
}

} // namespace poslab::core::train
