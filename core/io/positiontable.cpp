// SPDX-License-Identifier: MIT
#include "core/io/positiontable.h"

#include "core/errors.h"
#include "core/io/npy.h"
#include "core/io/safetensors.h"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <deque>
#include <filesystem>
#include <mutex>

namespace poslab::core {

namespace {

struct CacheKey {
    std::string path;
    std::string tensor;
    std::filesystem::file_time_type mtime;
    std::uintmax_t size = 0;
    bool operator==(const CacheKey&) const = default;
};

struct Cache {
    std::mutex mutex;
    std::deque<std::pair<CacheKey, std::shared_ptr<const PositionTable>>> entries; // newest first
};

Cache& cache()
{
    static Cache c;
    return c;
}

constexpr std::size_t cacheEntries = 4;
constexpr std::size_t cacheBytes = std::size_t(512) << 20;
std::atomic<long long> reads{0};

bool endsWith(const std::string& s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Refuses a float64 value that float32 cannot hold: the cast would make it infinity without a word.
void checkFitsFloat32(const TensorTable& t)
{
    if (t.type != ElementType::Float64)
        return;
    constexpr double largest = double(std::numeric_limits<float>::max());
    for (Eigen::Index r = 0; r < t.values.rows(); ++r)
        for (Eigen::Index c = 0; c < t.values.cols(); ++c)
            if (std::abs(t.values(r, c)) > largest) {
                char value[32];
                std::snprintf(value, sizeof value, "%.17g", t.values(r, c));
                throwFileError(t.source,
                               "element [" + std::to_string(r) + ", " + std::to_string(c) + "] is " + value
                                   + ", beyond float32's range (largest 3.4028235e+38), in which PosLab "
                                     "computes; scale the table or save it as float32");
            }
}

std::shared_ptr<const PositionTable> readTable(const std::string& path, const std::string& tensor, const Limits& limits,
                                               const TableShapeCheck& check)
{
    const std::unique_ptr<ByteSource> source = openFileSource(path);
    const bool npyMagic = source->size() >= 6 && source->read(0, 6) == "\x93NUMPY";
    TensorTable t = npyMagic || endsWith(path, ".npy") ? readNpyTable(*source, limits, check)
                                                       : readSafetensorsTable(*source, tensor, limits, check);
    checkFitsFloat32(t);
    auto table = std::make_shared<PositionTable>();
    table->values = t.values.cast<float>();
    table->type = t.type;
    table->source = std::move(t.source);
    ++reads;
    return table;
}

} // namespace

std::shared_ptr<const PositionTable> loadPositionTable(const std::string& path, const std::string& tensor,
                                                       const Limits& limits, const TableShapeCheck& check)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    CacheKey key;
    key.path = path;
    key.mtime = fs::last_write_time(path, ec);
    if (ec)
        throwFileError(path, "cannot open: " + ec.message());
    // A device or FIFO has no size to read ("cannot read its size: Operation not supported"): say what it is.
    const fs::file_status st = fs::status(path, ec);
    if (!ec && fs::is_directory(st))
        throwFileError(path, "is a folder, not a file");
    if (!ec && !fs::is_regular_file(st))
        throwFileError(path, "is not a regular file (a device, FIFO or socket); give an .npy or .safetensors file");
    key.size = fs::file_size(path, ec);
    if (ec)
        throwFileError(path, "cannot read its size: " + ec.message());
    // The tensor name means nothing for an .npy file; keep it out of the key so that changing it does not
    // reread the file.
    const bool npyName = endsWith(path, ".npy");
    key.tensor = npyName ? std::string() : tensor;
    Cache& c = cache();
    {
        std::lock_guard lock(c.mutex);
        for (auto it = c.entries.begin(); it != c.entries.end(); ++it)
            if (it->first == key) {
                auto table = it->second;
                c.entries.erase(it);
                c.entries.emplace_front(key, table);
                if (check)
                    check(std::uint64_t(table->values.rows()), std::uint64_t(table->values.cols()), table->source);
                return table;
            }
    }
    // Read outside the lock: a large file does not block other lookups. Two threads asking for the same new
    // file may both read it; the second result replaces the first.
    std::shared_ptr<const PositionTable> table = readTable(path, tensor, limits, check);
    std::lock_guard lock(c.mutex);
    std::erase_if(c.entries, [&](const auto& e) { return e.first == key; });
    c.entries.emplace_front(key, table);
    // A handful of tables, and no more than cacheBytes beyond the newest (a real position table is a few MB;
    // GPT-2's 1024 x 768 is 3 MB as float32).
    auto bytes = [](const auto& e) { return std::size_t(e.second->values.size()) * sizeof(float); };
    std::size_t total = 0;
    for (const auto& e : c.entries)
        total += bytes(e);
    while (c.entries.size() > 1 && (c.entries.size() > cacheEntries || total > cacheBytes)) {
        total -= bytes(c.entries.back());
        c.entries.pop_back();
    }
    return table;
}

long long positionTableReads()
{
    return reads.load();
}

} // namespace poslab::core
