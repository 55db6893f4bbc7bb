// SPDX-License-Identifier: MIT
#include "ui/export/gifwriter.h"

#include <QPainter>

#include <gif_lib.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace poslab::exporting {

namespace {

int appendToArray(GifFileType* gif, const GifByteType* data, int length)
{
    auto* out = static_cast<QByteArray*>(gif->UserData);
    out->append(reinterpret_cast<const char*>(data), length);
    return length;
}

QString giflibError(const char* step, int code)
{
    const char* text = GifErrorString(code);
    return QStringLiteral("GIF encoding failed while %1: %2")
        .arg(QLatin1String(step), QLatin1String(text ? text : "?"));
}

/// The screen descriptor and the loop extension; empty or what failed.
QString putHeader(GifFileType* gif, const QSize& size, int loopCount)
{
    if (EGifPutScreenDesc(gif, size.width(), size.height(), 8, 0, nullptr) == GIF_ERROR)
        return giflibError("writing the screen descriptor", gif->Error);
    // NETSCAPE2.0 application extension: sub-block 1, loop count (little-endian; 0 = forever).
    const GifByteType app[] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
    const int loops = std::clamp(loopCount, 0, 65535);
    const GifByteType loop[] = {1, GifByteType(loops & 0xff), GifByteType(loops >> 8)};
    if (EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR
        || EGifPutExtensionBlock(gif, sizeof app, app) == GIF_ERROR
        || EGifPutExtensionBlock(gif, sizeof loop, loop) == GIF_ERROR || EGifPutExtensionTrailer(gif) == GIF_ERROR)
        return giflibError("writing the loop extension", gif->Error);
    return {};
}

/// The buffers one frame is quantised in, reused for every frame.
struct FramePlanes {
    explicit FramePlanes(std::size_t pixels)
        : red(pixels)
        , green(pixels)
        , blue(pixels)
        , indices(pixels)
    { }
    std::vector<GifByteType> red, green, blue, indices;
    GifColorType palette[256];
};

/// Frame @p f (of the first frame's size): composited on white, quantised to 256 colours and written with its
/// delay; empty or what failed.
QString putFrame(GifFileType* gif, const QImage& frame, int f, double framesPerSecond, FramePlanes& planes)
{
    const QSize size = frame.size();
    // Composite on white: GIF has no partial transparency.
    QImage rgb(size, QImage::Format_RGB888);
    rgb.fill(Qt::white);
    {
        QPainter p(&rgb);
        p.drawImage(0, 0, frame);
    }
    for (int y = 0; y < size.height(); ++y) {
        const uchar* line = rgb.constScanLine(y);
        for (int x = 0; x < size.width(); ++x) {
            const std::size_t i = std::size_t(y) * std::size_t(size.width()) + std::size_t(x);
            planes.red[i] = line[3 * x];
            planes.green[i] = line[3 * x + 1];
            planes.blue[i] = line[3 * x + 2];
        }
    }
    int colours = 256;
    if (GifQuantizeBuffer(unsigned(size.width()), unsigned(size.height()), &colours, planes.red.data(),
                          planes.green.data(), planes.blue.data(), planes.indices.data(), planes.palette)
        == GIF_ERROR)
        return QStringLiteral("GIF encoding failed while quantising frame %1").arg(f + 1);
    GraphicsControlBlock gcb{};
    gcb.DisposalMode = DISPOSE_BACKGROUND;
    gcb.UserInputFlag = false;
    gcb.DelayTime = gifDelayCentiseconds(framesPerSecond);
    gcb.TransparentColor = NO_TRANSPARENT_COLOR;
    GifByteType gcbBytes[4];
    const std::size_t gcbLength = EGifGCBToExtension(&gcb, gcbBytes);
    ColorMapObject* map = GifMakeMapObject(256, planes.palette);
    const bool ok = map && EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, int(gcbLength), gcbBytes) != GIF_ERROR
        && EGifPutImageDesc(gif, 0, 0, size.width(), size.height(), false, map) != GIF_ERROR;
    bool linesOk = ok;
    for (int y = 0; linesOk && y < size.height(); ++y)
        linesOk = EGifPutLine(gif, planes.indices.data() + std::size_t(y) * std::size_t(size.width()), size.width())
            != GIF_ERROR;
    if (map)
        GifFreeMapObject(map);
    if (!linesOk)
        return giflibError("writing a frame", gif->Error);
    return {};
}

} // namespace

int gifDelayCentiseconds(double fps)
{
    // Browsers treat delays below 2 cs as 10 cs, so 2 cs (50 fps) is the fastest honest rate.
    return std::max(2, int(std::lround(100.0 / std::max(fps, 0.01))));
}

QByteArray encodeGif(const QList<QImage>& frames, const GifOptions& options, QString* error)
{
    auto fail = [&](const QString& why) {
        if (error)
            *error = why;
        return QByteArray();
    };
    if (frames.isEmpty())
        return fail(QStringLiteral("an animation needs at least one frame"));
    const QSize size = frames.first().size();
    if (size.isEmpty() || size.width() > 65535 || size.height() > 65535)
        return fail(QStringLiteral("GIF frames must be between 1 and 65535 pixels wide and high"));
    QByteArray out;
    int code = 0;
    GifFileType* gif = EGifOpen(&out, appendToArray, &code);
    if (!gif)
        return fail(giflibError("opening the encoder", code));
    auto close = [&]() {
        int closeCode = 0;
        EGifCloseFile(gif, &closeCode);
        gif = nullptr;
        return closeCode;
    };
    EGifSetGifVersion(gif, true);
    if (const QString why = putHeader(gif, size, options.loopCount); !why.isEmpty()) {
        close();
        return fail(why);
    }
    FramePlanes planes(std::size_t(size.width()) * std::size_t(size.height()));
    for (int f = 0; f < frames.size(); ++f) {
        if (frames[f].size() != size) {
            close();
            return fail(QStringLiteral("frame %1 is %2x%3, the first is %4x%5")
                            .arg(f + 1)
                            .arg(frames[f].width())
                            .arg(frames[f].height())
                            .arg(size.width())
                            .arg(size.height()));
        }
        if (const QString why = putFrame(gif, frames[f], f, options.framesPerSecond, planes); !why.isEmpty()) {
            close();
            return fail(why);
        }
    }
    const int closeCode = close();
    if (closeCode != E_GIF_SUCCEEDED)
        return fail(giflibError("finishing the file", closeCode));
    return out;
}

} // namespace poslab::exporting