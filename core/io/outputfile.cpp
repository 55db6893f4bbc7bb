// SPDX-License-Identifier: MIT
#include "core/io/outputfile.h"

#include "core/errors.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <ostream>
#include <random>
#include <streambuf>

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace poslab::core {

namespace {

std::string reason(int error)
{
    return error != 0 ? std::string(std::strerror(error)) : std::string("the stream reported an error");
}

/// The code point of a character PosLab refuses in a name that starts at @p path[@p i] (a C0 control or DEL;
/// U+202A..U+202E or U+2066..U+2069, three bytes in UTF-8), with its length in @p bytes; 0 when there is none.
unsigned forbiddenAt(const std::string& path, std::size_t i, std::size_t* bytes)
{
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(path[k]); };
    *bytes = 1;
    if (at(i) < 0x20 || at(i) == 0x7f)
        return at(i);
    if (at(i) == 0xe2 && i + 2 < path.size()) {
        *bytes = 3;
        if (at(i + 1) == 0x80 && at(i + 2) >= 0xaa && at(i + 2) <= 0xae)
            return 0x2000u + at(i + 2) - 0x80u;
        if (at(i + 1) == 0x81 && at(i + 2) >= 0xa6 && at(i + 2) <= 0xa9)
            return 0x2040u + at(i + 2) - 0x80u;
    }
    return 0;
}

std::string codePoint(unsigned c)
{
    char text[16];
    std::snprintf(text, sizeof text, "U+%04X", c);
    return text;
}

/// @p path for a message: a control character or a bidirectional override shown as <U+XXXX>, so that a
/// crafted name can neither cut the message (U+0000) nor reorder or clear the terminal.
std::string shown(const std::string& path)
{
    std::string out;
    for (std::size_t i = 0, n = 0; i < path.size(); i += n) {
        const unsigned c = forbiddenAt(path, i, &n);
        if (c == 0 && path[i] != '\0') {
            n = 1;
            out += path[i];
        } else {
            out += "<" + codePoint(c) + ">";
        }
    }
    return out;
}

/// The first control character or bidirectional override in @p path as "U+XXXX", or "".
std::string forbiddenCharacter(const std::string& path)
{
    for (std::size_t i = 0, n = 0; i < path.size(); i += n) {
        const unsigned c = forbiddenAt(path, i, &n);
        if (c != 0 || path[i] == '\0')
            return codePoint(c);
        n = 1;
    }
    return {};
}

/// "a character device", "a FIFO", ... for a file that is not regular.
const char* kindOf(mode_t mode)
{
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

std::filesystem::path folderOf(const std::string& path)
{
    const std::filesystem::path target(path);
    return target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
}

// ------------------------------------------------------------------------------------ signals

/// The temporaries being written now, for the signal handler: fixed slots of plain characters, so that the
/// handler reads them without allocating or locking (unlink is async-signal-safe).
constexpr int slotCount = 16;
struct Slot {
    std::atomic<bool> used{false};
    char path[PATH_MAX + 1] = {};
};
Slot slots[slotCount];
std::mutex handlerMutex;
int writersActive = 0;
constexpr int handledSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction previousActions[3];

extern "C" void removeTemporariesAndDie(int sig)
{
    for (Slot& s : slots)
        if (s.used.load())
            ::unlink(s.path);
    // End as the signal says (the shell sees "killed by SIGINT", exit status 130), with the disposition
    // that was there before.
    for (int i = 0; i < 3; ++i)
        if (handledSignals[i] == sig)
            ::sigaction(sig, &previousActions[i], nullptr);
    ::raise(sig);
}

/// Registers a temporary for the handler while it lives; the handler is installed while any is registered.
class SignalGuard {
public:
    SignalGuard()
    {
        std::lock_guard lock(handlerMutex);
        if (writersActive++ == 0) {
            struct sigaction action = {};
            action.sa_handler = removeTemporariesAndDie;
            sigemptyset(&action.sa_mask);
            for (int i = 0; i < 3; ++i) {
                ::sigaction(handledSignals[i], nullptr, &previousActions[i]);
                // A signal the process ignores (nohup) stays ignored.
                if (previousActions[i].sa_handler != SIG_IGN)
                    ::sigaction(handledSignals[i], &action, nullptr);
            }
        }
    }
    /// From now on a signal removes @p path.
    void watch(const std::string& path)
    {
        if (path.size() > PATH_MAX)
            return;
        for (int i = 0; i < slotCount; ++i) {
            bool expected = false;
            if (slots[i].used.load() || !slots[i].used.compare_exchange_strong(expected, true))
                continue;
            std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
            m_slot = i;
            break;
        }
    }
    /// From now on a signal leaves @p path alone (it is about to become the target).
    void release()
    {
        if (m_slot >= 0)
            slots[m_slot].used.store(false);
        m_slot = -1;
    }
    ~SignalGuard()
    {
        {
            std::lock_guard lock(handlerMutex);
            if (--writersActive == 0)
                for (int i = 0; i < 3; ++i)
                    ::sigaction(handledSignals[i], &previousActions[i], nullptr);
        }
        release();
    }
    SignalGuard(const SignalGuard&) = delete;
    SignalGuard& operator=(const SignalGuard&) = delete;

private:
    int m_slot = -1;
};

/// A stream buffer over a file descriptor that keeps the errno of the first failed write (std::ofstream
/// forgets it, which is how "cannot write r.json: Success" came about).
class FdBuffer : public std::streambuf {
public:
    explicit FdBuffer(int fd)
        : m_fd(fd)
    {
        setp(m_buffer.data(), m_buffer.data() + m_buffer.size());
    }
    int error() const { return m_error; }
    /// Bytes that reached the file.
    std::uint64_t written() const { return m_written; }

protected:
    int_type overflow(int_type c) override
    {
        if (!drain())
            return traits_type::eof();
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    int sync() override { return drain() ? 0 : -1; }
    std::streamsize xsputn(const char* s, std::streamsize n) override
    {
        if (n <= epptr() - pptr()) {
            std::memcpy(pptr(), s, std::size_t(n));
            pbump(int(n));
            return n;
        }
        // A large block goes straight to the file after what is buffered.
        if (!drain() || !writeAll(s, std::size_t(n)))
            return 0;
        return n;
    }

private:
    bool drain()
    {
        const std::size_t n = std::size_t(pptr() - pbase());
        setp(m_buffer.data(), m_buffer.data() + m_buffer.size());
        return writeAll(m_buffer.data(), n);
    }
    bool writeAll(const char* data, std::size_t n)
    {
        if (m_error != 0)
            return false;
        while (n > 0) {
            const ssize_t done = ::write(m_fd, data, n);
            if (done < 0 && errno == EINTR)
                continue;
            if (done <= 0) {
                m_error = done < 0 ? errno : EIO;
                return false;
            }
            data += done;
            m_written += std::uint64_t(done);
            n -= std::size_t(done);
        }
        return true;
    }

    int m_fd;
    int m_error = 0;
    std::uint64_t m_written = 0;
    std::array<char, 1 << 16> m_buffer{};
};

/// Removes the temporary unless it was renamed into place, and closes its descriptor (which drops its lock).
struct Temporary {
    std::string path;
    int fd = -1;
    bool renamed = false;
    ~Temporary()
    {
        if (!renamed && !path.empty())
            ::unlink(path.c_str());
        if (fd >= 0)
            ::close(fd);
    }
};

void throwWriteError(const std::string& path, int error, const char* after)
{
    throw RefusedError("writing " + shown(path) + " failed: " + reason(error) + after);
}

constexpr int randomLength = 12;
constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
/// A temporary older than this and unlocked is left over from a write that died.
constexpr std::time_t staleSeconds = 10;

/// True when @p name is ".TARGET.XXXXXXXXXXXX.part" for @p target.
bool isTemporaryName(const std::string& name, const std::string& target)
{
    const std::string prefix = "." + target + ".", suffix = ".part";
    if (name.size() != prefix.size() + randomLength + suffix.size() || name.compare(0, prefix.size(), prefix) != 0
        || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        return false;
    for (std::size_t i = prefix.size(); i < prefix.size() + randomLength; ++i)
        if (!std::strchr(alphabet, name[i]) || name[i] == '\0')
            return false;
    return true;
}

/// Throws unless the file at @p path may be replaced: absent, or a regular file PosLab may write.
void checkTarget(const std::string& path)
{
    struct stat st = {};
    if (::lstat(path.c_str(), &st) != 0)
        return; // a new file (ENOENT), or a folder the next check names
    if (S_ISLNK(st.st_mode)) {
        std::string target(PATH_MAX, '\0');
        const ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
        target.resize(n > 0 ? std::size_t(n) : 0);
        throw RefusedError("cannot write " + shown(path) + ": it is a symbolic link"
                           + (n > 0 ? " to " + shown(target) : "")
                           + "; PosLab neither replaces a link nor writes through it (give the file's own path)");
    }
    if (S_ISDIR(st.st_mode))
        throw InputError("cannot write " + shown(path) + ": it is a folder");
    if (!S_ISREG(st.st_mode))
        throw RefusedError("cannot write " + shown(path) + ": it is " + kindOf(st.st_mode)
                           + "; PosLab writes regular files only");
    // Root may write any file; a file with no write bit at all is still read-only to PosLab, as to export.
    if (::access(path.c_str(), W_OK) != 0 || (st.st_mode & 0222) == 0)
        throw RefusedError("cannot write " + shown(path) + ": the file is read-only");
}

} // namespace

void checkOutputFile(const std::string& path)
{
    namespace fs = std::filesystem;
    if (path.empty())
        throw InputError("no output file given");
    if (const std::string c = forbiddenCharacter(path); !c.empty())
        throw InputError("cannot write " + shown(path) + ": the name holds " + c
                         + (c.compare(0, 4, "U+20") == 0 ? " (a bidirectional override, which shows another name)"
                                                         : " (a control character)")
                         + "; give a name without it");
    const fs::path dir = folderOf(path);
    std::error_code ec;
    const fs::file_status folder = fs::status(dir, ec);
    if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory)
        throw RefusedError("cannot write " + shown(path) + ": folder " + shown(dir.string()) + " cannot be reached ("
                           + ec.message() + ")"); // a folder on the way that this user may not enter
    if (!fs::is_directory(folder)) {
        // Name the part of the path that is wrong: a file where a folder should be, or the missing folder.
        for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
            if (fs::exists(p, ec) && !fs::is_directory(p, ec))
                throw InputError("cannot write " + shown(path) + ": " + shown(p.string()) + " is a file, not a folder");
            if (p == p.parent_path())
                break;
        }
        throw InputError("cannot write " + shown(path) + ": folder " + shown(dir.string()) + " does not exist");
    }
    checkTarget(path);
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
        const int error = errno;
        throw RefusedError("cannot write " + shown(path) + ": folder " + shown(dir.string()) + " refuses a new file ("
                           + reason(error) + ")");
    }
    removeStaleTemporaries(path);
}

int removeStaleTemporaries(const std::string& path)
{
    const std::filesystem::path target(path);
    const std::string name = target.filename().string();
    const std::string dir = folderOf(path).string();
    DIR* d = ::opendir(dir.c_str());
    if (!d)
        return 0;
    int removed = 0;
    const std::time_t now = std::time(nullptr);
    while (const dirent* e = ::readdir(d)) {
        const std::string entry = e->d_name;
        if (!isTemporaryName(entry, name))
            continue;
        const std::string full = dir + "/" + entry;
        struct stat st = {};
        if (::lstat(full.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || now - st.st_mtime < staleSeconds)
            continue;
        const int fd = ::open(full.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
            continue;
        // A live writer holds its temporary locked from creation to rename: a lock we get means it died.
        if (::flock(fd, LOCK_EX | LOCK_NB) == 0 && ::unlink(full.c_str()) == 0)
            ++removed;
        ::close(fd);
    }
    ::closedir(d);
    return removed;
}

std::uint64_t writeOutputFile(const std::string& path, const std::function<void(std::ostream&)>& body)
{
    checkOutputFile(path);
    const std::filesystem::path target(path);
    const std::filesystem::path dir = folderOf(path);
    struct stat existing = {};
    const bool exists = ::stat(path.c_str(), &existing) == 0;

    // A unique name opened exclusively: O_EXCL fails on any existing name, a symbolic link included, so a
    // link planted there is never followed (O_NOFOLLOW says the same for readers of this code).
    SignalGuard guard; // outlives the temporary: a signal before its removal still removes it
    Temporary temp;
    std::random_device random;
    int openError = 0;
    for (int attempt = 0; attempt < 100 && temp.fd < 0; ++attempt) {
        std::string name = "." + target.filename().string() + ".";
        for (int i = 0; i < randomLength; ++i)
            name += alphabet[random() % (sizeof alphabet - 1)];
        name += ".part";
        const std::string candidate = (dir / name).string();
        // Watched before it exists: a signal right after the open still finds it (one before finds nothing).
        guard.watch(candidate);
        const int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0)
            guard.release(); // the name is someone else's
        if (fd >= 0) {
            temp.fd = fd;
            temp.path = candidate;
            ::flock(fd, LOCK_EX | LOCK_NB); // removeStaleTemporaries leaves a locked temporary alone
        } else if (errno != EEXIST) {
            openError = errno;
            break;
        } else {
            openError = EEXIST;
        }
    }
    if (temp.fd < 0)
        throw RefusedError("cannot write " + shown(path) + ": " + reason(openError) + " (creating a file in folder "
                           + shown(dir.string()) + ")");
    // Replacing a file keeps its permissions, as QSaveFile does.
    if (exists)
        ::fchmod(temp.fd, existing.st_mode & 07777);

    const char* unchanged = "; the old file, if any, is unchanged";
    FdBuffer buffer(temp.fd);
    {
        std::ostream stream(&buffer);
        body(stream); // an exception leaves through ~Temporary, which removes the file
        stream.flush();
        if (!stream)
            throwWriteError(path, buffer.error(), unchanged);
    }
    // A full disk on some file systems (NFS, quotas) shows only here.
    if (::fsync(temp.fd) != 0 && errno != EINVAL && errno != EROFS)
        throwWriteError(path, errno, unchanged);
    // The target may have changed while the body ran (a link or a device put there): judged again.
    checkTarget(path);
    guard.release(); // from here a signal leaves the temporary to removeStaleTemporaries, never the target
    if (::rename(temp.path.c_str(), path.c_str()) != 0) {
        const int error = errno;
        throw RefusedError("cannot write " + shown(path) + ": " + reason(error) + " (renaming " + shown(temp.path)
                           + " over it)");
    }
    temp.renamed = true; // ~Temporary closes it (the data were fsync'ed; the lock goes with the descriptor)
    return buffer.written();
}

} // namespace poslab::core
