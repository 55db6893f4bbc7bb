// SPDX-License-Identifier: MIT
#include "app/batchfile.h"

#include "core/errors.h"

#include <QJsonDocument>
#include <QJsonParseError>
#include <QJsonValue>
#include <QStringList>

#include <filesystem>

namespace poslab::app {

using core::InputError;

namespace {

/// The JSON type of @p v for messages ("an object"), so that a wrong type is named rather than read as 0.
std::string typeOf(const QJsonValue& v)
{
    switch (v.type()) {
    case QJsonValue::Null: return "null";
    case QJsonValue::Bool: return "true/false";
    case QJsonValue::Double: return "a number";
    case QJsonValue::String: return "a string";
    case QJsonValue::Array: return "a list";
    case QJsonValue::Object: return "an object";
    default: return "nothing";
    }
}

} // namespace

BatchFile parseBatchFile(const QByteArray& bytes, const std::string& file)
{
    QJsonParseError pe;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &pe);
    if (doc.isNull())
        throw InputError("batch file " + file + " is not JSON: " + pe.errorString().toStdString() + " at byte "
                         + std::to_string(pe.offset));
    QJsonArray figures;
    QJsonObject defaults;
    bool allowOutside = false;
    if (doc.isObject()) {
        const QJsonValue outside = doc.object().value(QStringLiteral("allow_outside"));
        if (!outside.isUndefined() && !outside.isBool())
            throw InputError("batch file " + file + ": \"allow_outside\" must be true or false");
        allowOutside = outside.toBool(false);
    }
    if (doc.isArray()) {
        figures = doc.array();
    } else {
        figures = doc.object().value(QStringLiteral("figures")).toArray();
        defaults = doc.object().value(QStringLiteral("defaults")).toObject();
        if (!doc.object().contains(QStringLiteral("figures")))
            throw InputError("batch file " + file + " needs a \"figures\" list (or is a list itself)");
    }
    if (figures.isEmpty())
        throw InputError("batch file " + file + " lists no figures");
    return {figures, defaults, allowOutside};
}

QJsonObject batchEntry(const BatchFile& batch, qsizetype index)
{
    const QJsonObject own = batch.figures.at(index).toObject();
    // Defaults hold for the entries they apply to: a deck's "dpi" or "frames" is not an error on its CSV or PNG
    // entries (an entry's own such key is refused by export's rules).
    const QString output
        = own.value(QStringLiteral("output"))
              .toString(
                  own.value(QStringLiteral("o")).toString(batch.defaults.value(QStringLiteral("output")).toString()));
    const QString ext = output.section(QLatin1Char('.'), -1).toLower();
    const bool gif = ext == QLatin1String("gif");
    const bool figure
        = gif || ext == QLatin1String("png") || ext == QLatin1String("svg") || ext == QLatin1String("pdf");
    static const QStringList gifOnly = {"frames", "fps", "loop", "animate", "from", "to", "float_colour_scale"};
    static const QStringList figureOnly = {"dpi", "title", "size", "theme", "font_scale", "colormap"};
    QJsonObject entry;
    for (auto it = batch.defaults.begin(); it != batch.defaults.end(); ++it)
        if (!(gifOnly.contains(it.key()) && !gif) && !(figureOnly.contains(it.key()) && !figure))
            entry.insert(it.key(), it.value());
    for (auto it = own.begin(); it != own.end(); ++it)
        entry.insert(it.key(), it.value());
    return entry;
}

std::string outsideDeck(const std::string& deckFolder, const std::string& output)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    // weakly_canonical resolves the links of the part that exists (a link as the last name too) and cleans
    // the rest as text: where the write would really land.
    const fs::path folder = fs::weakly_canonical(fs::path(deckFolder), ec);
    const fs::path given = fs::path(output).is_absolute() ? fs::path(output) : folder / output;
    const fs::path lexical = given.lexically_normal();
    fs::path resolved = fs::weakly_canonical(given, ec);
    if (ec)
        resolved = lexical;
    const fs::path relative = resolved.lexically_relative(folder);
    if (!relative.empty() && *relative.begin() != "..")
        return {};
    const std::string viaLink
        = lexical != resolved ? " (" + output + " leads there through a symbolic link)" : std::string();
    const std::string text = resolved.string();
    return "output " + text + viaLink + " is outside the batch file's folder " + folder.string()
        + "; add \"allow_outside\": true to the batch file to write there";
}

/// A batch entry's JSON object as command-line arguments ("font_scale": 2 -> --font-scale 2).
std::vector<std::string> entryArguments(const QJsonObject& entry)
{
    std::vector<std::string> args;
    if (entry.contains(QStringLiteral("view")))
        args.push_back(entry.value(QStringLiteral("view")).toString().toStdString());
    for (auto it = entry.begin(); it != entry.end(); ++it) {
        const QString key = it.key();
        const QJsonValue v = it.value();
        if (key == QLatin1String("view"))
            continue;
        if (key == QLatin1String("state") && v.isObject()) { // a batch entry is a state plus an output
            args.push_back("--state");
            args.push_back(QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact).toStdString());
            continue;
        }
        if (key == QLatin1String("view_set")) {
            if (!v.isObject())
                throw InputError("\"view_set\" must be an object {\"NAME\": VALUE}");
            const QJsonObject sets = v.toObject();
            for (auto s = sets.begin(); s != sets.end(); ++s) {
                const QJsonValue sv = s.value();
                if (!sv.isString() && !sv.isBool() && !sv.isDouble())
                    throw InputError("\"view_set\": \"" + s.key().toStdString()
                                     + "\" must be a number, a string or true/false, got " + typeOf(sv));
                const QString text = sv.isString() ? sv.toString()
                    : sv.isBool()                  ? (sv.toBool() ? QStringLiteral("true") : QStringLiteral("false"))
                                                   : QString::number(sv.toDouble(), 'g', 17);
                args.push_back("--view-set");
                args.push_back((s.key() + QLatin1Char('=') + text).toStdString());
            }
            continue;
        }
        if (key == QLatin1String("set")) {
            if (v.isObject()) {
                const QJsonObject sets = v.toObject();
                for (auto s = sets.begin(); s != sets.end(); ++s) {
                    const QJsonValue sv = s.value();
                    // An object or null used to become 0 ("rope_theta = 0 is out of range").
                    if (!sv.isString() && !sv.isBool() && !sv.isDouble() && !sv.isArray())
                        throw InputError("\"set\": \"" + s.key().toStdString()
                                         + "\" must be a number, a string, true/false or a list of numbers, got "
                                         + typeOf(sv));
                    QString text = sv.isString() ? sv.toString()
                        : sv.isBool()            ? (sv.toBool() ? QStringLiteral("true") : QStringLiteral("false"))
                        : sv.isArray()           ? QString()
                                                 : QString::number(sv.toDouble(), 'g', 17);
                    if (sv.isArray()) {
                        QStringList parts;
                        for (const QJsonValue& x : sv.toArray()) {
                            if (!x.isDouble())
                                throw InputError("\"set\": \"" + s.key().toStdString()
                                                 + "\" must be a list of numbers, got " + typeOf(x) + " in it");
                            parts << QString::number(x.toDouble(), 'g', 17);
                        }
                        text = parts.join(QLatin1Char(','));
                    }
                    args.push_back("--set");
                    args.push_back((s.key() + QLatin1Char('=') + text).toStdString());
                }
            } else if (v.isArray()) {
                for (const QJsonValue& x : v.toArray()) {
                    if (!x.isString()) // [5] used to say "--set '' must be KEY=VALUE"
                        throw InputError("\"set\" as a list holds \"KEY=VALUE\" strings, got " + typeOf(x));
                    args.push_back("--set");
                    args.push_back(x.toString().toStdString());
                }
            } else {
                throw InputError("\"set\" must be an object {\"KEY\": VALUE} or a list of \"KEY=VALUE\"");
            }
            continue;
        }
        const std::string option = key == QLatin1String("output") || key == QLatin1String("o")
            ? std::string("-o")
            : "--" + QString(key).replace(QLatin1Char('_'), QLatin1Char('-')).toStdString();
        if (v.isBool()) {
            if (v.toBool())
                args.push_back(option);
            continue;
        }
        args.push_back(option);
        if (v.isString())
            args.push_back(v.toString().toStdString());
        else if (v.isDouble())
            args.push_back(QString::number(v.toDouble(), 'g', 17).toStdString());
        else
            throw InputError("\"" + key.toStdString() + "\" must be a string, number or true/false");
    }
    return args;
}

} // namespace poslab::app
