// SPDX-License-Identifier: MIT
#pragma once
/// @file inputfile.h
/// The one way PosLab reads a whole input file a person names (a config.json, a batch file, a session): at
/// most a stated number of bytes, whatever the file is. A size that a file reports is not trusted alone, as
/// a device or a pipe reports 0 (/dev/zero, a FIFO, `<(command)`), and /dev/zero never ends.
///
/// - a regular file larger than the bound is refused by its size, before a byte is read;
/// - a FIFO or pipe is read until its end or until one byte more than the bound arrived, then refused;
/// - a device (/dev/zero, /dev/tty), a socket or a folder is refused by what it is, without reading;
/// - an empty path is refused by name (not passed to the system, which would say "No such file").
/// The .npy and .safetensors readers read by range from regular files only (core/io/tablefile.h).

#include <cstdint>
#include <string>

namespace poslab::core {

/// The bytes of @p path, at most @p maxBytes. @p what names the file in messages ("batch file", "model
/// config"; may be empty), @p hint ends the too-large message ("a config.json is a few kilobytes"; may be
/// empty). Throws InputError: "cannot read batch file d.json: No such file or directory", "cannot read model
/// config /dev/zero: it is a character device, not a file", "batch file d.json is larger than 64 MiB; ...".
std::string readInputFile(const std::string& path, std::uint64_t maxBytes, const std::string& what,
                          const std::string& hint = {});

} // namespace poslab::core
