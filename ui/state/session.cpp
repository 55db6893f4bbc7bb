// SPDX-License-Identifier: MIT
#include "ui/state/session.h"

#include "ui/state/workbenchstate.h"

#include "core/io/inputfile.h"
#include "core/io/outputfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QtEndian>

#include <cctype>
#include <ostream>

#include <zlib.h>

namespace poslab::ui {
namespace {

const QString sharePrefix = QStringLiteral("PL2.");
const QString linkPrefix = QStringLiteral("poslab:");

QString stripLink(QString text)
{
    text = text.trimmed();
    if (text.startsWith(linkPrefix, Qt::CaseInsensitive)) {
        text = text.mid(linkPrefix.size());
        while (text.startsWith(QLatin1Char('/'))) // poslab://PL2... as some programs write links
            text = text.mid(1);
    }
    return text;
}

QString parseObject(const QByteArray& bytes, const QString& what, QJsonObject* out)
{
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &pe);
    if (pe.error != QJsonParseError::NoError)
        return QStringLiteral("%1 is not JSON: %2 at byte %3").arg(what, pe.errorString()).arg(pe.offset);
    if (!doc.isObject())
        return QStringLiteral("%1 is not a JSON object").arg(what);
    *out = doc.object();
    return {};
}

} // namespace

QString shareString(const WorkbenchState& state, const QJsonObject& layout)
{
    QJsonObject object = state.toJson(true);
    if (!layout.isEmpty())
        object.insert(QStringLiteral("layout"), layout);
    const QByteArray json = QJsonDocument(object).toJson(QJsonDocument::Compact);
    return sharePrefix
        + QString::fromLatin1(
               qCompress(json, 9).toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals));
}

QString shareLink(const WorkbenchState& state, const QJsonObject& layout)
{
    return linkPrefix + shareString(state, layout);
}

bool isShareText(const QString& text)
{
    const QString t = text.trimmed();
    // PL2. today; PLn. of another version is still recognised, to be refused by name.
    return t.startsWith(linkPrefix, Qt::CaseInsensitive)
        || (t.size() > 4 && t.startsWith(QLatin1String("PL")) && t.at(2).isDigit() && t.at(3) == QLatin1Char('.'));
}

QString decodeShareText(const QString& text, QJsonObject* state)
{
    const QString body = stripLink(text);
    if (!body.startsWith(sharePrefix)) {
        if (body.size() > 3 && body.startsWith(QLatin1String("PL")) && body.at(3) == QLatin1Char('.'))
            return QStringLiteral("share string version %1 is not known to this PosLab (it reads PL2)")
                .arg(body.mid(2, 1));
        return QStringLiteral("not a PosLab share string (it starts with PL2.)");
    }
    // Checked as text, so the message names the character given (not toLatin1's '?'), and one that does not
    // print (a newline, a tab) by its code point, keeping the message on one line.
    const QString payloadText = body.mid(sharePrefix.size());
    for (const QChar c : payloadText) {
        const char16_t u = c.unicode();
        if (!(u < 128 && (std::isalnum(int(u)) || u == u'-' || u == u'_' || u == u'=')))
            return QStringLiteral("share string has a character that is not base64url: %1")
                .arg(c.isPrint() && !c.isSpace() && !c.isSurrogate()
                         ? QLatin1Char('\'') + c + QLatin1Char('\'')
                         : QStringLiteral("U+%1").arg(int(u), 4, 16, QLatin1Char('0')).toUpper());
    }
    const QByteArray payload = payloadText.toLatin1();
    const auto decoded = QByteArray::fromBase64Encoding(
        payload, QByteArray::Base64UrlEncoding | QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return QStringLiteral("share string is not valid base64url (cut short when copied?)");
    const QByteArray& packed = *decoded;
    // qCompress's first four bytes are the length of the data (big-endian): checked before qUncompress
    // allocates it, so that a crafted string cannot ask for gigabytes.
    if (packed.size() < 5)
        return QStringLiteral("share string is too short (cut short when copied?)");
    const quint32 length = qFromBigEndian<quint32>(packed.constData());
    if (length == 0 || length > quint32(maxShareBytes))
        return QStringLiteral("share string claims %1 bytes of state; allowed: 1 to %2").arg(length).arg(maxShareBytes);
    // zlib itself rather than qUncompress, which prints "qUncompress: Input data is corrupted" on stderr before
    // our one line; the output buffer is the claimed length, and a stream that gives more or less is refused.
    QByteArray json(qsizetype(length), Qt::Uninitialized);
    uLongf produced = uLongf(length);
    const int status = ::uncompress(reinterpret_cast<Bytef*>(json.data()), &produced,
                                    reinterpret_cast<const Bytef*>(packed.constData()) + 4, uLong(packed.size() - 4));
    if (status != Z_OK || produced != uLongf(length))
        return QStringLiteral("share string does not decompress (cut short when copied?)");
    return parseObject(json, QStringLiteral("share string"), state);
}

namespace {

void collectTableFiles(const QJsonObject& o, int depth, QStringList* files)
{
    if (depth > 8) // a state is 3 deep (compare -> state -> spatial -> params); a deeper one names nothing
        return;
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (it.key() == QLatin1String("table_file") && it.value().isString() && !it.value().toString().isEmpty()
            && !files->contains(it.value().toString()))
            files->append(it.value().toString());
        else if (it.value().isObject())
            collectTableFiles(it.value().toObject(), depth + 1, files);
    }
}

} // namespace

QStringList tableFilesNamed(const QJsonObject& state)
{
    QStringList files;
    collectTableFiles(state, 0, &files);
    return files;
}

QString readSessionFile(const QString& path, QJsonObject* json)
{
    // The one bounded reader: a pipe or a device reports size 0, so the size alone cannot be trusted.
    std::string bytes;
    try {
        bytes = core::readInputFile(path.toStdString(), std::uint64_t(maxStateFileBytes), std::string(),
                                    "a session is a few kilobytes");
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return parseObject(QByteArray(bytes.data(), qsizetype(bytes.size())), path, json);
}

QString readStateSource(const QString& input, const QString& baseDir, QJsonObject* state, QString* label)
{
    const QString text = input.trimmed();
    if (text.isEmpty())
        return QStringLiteral("empty state: give a session file, a share string or a poslab: link");
    if (isShareText(text)) {
        if (label)
            *label = QStringLiteral("share string");
        return decodeShareText(text, state);
    }
    if (text.startsWith(QLatin1Char('{'))) {
        if (label)
            *label = QStringLiteral("inline state");
        if (text.size() > maxStateFileBytes)
            return QStringLiteral("inline state is larger than %1 MiB").arg(maxStateFileBytes >> 20);
        return parseObject(text.toUtf8(), QStringLiteral("inline state"), state);
    }
    const QString path = QDir::isAbsolutePath(text) || baseDir.isEmpty() ? text : QDir(baseDir).filePath(text);
    if (label)
        *label = path;
    if (!QFileInfo::exists(path))
        return QStringLiteral("%1 does not exist (a state is a session file, a share string PL2.... or a poslab: link)")
            .arg(path);
    return readSessionFile(path, state);
}

QJsonObject mergeSession(const QJsonObject& kept, const QJsonObject& state, const QJsonObject& layout)
{
    QJsonObject out = kept;
    // Keys this version writes: replaced or removed, never left over from the file.
    for (const char* key : {"version", "scheme", "params", "dim", "positions", "cursor", "model"})
        out.remove(QLatin1String(key));
    for (auto it = state.begin(); it != state.end(); ++it) {
        if (it.key() == QLatin1String("view")) {
            QJsonObject view = kept.value(QLatin1String("view")).toObject();
            const QJsonObject now = it.value().toObject();
            for (auto v = now.begin(); v != now.end(); ++v)
                view.insert(v.key(), v.value());
            out.insert(it.key(), view);
        } else {
            out.insert(it.key(), it.value());
        }
    }
    QJsonObject lay = kept.value(QLatin1String("layout")).toObject();
    for (auto it = layout.begin(); it != layout.end(); ++it)
        lay.insert(it.key(), it.value());
    if (!lay.isEmpty())
        out.insert(QStringLiteral("layout"), lay);
    out.insert(QStringLiteral("format"), QLatin1String(sessionFormat));
    return out;
}

QString writeSessionFile(const QString& path, const QJsonObject& session)
{
    // core's one writer: atomic, and the same rule as every export for links, devices and read-only files.
    const QByteArray bytes = QJsonDocument(session).toJson(QJsonDocument::Indented);
    try {
        core::writeOutputFile(path.toStdString(),
                              [&](std::ostream& out) { out.write(bytes.constData(), std::streamsize(bytes.size())); });
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace poslab::ui
