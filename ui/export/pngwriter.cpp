// SPDX-License-Identifier: MIT
#include "ui/export/pngwriter.h"

#include <zlib.h>

#include <algorithm>
#include <thread>
#include <vector>

namespace poslab::exporting {

namespace {

void putU32(QByteArray& out, quint32 v)
{
    const char b[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
    out.append(b, 4);
}

void putChunk(QByteArray& out, const char type[4], const QByteArray& data)
{
    putU32(out, quint32(data.size()));
    const int start = int(out.size());
    out.append(type, 4);
    out.append(data);
    // The CRC covers the type and the data, not the length (PNG 1.2, 5.3).
    putU32(out, quint32(crc32(0, reinterpret_cast<const Bytef*>(out.constData() + start), uInt(data.size() + 4))));
}

struct Band {
    const QImage* image = nullptr;
    int y0 = 0, y1 = 0;
    std::size_t rowBytes = 0;
    bool last = false;
    std::vector<unsigned char> deflated;
    uLong adler = 1;
    std::size_t rawSize = 0;
    bool ok = false;
};

void deflateBand(Band& band)
{
    z_stream zs{};
    // Raw deflate (negative window bits): the zlib header and trailer are written once for the whole stream.
    if (deflateInit2(&zs, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return;
    band.rawSize = (band.rowBytes + 1) * std::size_t(band.y1 - band.y0);
    band.deflated.resize(deflateBound(&zs, uLong(band.rawSize)) + 64);
    zs.next_out = band.deflated.data();
    zs.avail_out = uInt(band.deflated.size());
    static const Bytef filterNone = 0; // filter type 0 before every row (PNG 1.2, 9.2)
    bool ok = true;
    for (int y = band.y0; y < band.y1 && ok; ++y) {
        const Bytef* row = band.image->constScanLine(y);
        band.adler = adler32(adler32(band.adler, &filterNone, 1), row, uInt(band.rowBytes));
        zs.next_in = const_cast<Bytef*>(&filterNone);
        zs.avail_in = 1;
        ok = deflate(&zs, Z_NO_FLUSH) == Z_OK && zs.avail_in == 0;
        zs.next_in = const_cast<Bytef*>(row);
        zs.avail_in = uInt(band.rowBytes);
        ok = ok && deflate(&zs, Z_NO_FLUSH) == Z_OK && zs.avail_in == 0;
    }
    // Every band but the last ends byte-aligned without the final-block bit, so the bands concatenate.
    const int rc = ok ? deflate(&zs, band.last ? Z_FINISH : Z_SYNC_FLUSH) : Z_STREAM_ERROR;
    band.ok = band.last ? rc == Z_STREAM_END : rc == Z_OK;
    band.deflated.resize(zs.total_out);
    deflateEnd(&zs);
}

/// The zlib stream of @p src's rows, each after filter type 0, deflated in bands of whole rows on up to
/// @p threads threads (a band of fewer than 64 rows is not worth a thread). Empty when zlib fails.
QByteArray deflateRows(const QImage& src, int bpp, int threads)
{
    const int w = src.width(), h = src.height();
    threads = std::clamp(std::min(threads, h / 64), 1, 8);
    std::vector<Band> bands(static_cast<std::size_t>(threads));
    for (int i = 0; i < threads; ++i) {
        Band& b = bands[std::size_t(i)];
        b.image = &src;
        b.y0 = int(qint64(h) * i / threads);
        b.y1 = int(qint64(h) * (i + 1) / threads);
        b.rowBytes = std::size_t(w) * std::size_t(bpp);
        b.last = i == threads - 1;
    }
    {
        std::vector<std::thread> workers;
        for (std::size_t i = 1; i < bands.size(); ++i)
            workers.emplace_back(deflateBand, std::ref(bands[i]));
        deflateBand(bands[0]);
        for (std::thread& t : workers)
            t.join();
    }
    QByteArray idat;
    std::size_t total = 6;
    for (const Band& b : bands)
        total += b.deflated.size();
    idat.reserve(qsizetype(total));
    idat.append(char(0x78)).append(char(0x01)); // zlib header: deflate, 32 KiB window, fastest (RFC 1950)
    uLong adler = 1;
    for (const Band& b : bands) {
        if (!b.ok)
            return {};
        idat.append(reinterpret_cast<const char*>(b.deflated.data()), qsizetype(b.deflated.size()));
        adler = adler32_combine(adler, b.adler, z_off_t(b.rawSize));
    }
    putU32(idat, quint32(adler));
    return idat;
}

/// A tEXt chunk per text (iTXt where it is not Latin-1); false with the keyword in @p bad when one is not valid.
bool putTextChunks(QByteArray& out, const QList<QPair<QString, QString>>& texts, QString* bad)
{
    for (const auto& [key, text] : texts) {
        const QByteArray k = key.toLatin1();
        // Keywords: 1 to 79 Latin-1 printable characters, no leading, trailing or double spaces (11.3.4.2).
        if (k.isEmpty() || k.size() > 79 || QString::fromLatin1(k) != key || k.startsWith(' ') || k.endsWith(' ')
            || k.contains("  ")) {
            *bad = key;
            return false;
        }
        const QByteArray latin1 = text.toLatin1();
        if (QString::fromLatin1(latin1) == text && !latin1.contains('\0')) {
            putChunk(out, "tEXt", k + '\0' + latin1);
        } else {
            // International text: keyword, 0, compression flag 0, method 0, empty language and translated
            // keyword, then UTF-8 (11.3.4.5).
            QByteArray itxt = k;
            itxt.append('\0').append('\0').append('\0').append('\0').append('\0');
            itxt.append(text.toUtf8());
            putChunk(out, "iTXt", itxt);
        }
    }
    return true;
}

} // namespace

QByteArray encodePng(const QImage& image, const PngOptions& options, QString* error)
{
    const auto fail = [&](const QString& why) {
        if (error)
            *error = why;
        return QByteArray();
    };
    if (image.isNull())
        return fail(QStringLiteral("PNG: the image is empty"));
    const bool alpha = image.hasAlphaChannel();
    const QImage src = image.convertToFormat(alpha ? QImage::Format_RGBA8888 : QImage::Format_RGB888);
    const int w = src.width(), h = src.height(), bpp = alpha ? 4 : 3;

    const QByteArray idat
        = deflateRows(src, bpp, options.threads > 0 ? options.threads : int(std::thread::hardware_concurrency()));
    if (idat.isEmpty())
        return fail(QStringLiteral("PNG: zlib could not compress the image"));

    QByteArray out("\x89PNG\r\n\x1a\n", 8);
    QByteArray ihdr;
    putU32(ihdr, quint32(w));
    putU32(ihdr, quint32(h));
    ihdr.append(char(8)).append(char(alpha ? 6 : 2)).append(char(0)).append(char(0)).append(char(0));
    putChunk(out, "IHDR", ihdr);
    if (image.dotsPerMeterX() > 0 && image.dotsPerMeterY() > 0) {
        QByteArray phys;
        putU32(phys, quint32(image.dotsPerMeterX()));
        putU32(phys, quint32(image.dotsPerMeterY()));
        phys.append(char(1)); // unit: metre
        putChunk(out, "pHYs", phys);
    }
    if (QString key; !putTextChunks(out, options.text, &key))
        return fail(QStringLiteral("PNG: '%1' is not a valid text keyword").arg(key));
    // IDAT chunks of at most 1 GiB (a chunk's length is below 2^31, 5.3); decoders join them.
    for (qsizetype at = 0; at < idat.size(); at += qsizetype(1) << 30)
        putChunk(out, "IDAT", idat.mid(at, qsizetype(1) << 30));
    putChunk(out, "IEND", QByteArray());
    return out;
}

} // namespace poslab::exporting