// SPDX-License-Identifier: MIT
#include "core/io/outputfile.h"

#include "core/errors.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <deque>
#include <filesystem>
#include <mutex>
#include <ostream>
#include <random>
#include <streambuf>
#include <utility>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define POSLAB_HAS_OPENAT2 1
#else
#define POSLAB_HAS_OPENAT2 0
#endif

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

/// The temporaries being written now, for the signal handler: fixed slots of a folder descriptor and a name,
/// so that the handler removes them without allocating or locking, and from the folder they were created in
/// (unlinkat is async-signal-safe; a path would be walked again, through whatever a folder was swapped for).
constexpr int slotCount = 16;
struct Slot {
    std::atomic<bool> used{false};  ///< claimed by a writer
    std::atomic<bool> ready{false}; ///< folder and name are filled in
    int folder = -1;
    char name[NAME_MAX + 1] = {};
};
Slot slots[slotCount];
std::mutex handlerMutex;
int writersActive = 0;
constexpr int handledSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction previousActions[3];

extern "C" void removeTemporariesAndDie(int sig)
{
    for (Slot& s : slots)
        if (s.used.load() && s.ready.load())
            ::unlinkat(s.folder, s.name, 0);
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
    /// From now on a signal removes @p name in folder @p folder.
    void watch(int folder, const std::string& name)
    {
        if (name.size() > NAME_MAX)
            return;
        for (int i = 0; i < slotCount; ++i) {
            bool expected = false;
            if (slots[i].used.load() || !slots[i].used.compare_exchange_strong(expected, true))
                continue;
            slots[i].folder = folder;
            std::memcpy(slots[i].name, name.c_str(), name.size() + 1);
            slots[i].ready.store(true);
            m_slot = i;
            break;
        }
    }
    /// From now on a signal leaves the temporary alone (it is about to become the target).
    void release()
    {
        if (m_slot >= 0) {
            slots[m_slot].ready.store(false);
            slots[m_slot].used.store(false);
        }
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

/// A descriptor, closed when it goes.
class Descriptor {
public:
    Descriptor() = default;
    explicit Descriptor(int fd)
        : m_fd(fd)
    { }
    Descriptor(Descriptor&& other) noexcept
        : m_fd(std::exchange(other.m_fd, -1))
    { }
    Descriptor& operator=(Descriptor&& other) noexcept
    {
        if (this != &other) {
            reset();
            m_fd = std::exchange(other.m_fd, -1);
        }
        return *this;
    }
    ~Descriptor() { reset(); }
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
    int get() const { return m_fd; }
    int release() { return std::exchange(m_fd, -1); }
    void reset()
    {
        if (m_fd >= 0)
            ::close(m_fd);
        m_fd = -1;
    }

private:
    int m_fd = -1;
};

/// Removes the temporary unless it was renamed into place, and closes its descriptor (which drops its lock). The
/// name is removed from the folder it was created in (by descriptor), never by walking a path again.
struct Temporary {
    int folder = -1;
    std::string name;
    int fd = -1;
    bool renamed = false;
    ~Temporary()
    {
        if (!renamed && !name.empty())
            ::unlinkat(folder, name.c_str(), 0);
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

/// ".NAME." of the temporaries of target name @p target. ".NAME.XXXXXXXXXXXX.part" adds 19 bytes to NAME, so
/// NAME is cut to 236 bytes (at the start of a UTF-8 character) and every target name up to NAME_MAX (255
/// bytes) has a temporary whose name fits NAME_MAX too.
std::string temporaryPrefix(const std::string& target)
{
    constexpr std::size_t room = NAME_MAX - 2 - randomLength - 5; // ".", ".", the random part, ".part"
    std::size_t n = std::min(target.size(), room);
    while (n > 0 && n < target.size() && (static_cast<unsigned char>(target[n]) & 0xc0) == 0x80)
        --n;
    return "." + target.substr(0, n) + ".";
}

/// True when @p name is ".TARGET.XXXXXXXXXXXX.part" for @p target (TARGET cut as temporaryPrefix cuts it).
bool isTemporaryName(const std::string& name, const std::string& target)
{
    const std::string prefix = temporaryPrefix(target), suffix = ".part";
    if (name.size() != prefix.size() + randomLength + suffix.size() || name.compare(0, prefix.size(), prefix) != 0
        || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        return false;
    for (std::size_t i = prefix.size(); i < prefix.size() + randomLength; ++i)
        if (!std::strchr(alphabet, name[i]) || name[i] == '\0')
            return false;
    return true;
}

/// Where an output goes: its folder, open, and its last name.
struct Place {
    Descriptor folder;
    std::string name;
    std::string folderShown; ///< the folder as the user would name it, for messages
};

std::string readLinkAt(int folder, const std::string& name)
{
    std::string target(PATH_MAX, '\0');
    const ssize_t n = ::readlinkat(folder, name.c_str(), target.data(), target.size());
    target.resize(n > 0 ? std::size_t(n) : 0);
    return target;
}

/// @p text split at '/', empty names and "." dropped.
std::vector<std::string> namesOf(const std::string& text)
{
    std::vector<std::string> names;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = std::min(text.find('/', start), text.size());
        const std::string name = text.substr(start, end - start);
        if (!name.empty() && name != ".")
            names.push_back(name);
        start = end + 1;
    }
    return names;
}

std::string joined(const std::string& a, const std::string& b)
{
    return a.empty() ? b : a + "/" + b;
}

/// The message of an output that would leave @p within; @p how says through what (" (figs is a symbolic link to
/// ../elsewhere)").
InputError leavesFolder(const std::string& path, const OutputFolder& within, const std::string& how)
{
    return InputError("cannot write " + shown(path) + ": it leads outside folder " + shown(within.path()) + how
                      + (within.advice().empty() ? std::string("; write inside that folder") : "; " + within.advice()));
}

/// Opens the folder reached by @p names from @p within, one name at a time as RESOLVE_BENEATH resolves: each
/// name opened with O_NOFOLLOW relative to the folder before it; a relative link followed by putting its names
/// in front of the rest; ".." back to the folder opened before (never above @p within); an absolute link
/// refused. @p relative is the text of the names, for messages.
Descriptor walkBeneath(const OutputFolder& within, const std::vector<std::string>& names, const std::string& path,
                       const std::string& relative)
{
    std::vector<Descriptor> opened; // the folders below within, in order; empty: within itself
    const auto top = [&] { return opened.empty() ? within.descriptor() : opened.back().get(); };
    std::deque<std::string> todo(names.begin(), names.end());
    std::string walked; // the names as written so far (a link's own name, not where it leads)
    int links = 0;
    while (!todo.empty()) {
        const std::string name = todo.front();
        todo.pop_front();
        if (name.empty() || name == ".")
            continue;
        if (name == "..") {
            if (opened.empty())
                throw leavesFolder(path, within, " (by \"..\")");
            opened.pop_back();
            continue;
        }
        const int fd = ::openat(top(), name.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0) {
            opened.emplace_back(fd);
            walked = joined(walked, name);
            continue;
        }
        const int error = errno;
        struct stat st = {};
        const std::string here = joined(walked, name);
        if ((error == ENOTDIR || error == ELOOP) && ::fstatat(top(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0
            && S_ISLNK(st.st_mode)) {
            const std::string target = readLinkAt(top(), name);
            if (++links > 40)
                throw RefusedError("cannot write " + shown(path) + ": too many symbolic links on the way ("
                                   + shown(here) + ")");
            if (target.empty() || target.front() == '/')
                throw leavesFolder(path, within,
                                   " (" + shown(here) + " is a symbolic link to " + shown(target)
                                       + ", an absolute path, which is not followed)");
            const std::vector<std::string> parts = namesOf(target);
            // A link that climbs above the folder is named as the reason, not the ".." it holds.
            std::size_t depth = opened.size();
            for (const std::string& part : parts) {
                if (part != "..") {
                    ++depth;
                } else if (depth-- == 0) {
                    throw leavesFolder(path, within,
                                       " (" + shown(here) + " is a symbolic link to " + shown(target) + ")");
                }
            }
            todo.insert(todo.begin(), parts.begin(), parts.end());
            walked = here;
            continue;
        }
        if (error == ENOENT)
            throw InputError("cannot write " + shown(path) + ": folder " + shown(relative) + " does not exist");
        if (error == ENOTDIR)
            throw InputError("cannot write " + shown(path) + ": " + shown(here) + " is a file, not a folder");
        throw RefusedError("cannot write " + shown(path) + ": folder " + shown(here) + " cannot be reached ("
                           + reason(error) + ")");
    }
    if (opened.empty())
        return Descriptor(::fcntl(within.descriptor(), F_DUPFD_CLOEXEC, 0));
    return std::move(opened.back());
}

/// Throws when @p path (with no folder part) names a folder: "", "." or "..", or ends in '/'.
void refuseFolderName(const std::string& path, const std::string& name)
{
    if (name.empty() || name == "." || name == "..")
        throw InputError("cannot write " + shown(path) + ": it is a folder");
}

/// The folder of output @p path beneath @p within, opened once, and its last name.
Place locateBeneath(const std::string& path, const OutputFolder& within)
{
    std::string relative = path;
    if (!path.empty() && path.front() == '/') {
        std::string root = within.path();
        while (root.size() > 1 && root.back() == '/')
            root.pop_back();
        if (root == "/")
            relative = path.substr(1);
        else if (path.compare(0, root.size() + 1, root + "/") == 0)
            relative = path.substr(root.size() + 1);
        else
            throw leavesFolder(path, within, std::string());
    }
    const std::size_t slash = relative.rfind('/');
    Place place;
    place.name = slash == std::string::npos ? relative : relative.substr(slash + 1);
    refuseFolderName(path, place.name);
    const std::string folder = slash == std::string::npos ? std::string() : relative.substr(0, slash);
    place.folderShown = folder.empty() ? within.path() : joined(within.path(), folder);
    const std::vector<std::string> names = namesOf(folder);
    if (names.empty()) {
        place.folder = Descriptor(::fcntl(within.descriptor(), F_DUPFD_CLOEXEC, 0));
        return place;
    }
#if defined(SYS_openat2) && POSLAB_HAS_OPENAT2
    if (within.resolution() == OutputFolder::Resolution::Kernel) {
        struct open_how how = {};
        how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
        const long fd = ::syscall(SYS_openat2, within.descriptor(), folder.c_str(), &how, sizeof how);
        if (fd >= 0) {
            place.folder = Descriptor(int(fd));
            return place;
        }
        // ENOSYS (a kernel before 5.6) or EPERM (a seccomp filter): the walk does the same. Any other error: the
        // walk names the problem (a link that leads out, a missing folder); should a swap have put things right
        // in between, what it opens is as beneath the folder as what openat2 opens.
    }
#endif
    place.folder = walkBeneath(within, names, path, folder);
    return place;
}

/// The folder of output @p path, opened once (the folders on the way may be links), and its last name.
Place locateAnywhere(const std::string& path)
{
    namespace fs = std::filesystem;
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
    Place place;
    place.name = fs::path(path).filename().string();
    place.folderShown = dir.string();
    refuseFolderName(path, place.name);
    place.folder = Descriptor(::open(dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (place.folder.get() < 0) {
        const int error = errno;
        throw RefusedError("cannot write " + shown(path) + ": folder " + shown(dir.string()) + " cannot be reached ("
                           + reason(error) + ")");
    }
    return place;
}

/// The one walk of an output's path: its name checked, its folder opened.
Place locate(const std::string& path, const OutputFolder* within)
{
    if (path.empty())
        throw InputError("no output file given");
    if (const std::string c = forbiddenCharacter(path); !c.empty())
        throw InputError("cannot write " + shown(path) + ": the name holds " + c
                         + (c.compare(0, 4, "U+20") == 0 ? " (a bidirectional override, which shows another name)"
                                                         : " (a control character)")
                         + "; give a name without it");
    return within ? locateBeneath(path, *within) : locateAnywhere(path);
}

/// Throws unless the file named place.name in the open folder may be replaced: absent, or a regular file PosLab
/// may write.
void checkTarget(const Place& place, const std::string& path)
{
    const int folder = place.folder.get();
    struct stat st = {};
    if (::fstatat(folder, place.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        // A name the folder cannot hold is refused now, not after the figure is made (the rename said "File
        // name too long" once all the work was done).
        if (errno == ENAMETOOLONG) {
            const long most = ::fpathconf(folder, _PC_NAME_MAX);
            throw InputError("cannot write " + shown(path) + ": its name is " + std::to_string(place.name.size())
                             + " bytes, more than the folder's file system takes ("
                             + std::to_string(most > 0 ? most : long(NAME_MAX)) + "); give a shorter name");
        }
        return; // a new file
    }
    if (S_ISLNK(st.st_mode)) {
        const std::string target = readLinkAt(folder, place.name);
        throw RefusedError("cannot write " + shown(path) + ": it is a symbolic link"
                           + (!target.empty() ? " to " + shown(target) : "")
                           + "; PosLab neither replaces a link nor writes through it (give the file's own path)");
    }
    if (S_ISDIR(st.st_mode))
        throw InputError("cannot write " + shown(path) + ": it is a folder");
    if (!S_ISREG(st.st_mode))
        throw RefusedError("cannot write " + shown(path) + ": it is " + kindOf(st.st_mode)
                           + "; PosLab writes regular files only");
    // Root may write any file; a file with no write bit at all is still read-only to PosLab, as to export.
    if (::faccessat(folder, place.name.c_str(), W_OK, 0) != 0 || (st.st_mode & 0222) == 0)
        throw RefusedError("cannot write " + shown(path) + ": the file is read-only");
}

void checkFolderTakesFiles(const Place& place, const std::string& path)
{
    if (::faccessat(place.folder.get(), ".", W_OK | X_OK, 0) != 0) {
        const int error = errno;
        throw RefusedError("cannot write " + shown(path) + ": folder " + shown(place.folderShown)
                           + " refuses a new file (" + reason(error) + ")");
    }
}

/// removeStaleTemporaries in the open folder @p folder.
int removeStaleIn(int folder, const std::string& name)
{
    Descriptor listing(::openat(folder, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (listing.get() < 0)
        return 0;
    DIR* d = ::fdopendir(listing.get());
    if (!d)
        return 0;
    listing.release(); // closedir closes it
    int removed = 0;
    const std::time_t now = std::time(nullptr);
    while (const dirent* e = ::readdir(d)) {
        const std::string entry = e->d_name;
        if (!isTemporaryName(entry, name))
            continue;
        struct stat st = {};
        if (::fstatat(folder, entry.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)
            || now - st.st_mtime < staleSeconds)
            continue;
        const Descriptor fd(::openat(folder, entry.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
        if (fd.get() < 0)
            continue;
        // A live writer holds its temporary locked from creation to rename: a lock we get means it died.
        if (::flock(fd.get(), LOCK_EX | LOCK_NB) == 0 && ::unlinkat(folder, entry.c_str(), 0) == 0)
            ++removed;
    }
    ::closedir(d);
    return removed;
}

} // namespace

OutputFolder::OutputFolder(const std::string& path, std::string advice, Resolution resolution)
    : m_path(path)
    , m_advice(std::move(advice))
    , m_resolution(resolution)
{
    m_fd = ::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (m_fd < 0) {
        const int error = errno;
        throw RefusedError("cannot open folder " + shown(path) + ": " + reason(error));
    }
}

OutputFolder::~OutputFolder()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

void checkOutputFile(const std::string& path, const OutputFolder* within)
{
    const Place place = locate(path, within);
    checkTarget(place, path);
    checkFolderTakesFiles(place, path);
    removeStaleIn(place.folder.get(), place.name);
}

void checkNotAnInput(const std::string& path, const std::vector<RunInput>& inputs)
{
    struct stat output = {};
    if (path.empty() || ::stat(path.c_str(), &output) != 0)
        return; // a new file is nobody's input
    for (const RunInput& input : inputs) {
        struct stat st = {};
        if (input.path.empty() || ::stat(input.path.c_str(), &st) != 0)
            continue;
        if (st.st_dev == output.st_dev && st.st_ino == output.st_ino)
            throw InputError("cannot write " + shown(path) + ": it is the same file as " + input.role + " ("
                             + shown(input.path) + "), which this run reads; give another output name");
    }
}

int removeStaleTemporaries(const std::string& path)
{
    try {
        const Place place = locate(path, nullptr);
        return removeStaleIn(place.folder.get(), place.name);
    } catch (const std::exception&) {
        return 0; // no folder to clean
    }
}

std::uint64_t writeOutputFile(const std::string& path, const std::function<void(std::ostream&)>& body,
                              const OutputFolder* within)
{
    // The one walk of the path. From here on the folder is a descriptor: a folder on the way renamed or swapped
    // for a link changes nothing below.
    const Place place = locate(path, within);
    checkTarget(place, path);
    checkFolderTakesFiles(place, path);
    const int folder = place.folder.get();
    removeStaleIn(folder, place.name);
    struct stat existing = {};
    const bool exists = ::fstatat(folder, place.name.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0;

    // A unique name opened exclusively: O_EXCL fails on any existing name, a symbolic link included, so a
    // link planted there is never followed (O_NOFOLLOW says the same for readers of this code).
    SignalGuard guard; // outlives the temporary: a signal before its removal still removes it
    Temporary temp;
    temp.folder = folder;
    std::random_device random;
    int openError = 0;
    const std::string prefix = temporaryPrefix(place.name);
    for (int attempt = 0; attempt < 100 && temp.fd < 0; ++attempt) {
        std::string name = prefix;
        for (int i = 0; i < randomLength; ++i)
            name += alphabet[random() % (sizeof alphabet - 1)];
        name += ".part";
        // Watched before it exists: a signal right after the open still finds it (one before finds nothing).
        guard.watch(folder, name);
        const int fd = ::openat(folder, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0)
            guard.release(); // the name is someone else's
        if (fd >= 0) {
            temp.fd = fd;
            temp.name = name;
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
                           + shown(place.folderShown) + ")");
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
    // The target may have changed while the body ran (a link or a device put there): judged again, in the same
    // open folder.
    checkTarget(place, path);
    guard.release(); // from here a signal leaves the temporary to removeStaleTemporaries, never the target
    if (::renameat(folder, temp.name.c_str(), folder, place.name.c_str()) != 0) {
        const int error = errno;
        throw RefusedError("cannot write " + shown(path) + ": " + reason(error) + " (renaming "
                           + shown(joined(place.folderShown, temp.name)) + " over it)");
    }
    temp.renamed = true; // ~Temporary closes it (the data were fsync'ed; the lock goes with the descriptor)
    return buffer.written();
}

} // namespace poslab::core
