// SPDX-License-Identifier: MIT
#include "app/atomicwrite.h"

#include "core/errors.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <random>
#include <streambuf>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace poslab::app {

namespace {

std::string reason(int error)
{
    return error != 0 ? std::string(std::strerror(error)) : std::string("the stream reported an error");
}

/// A stream buffer over a file descriptor that keeps the errno of the first failed write (std::ofstream
/// forgets it, which is how "cannot write r.json: Success" came about).
class FdBuffer : public std::streambuf {
public:
    explicit FdBuffer(int fd) : m_fd(fd) { setp(m_buffer.data(), m_buffer.data() + m_buffer.size()); }
    int error() const { return m_error; }

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
            n -= std::size_t(done);
        }
        return true;
    }

    int m_fd;
    int m_error = 0;
    std::array<char, 1 << 16> m_buffer{};
};

/// Removes the temporary unless it was renamed into place, and closes its descriptor.
struct Temporary {
    std::string path;
    int fd = -1;
    bool renamed = false;
    ~Temporary()
    {
        if (fd >= 0)
            ::close(fd);
        if (!renamed && !path.empty())
            ::unlink(path.c_str());
    }
};

void throwWriteError(const std::string& path, int error, const char* after)
{
    throw core::RefusedError("writing " + path + " failed: " + reason(error) + after);
}

void writeInPlace(const std::string& path, const std::function<void(std::ostream&)>& body)
{
    Temporary file; // path left empty: nothing to remove
    file.fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (file.fd < 0) {
        const int error = errno;
        throw core::InputError("cannot write " + path + ": " + reason(error));
    }
    FdBuffer buffer(file.fd);
    std::ostream stream(&buffer);
    body(stream);
    stream.flush();
    if (!stream)
        throwWriteError(path, buffer.error(), "");
    const int fd = file.fd;
    file.fd = -1;
    if (::close(fd) != 0 && errno != EINTR)
        throwWriteError(path, errno, "");
}

} // namespace

void writeAtomically(const std::string& path, const std::function<void(std::ostream&)>& body)
{
    namespace fs = std::filesystem;
    const fs::path target(path);
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        // Name the part of the path that is wrong: a file where a folder should be, or the missing folder.
        for (fs::path p = dir; !p.empty(); p = p.parent_path()) {
            if (fs::exists(p, ec) && !fs::is_directory(p, ec))
                throw core::InputError("cannot write " + path + ": " + p.string() + " is a file, not a folder");
            if (p == p.parent_path())
                break;
        }
        throw core::InputError("cannot write " + path + ": folder " + dir.string() + " does not exist");
    }
    if (fs::is_directory(target, ec))
        throw core::InputError("cannot write " + path + ": it is a folder");
    // A device, pipe or socket (/dev/null, /dev/stdout, a FIFO) is written in place: renaming a file over it
    // would replace /dev/null itself for root.
    struct stat existing {};
    const bool exists = ::stat(path.c_str(), &existing) == 0;
    if (exists && !S_ISREG(existing.st_mode)) {
        writeInPlace(path, body);
        return;
    }

    // A unique name opened exclusively: O_EXCL fails on any existing name, a symbolic link included, so a
    // link planted there is never followed (O_NOFOLLOW says the same for readers of this code).
    Temporary temp;
    std::random_device random;
    static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    int openError = 0;
    for (int attempt = 0; attempt < 100 && temp.fd < 0; ++attempt) {
        std::string name = "." + target.filename().string() + ".";
        for (int i = 0; i < 12; ++i)
            name += alphabet[random() % (sizeof alphabet - 1)];
        name += ".part";
        const std::string candidate = (dir / name).string();
        const int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0) {
            temp.fd = fd;
            temp.path = candidate;
        } else if (errno != EEXIST) {
            openError = errno;
            break;
        } else {
            openError = EEXIST;
        }
    }
    if (temp.fd < 0)
        throw core::InputError("cannot write " + path + ": " + reason(openError) + " (creating a file in folder "
                               + dir.string() + ")");
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
    const int fd = temp.fd;
    temp.fd = -1;
    if (::close(fd) != 0 && errno != EINTR)
        throwWriteError(path, errno, unchanged);
    if (::rename(temp.path.c_str(), path.c_str()) != 0) {
        const int error = errno;
        throw core::RefusedError("cannot write " + path + ": " + reason(error) + " (renaming " + temp.path
                                 + " over it)");
    }
    temp.renamed = true;
}

} // namespace poslab::app
