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
/// The folders on the way may be links; only the last name is judged. With an OutputFolder (a batch file's
/// folder) the folders on the way are judged too: the output must lie beneath that folder however its links
/// lead, at the moment it is written, not only when it was checked.
///
/// The folder of the output is opened once, and everything after that (the check of the last name, the
/// temporary, the rename, removing the temporary on failure or on a signal) goes through that descriptor
/// (fstatat, openat, renameat, unlinkat): a folder on the way swapped for a link part way through changes
/// neither where the file lands nor which temporary is removed.

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace poslab::core {

/// A folder that outputs are kept beneath (a batch file's folder, unless the batch allows outside outputs).
/// Opened once, when constructed: what @p path leads to then is the folder from then on, whatever is later
/// renamed or linked in its place. An output named relative to it (or by an absolute path that starts with
/// path()) is resolved beneath the open folder one name at a time, as openat2's RESOLVE_BENEATH does (used
/// where the kernel has it, else the same walk by openat with O_NOFOLLOW on each name): a link on the way
/// is followed only while it stays beneath (a relative link inside is fine; an absolute link, or ".." above
/// the folder, is refused), so no output and no temporary is ever created outside it.
class OutputFolder {
public:
    /// How names are resolved beneath the folder: Kernel is openat2(RESOLVE_BENEATH) where the kernel has it
    /// (Linux 5.6) and the walk otherwise; Walk is always the walk (tests check that the two agree).
    enum class Resolution { Kernel, Walk };
    /// Opens folder @p path. @p advice ends the message of an output that would leave the folder ("add
    /// \"allow_outside\": true to the batch file to write there"). Throws core::RefusedError when the
    /// folder cannot be opened.
    OutputFolder(const std::string& path, std::string advice, Resolution resolution = Resolution::Kernel);
    ~OutputFolder();
    OutputFolder(const OutputFolder&) = delete;
    OutputFolder& operator=(const OutputFolder&) = delete;
    /// The folder as named to the constructor (messages; the prefix stripped from an absolute output).
    const std::string& path() const { return m_path; }
    /// The open folder (O_PATH | O_DIRECTORY).
    int descriptor() const { return m_fd; }
    const std::string& advice() const { return m_advice; }
    Resolution resolution() const { return m_resolution; }

private:
    std::string m_path, m_advice;
    Resolution m_resolution;
    int m_fd = -1;
};

/// Checks that @p path can be written as an output without touching it: the rules above. Cheap (a few
/// stat calls); commands call it before their work, so that a typo costs no computation. Also removes the
/// temporaries an interrupted earlier write to @p path left (removeStaleTemporaries). With @p within, @p path
/// must resolve beneath that folder (core::InputError naming where it leads, then within's advice).
void checkOutputFile(const std::string& path, const OutputFolder* within = nullptr);

/// A file that a run reads, for checkNotAnInput: what it is, in the words of a message ("the --config
/// file", "the state file of entry 4"), and its path.
struct RunInput {
    std::string role;
    std::string path;
};

/// Throws core::InputError when output @p path exists and is the same file (st_dev and st_ino, so also
/// through another name, a hard link or a linked folder) as one of @p inputs, before anything is written:
/// "cannot write c.json: it is the same file as the --config file (c.json), which this run reads; give
/// another output name". An input that does not exist (yet) is skipped; its reader names it.
void checkNotAnInput(const std::string& path, const std::vector<RunInput>& inputs);

/// Writes what @p body puts on the stream to @p path atomically, after checkOutputFile. Returns the bytes
/// written.
///
/// The temporary is ".NAME.XXXXXXXXXXXX.part" (twelve random characters) next to @p path, NAME cut (at a
/// UTF-8 character) to 236 bytes so that the temporary's name fits NAME_MAX (255 bytes) when the target's
/// own name is up to 255 bytes long. It is opened with
/// O_CREAT | O_EXCL | O_NOFOLLOW and locked (flock) while it is written, mode 0666 less the umask, or the
/// mode of the file it replaces. SIGINT, SIGTERM and SIGHUP during the write remove it before the process
/// ends as the signal says. After @p body the data are flushed and fsync'ed, and the temporary is renamed over
/// @p path.
///
/// Throws core::InputError or core::RefusedError as checkOutputFile, and core::RefusedError when writing fails
/// part way ("writing r.json failed: No space left on device; the old file, if any, is unchanged"); either way
/// the temporary is removed and the old file, if any, is untouched. An exception from @p body also removes the
/// temporary and is rethrown.
/// With @p within, @p path is resolved beneath that folder once, as checkOutputFile says, and written there.
std::uint64_t writeOutputFile(const std::string& path, const std::function<void(std::ostream&)>& body,
                              const OutputFolder* within = nullptr);

/// Removes the temporaries of writes to @p path that ended without cleaning up (SIGKILL, a power cut): names
/// ".NAME.XXXXXXXXXXXX.part" (NAME cut as above) in its folder that no process holds locked and that are older than a few
/// seconds (a temporary is locked from the moment it is created). Returns how many were removed.
int removeStaleTemporaries(const std::string& path);

} // namespace poslab::core
