// SPDX-License-Identifier: MIT
// Fuzz target: sessions and share strings (ui/state/session.h). Input that reads as a share string or poslab: link
// goes through decodeShareText; anything else is written to a session file and read by readSessionFile (the
// path of File > Open, `poslab FILE.poslab` and --state). A state object either way goes to
// WorkbenchState::fromJson (which refuses with a message or loads), and a loaded state must survive its own
// round trips: toJson -> fromJson, and the share string of it decoding back to the same state.
#include "ui/state/session.h"
#include "ui/state/workbenchstate.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QJsonObject>
#include <QString>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

namespace {
QString sessionPath()
{
    static const QString path = [] {
        char name[] = "/tmp/poslab-fuzz-state-XXXXXX";
        const int fd = mkstemp(name);
        if (fd < 0)
            std::abort();
        close(fd);
        static std::string made = name;
        std::atexit([] { unlink(made.c_str()); }); // libFuzzer ends a timed run with exit()
        return QString::fromLocal8Bit(name);
    }();
    return path;
}

[[noreturn]] void fail(const char* what, const QString& detail)
{
    std::fprintf(stderr, "%s: %s\n", what, qPrintable(detail));
    std::abort();
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArray bytes(reinterpret_cast<const char*>(data), qsizetype(size));
    QJsonObject json;
    QString why;
    const QString text = QString::fromUtf8(bytes);
    if (poslab::ui::isShareText(text)) {
        why = poslab::ui::decodeShareText(text, &json);
    } else {
        QFile file(sessionPath());
        if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size())
            std::abort();
        file.close();
        why = poslab::ui::readSessionFile(sessionPath(), &json);
    }
    if (!why.isEmpty()) {
        if (why.contains(QLatin1Char('\n')))
            fail("a message of more than one line", why);
        return 0;
    }
    poslab::ui::WorkbenchState state;
    why = state.fromJson(json);
    if (!why.isEmpty())
        return 0;
    const QJsonObject saved = state.toJson();
    poslab::ui::WorkbenchState again;
    why = again.fromJson(saved);
    if (!why.isEmpty())
        fail("a state written by toJson that fromJson refuses", why);
    if (again.toJson() != saved)
        fail("toJson -> fromJson -> toJson changed the state", QString());
    QJsonObject shared;
    why = poslab::ui::decodeShareText(poslab::ui::shareString(state), &shared);
    if (!why.isEmpty())
        fail("a share string of a loaded state that does not decode", why);
    poslab::ui::WorkbenchState fromShare;
    why = fromShare.fromJson(shared);
    if (!why.isEmpty())
        fail("a share string of a loaded state that fromJson refuses", why);
    if (fromShare.toJson() != saved)
        fail("the share string of a state does not give the same state", QString());
    (void)poslab::ui::mergeSession(json, saved, QJsonObject());
    return 0;
}
