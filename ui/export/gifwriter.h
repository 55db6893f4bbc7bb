// SPDX-License-Identifier: MIT
#pragma once
/// @file gifwriter.h
/// Animated GIF through giflib (Debian's libgif-dev): each frame quantised to its own 256-colour palette
/// (giflib's median cut), a frame delay in hundredths of a second, and the NETSCAPE2.0 loop extension.

#include <QByteArray>
#include <QImage>
#include <QList>
#include <QString>

namespace poslab::exporting {

struct GifOptions {
    double framesPerSecond = 12.0; ///< converted to a whole number of centiseconds per frame (at least 2)
    int loopCount = 0;             ///< 0 loops forever
};

/// Encodes @c frames (all of the first frame's size) as a GIF. Returns an empty array and sets @c error
/// when a frame has another size, there are no frames, or giflib fails.
QByteArray encodeGif(const QList<QImage>& frames, const GifOptions& options, QString* error);

/// Centiseconds per frame that encodeGif() writes for @c fps (GIF delays are whole centiseconds).
int gifDelayCentiseconds(double fps);

} // namespace poslab::exporting
