// SPDX-License-Identifier: MIT
#pragma once
/// @file atomicwrite.h
/// Writing an output file (`poslab compute -o FILE`) the way QSaveFile does, without Qt: the bytes go to a
/// temporary file with a unique name in the target's folder, created exclusively, and replace the target
/// by one rename when they are all written. A reader never sees a partial file, a failed write keeps the
/// old file, two writers to one file each leave a whole file (the last rename wins), and a symbolic link
/// planted where a temporary could be is never followed.

#include <functional>
#include <iosfwd>
#include <string>

namespace poslab::app {

/// Writes what @p body puts on the stream to @p path atomically.
///
/// The temporary is ".NAME.XXXXXXXXXXXX.part" (twelve random characters) next to @p path, opened with
/// O_CREAT | O_EXCL | O_NOFOLLOW (a name that exists, a symbolic link included, is skipped for another),
/// mode 0666 less the umask, or the mode of the file it replaces. After @p body the data are flushed and
/// fsync'ed, the temporary is closed and renamed over @p path; a symbolic link at @p path itself is
/// replaced, not written through. A @p path that is a device, pipe or socket (/dev/null, /dev/stdout, a
/// FIFO) is written in place instead, never replaced.
///
/// Throws core::InputError when @p path cannot be written at all (its folder is missing, it is a folder,
/// the folder refuses a new file: the system's reason is named) and core::RefusedError when writing fails
/// part way ("writing r.json failed: No space left on device"); either way the temporary is removed and
/// the old file, if any, is untouched. An exception from @p body also removes the temporary and is
/// rethrown.
void writeAtomically(const std::string& path, const std::function<void(std::ostream&)>& body);

} // namespace poslab::app
