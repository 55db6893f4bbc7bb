// SPDX-License-Identifier: MIT
#pragma once
/// @file outputfile.h
/// The one way PosLab writes a file: `compute -o`, `train -o`, every export (figures and data, single and
/// batch), a saved session and a saved run file all come here, so that one rule holds for all of them.
///
/// The bytes go to a temporary file with a unique name in the target's folder, created exclusively, and
/// replace the target by one rename when they are all written (as QSaveFile does, without Qt). A reader never
/// sees a partial file, a failed write keeps the old file, two writers to one file each leave a whole file
/// (the last rename wins), and a symbolic link planted where a temporary could be is never followed.
///
/// What is refused, before any work (checkOutputFile) and again just before writing:
/// - a path that names no file: empty, a folder, a folder that does not exist, a file where a folder should
///   be; a name with a control character (U+0000 to U+001F, U+007F) or a bidirectional override (U+202A to
///   U+202E, U+2066 to U+2069, which display a name other than the one written): core::InputError;
/// - a symbolic link: PosLab neither replaces the link nor writes through it (a link to /dev/sda or to a file
///   elsewhere would be written there): core::RefusedError naming the target, to be given instead;
/// - a device, FIFO or socket (a rename would replace the node itself, for root): core::RefusedError;
/// - a read-only file (no write permission for the user, or, for root, no write bit at all) and a folder that
///   refuses a new file: core::RefusedError, the same for every writer.
/// The folders on the way may be links; only the last name is judged.

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>

namespace poslab::core {

/// Checks that @p path can be written as an output without touching it: the rules above. Cheap (a few
/// stat calls); commands call it before their work, so that a typo costs no computation. Also removes the
/// temporaries an interrupted earlier write to @p path left (removeStaleTemporaries).
void checkOutputFile(const std::string& path);

/// Writes what @p body puts on the stream to @p path atomically, after checkOutputFile. Returns the bytes
/// written.
///
/// The temporary is ".NAME.XXXXXXXXXXXX.part" (twelve random characters) next to @p path, opened with
/// O_CREAT | O_EXCL | O_NOFOLLOW and locked (flock) while it is written, mode 0666 less the umask, or the
/// mode of the file it replaces. SIGINT, SIGTERM and SIGHUP during the write remove it before the process
/// ends as the signal says. After @p body the data are flushed and fsync'ed, and the temporary is renamed over
/// @p path.
///
/// Throws core::InputError or core::RefusedError as checkOutputFile, and core::RefusedError when writing fails
/// part way ("writing r.json failed: No space left on device; the old file, if any, is unchanged"); either way
/// the temporary is removed and the old file, if any, is untouched. An exception from @p body also removes the
/// temporary and is rethrown.
std::uint64_t writeOutputFile(const std::string& path, const std::function<void(std::ostream&)>& body);

/// Removes the temporaries of writes to @p path that ended without cleaning up (SIGKILL, a power cut): names
/// ".NAME.XXXXXXXXXXXX.part" in its folder that no process holds locked and that are older than a few
/// seconds (a temporary is locked from the moment it is created). Returns how many were removed.
int removeStaleTemporaries(const std::string& path);

} // namespace poslab::core
