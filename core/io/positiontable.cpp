// SPDX-License-Identifier: MIT
#include "core/io/positiontable.h"

#include "core/errors.h"
#include "core/io/npy.h"
#include "core/io/safetensors.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
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
std::atomic<long long> reads{0};

bool endsWith(const std::string& s, std::string_view suffix)
{
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::shared_ptr<const PositionTable> mapTable(const std::string& path, const std::string& tensor,
                                              const TableShapeCheck& check)
{
    std::shared_ptr<const MappedFile> file = MappedFile::open(path);
    const std::unique_ptr<ByteSource> source = mappedSource(file);
    const bool npyMagic = source->size() >= 6 && source->read(0, 6) == "\x93NUMPY";
    const TableLayout l = npyMagic || endsWith(path, ".npy") ? readNpyLayout(*source, check)
                                                             : readSafetensorsLayout(*source, tensor, check);
    // The readers checked rows * cols * element size against the file's length, so every row lies inside it.
    if (l.rows > std::uint64_t(std::numeric_limits<long long>::max()) || l.cols > (std::uint64_t(1) << 31))
        throwFileError(l.source,
                       "shape [" + std::to_string(l.rows) + ", " + std::to_string(l.cols)
                           + "] is beyond what a position table can index");
    auto table = std::make_shared<PositionTable>();
    table->rows = (long long)l.rows;
    table->cols = (long long)l.cols;
    table->type = l.type;
    table->source = l.source;
    table->file = std::move(file);
    table->offset = l.offset;
    ++reads;
    return table;
}

} // namespace

void PositionTable::readRow(long long r, float* out) const
{
    const std::uint64_t bytes = rowBytes();
    const std::uint64_t at = offset + std::uint64_t(r) * bytes;
    file->checkStillCovers(at + bytes);
    // Decoded in double (the exact value of every stored format), then rounded once to float32.
    std::vector<double> row(static_cast<std::size_t>(cols));
    decodeElements(file->data() + at, std::uint64_t(r) * std::uint64_t(cols), std::uint64_t(cols), std::uint64_t(cols),
                   type, source, row.data());
    constexpr double largest = double(std::numeric_limits<float>::max());
    for (long long c = 0; c < cols; ++c) {
        const double v = row[std::size_t(c)];
        if (type == ElementType::Float64 && std::abs(v) > largest) {
            // C's "%.17g" whatever the locale (to_chars, not printf).
            char buf[32];
            const std::string value(buf, std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 17).ptr);
            throwFileError(source,
                           "element [" + std::to_string(r) + ", " + std::to_string(c) + "] is " + value
                               + ", beyond float32's range (largest 3.4028235e+38), in which PosLab "
                                 "computes; scale the table or save it as float32");
        }
        out[c] = float(v);
    }
}

MatrixF PositionTable::readRows(long long first, long long count) const
{
    MatrixF m(static_cast<Eigen::Index>(count), static_cast<Eigen::Index>(cols));
    for (long long i = 0; i < count; ++i)
        readRow(first + i, m.row(Eigen::Index(i)).data());
    return m;
}

void checkTableRows(const PositionTable& table, double rowCount, double extraBytes, const Limits& limits,
                    const std::string& advice)
{
    // The pages of the rows read stay resident with the mapping: whole 4 KiB pages, so a row may cost a page
    // and a row longer than a page one more; never more than the whole table's pages.
    constexpr double page = 4096.0;
    const double rows = std::min(rowCount, double(table.rows));
    const double rowBytes = double(table.rowBytes());
    const double mapped = std::min(rows * (std::max(rowBytes, page) + (rowBytes > page ? page : 0.0)),
                                   double(table.rows) * rowBytes + 2.0 * page);
    checkSize(mapped + extraBytes, limits,
              "reading " + std::to_string((long long)rows) + " of the " + std::to_string(table.rows) + " rows of "
                  + table.source + " (" + formatBytes(mapped) + " of the file mapped) with the result",
              advice);
}

std::shared_ptr<const PositionTable> loadPositionTable(const std::string& path, const std::string& tensor,
                                                       const TableShapeCheck& check)
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
                    check(std::uint64_t(table->rows), std::uint64_t(table->cols), table->source);
                return table;
            }
    }
    // Mapped outside the lock: a large .safetensors header does not block other lookups. Two threads asking for
    // the same new file may both map it; the second result replaces the first.
    std::shared_ptr<const PositionTable> table = mapTable(path, tensor, check);
    std::lock_guard lock(c.mutex);
    std::erase_if(c.entries, [&](const auto& e) { return e.first == key; });
    c.entries.emplace_front(key, table);
    // A handful of mappings: each holds an open file and address space, no memory until its rows are read.
    while (c.entries.size() > cacheEntries)
        c.entries.pop_back();
    return table;
}

long long positionTableReads()
{
    return reads.load();
}

} // namespace poslab::core
