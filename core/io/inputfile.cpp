// SPDX-License-Identifier: MIT
#include "core/io/inputfile.h"

#include "core/errors.h"
#include "core/limits.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace poslab::core {

namespace {

/// Closes a descriptor on every way out.
struct Descriptor {
    int fd = -1;
    ~Descriptor()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

const char* notAFile(mode_t mode)
{
    if (S_ISDIR(mode))
        return "it is a folder, not a file";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "it is a device, not a file";
    if (S_ISSOCK(mode))
        return "it is a socket, not a file";
    return nullptr; // a regular file or a FIFO
}

} // namespace

std::string readInputFile(const std::string& path, std::uint64_t maxBytes, const std::string& what,
                          const std::string& hint)
{
    const std::string named = what.empty() ? path : what + " " + path;
    auto fail = [&](const std::string& why) { throw InputError("cannot read " + named + ": " + why); };
    auto tooLarge = [&]() {
        constexpr std::uint64_t mib = std::uint64_t(1) << 20;
        const std::string bound
            = maxBytes % mib == 0 ? std::to_string(maxBytes / mib) + " MiB" : formatBytes(double(maxBytes));
        throw InputError(named + " is larger than " + bound + (hint.empty() ? "" : "; " + hint));
    };
    if (path.empty())
        throw InputError("cannot read " + (what.empty() ? std::string("a file") : what) + ": no file name given");
    if (path.find('\0') != std::string::npos)
        fail("the name holds U+0000");
    // Judged before opening: opening a device can itself do something (a tape rewinds, a terminal waits).
    struct stat st = {};
    if (::stat(path.c_str(), &st) != 0)
        fail(std::strerror(errno));
    if (const char* why = notAFile(st.st_mode))
        fail(why);
    if (S_ISREG(st.st_mode) && std::uint64_t(st.st_size) > maxBytes)
        tooLarge();
    Descriptor file;
    file.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (file.fd < 0)
        fail(std::strerror(errno));
    // The name may have been replaced between stat and open: the opened file is judged again.
    if (::fstat(file.fd, &st) != 0)
        fail(std::strerror(errno));
    if (const char* why = notAFile(st.st_mode))
        fail(why);
    std::string bytes;
    if (S_ISREG(st.st_mode))
        bytes.reserve(std::size_t(std::min<std::uint64_t>(std::uint64_t(st.st_size), maxBytes)));
    char block[1 << 16];
    for (;;) {
        const ssize_t n = ::read(file.fd, block, sizeof block);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            fail(std::strerror(errno));
        if (n == 0)
            break;
        if (bytes.size() + std::uint64_t(n) > maxBytes)
            tooLarge(); // a pipe (or a file that grew): one block past the bound is enough to tell
        bytes.append(block, std::size_t(n));
    }
    return bytes;
}

} // namespace poslab::core
