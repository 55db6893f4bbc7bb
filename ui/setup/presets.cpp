// SPDX-License-Identifier: MIT
#include "ui/setup/presets.h"

#include "core/attention.h"
#include "core/errors.h"
#include "core/spatial.h"
#include "ui/setup/modelconfig.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>

#include <algorithm>
#include <cmath>

namespace poslab::ui {

namespace {

using core::InputError;

// The numbered fields of a preset, in the order the listing and the state give them.
constexpr const char* numberFields[] = {"head_dim", "model_dim", "heads", "layers", "trained_length", "context_length"};

struct Store {
    QList<QJsonObject> presets;
    QStringList problems;
};

const Store& store()
{
    static const Store s = [] {
        Store st;
        const QDir dir(QStringLiteral(":/presets"));
        QStringList files = dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
        for (const QString& name : files) {
            QFile f(dir.filePath(name));
            if (!f.open(QIODevice::ReadOnly)) {
                st.problems << name + QStringLiteral(": cannot be read");
                continue;
            }
            QJsonParseError pe;
            const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &pe);
            if (!doc.isObject()) {
                st.problems << name + QStringLiteral(": not a JSON object (%1)").arg(pe.errorString());
                continue;
            }
            const QJsonObject o = doc.object();
            if (o.value("id").toString() + QStringLiteral(".json") != name)
                st.problems << name
                        + QStringLiteral(": its id '%1' differs from the file name").arg(o.value("id").toString());
            st.presets << o;
        }
        std::sort(st.presets.begin(), st.presets.end(), [](const QJsonObject& a, const QJsonObject& b) {
            return a.value("id").toString() < b.value("id").toString();
        });
        return st;
    }();
    return s;
}

std::optional<int> fieldNumber(const QJsonObject& preset, const char* field)
{
    const QJsonValue v = preset.value(QLatin1String(field));
    if (!v.isObject())
        return std::nullopt;
    const double x = v.toObject().value("value").toDouble(-1);
    if (x < 1 || x > 2147483647.0 || x != std::floor(x))
        return std::nullopt;
    return int(x);
}

} // namespace

const QList<QJsonObject>& presets()
{
    return store().presets;
}

const QStringList& presetLoadProblems()
{
    return store().problems;
}

QStringList presetIds()
{
    QStringList ids;
    for (const QJsonObject& p : presets())
        ids << p.value("id").toString();
    return ids;
}

std::optional<QJsonObject> findPreset(const QString& id)
{
    for (const QJsonObject& p : presets())
        if (p.value("id").toString().compare(id, Qt::CaseInsensitive) == 0)
            return p;
    return std::nullopt;
}

QJsonObject presetOrThrow(const std::string& id)
{
    if (auto p = findPreset(QString::fromStdString(id)))
        return *p;
    throw InputError("unknown preset '" + id + "'; presets: " + presetIds().join(QStringLiteral(", ")).toStdString()
                     + " (poslab presets lists them)");
}

namespace {

/// The numbered fields: each {"value": a positive integer, "source": ...}, the dimensions in range.
void checkNumberFields(const QJsonObject& preset, const QString& id, QStringList& problems)
{
    for (const char* field : numberFields) {
        const QJsonValue v = preset.value(QLatin1String(field));
        if (v.isUndefined())
            continue;
        if (!fieldNumber(preset, field))
            problems << QStringLiteral("%1: \"%2\" must be {\"value\": a positive integer, \"source\": ...}")
                            .arg(id, QLatin1String(field));
        else if (v.toObject().value("source").toString().trimmed().isEmpty())
            problems << QStringLiteral("%1: \"%2\" has no source").arg(id, QLatin1String(field));
    }
    if (const auto d = fieldNumber(preset, "head_dim"); d && (*d < 2 || *d > 4096))
        problems << QStringLiteral("%1: head_dim %2 is outside 2 to 4096").arg(id).arg(*d);
    if (const auto d = fieldNumber(preset, "model_dim"); d && (*d < 2 || *d > 65536))
        problems << QStringLiteral("%1: model_dim %2 is outside 2 to 65536").arg(id).arg(*d);
}

/// The grid a vision preset was trained at: grid schemes only, as --grid spells it.
std::optional<core::Grid> checkGrid(const QJsonObject& preset, const QString& id,
                                    const core::SpatialSchemeDescriptor* spatial, QStringList& problems)
{
    const QJsonValue gridValue = preset.value("grid");
    std::optional<core::Grid> grid;
    if (!gridValue.isUndefined()) {
        const QJsonObject g = gridValue.toObject();
        if (!spatial || spatial->input != core::SpatialInput::Grid)
            problems << QStringLiteral("%1: \"grid\" applies to the grid schemes only").arg(id);
        else if (!g.value("value").isString() || g.value("source").toString().trimmed().isEmpty())
            problems << QStringLiteral("%1: \"grid\" must be {\"value\": \"HxW\", \"source\": ...}").arg(id);
        else
            try {
                grid = core::parseGrid(g.value("value").toString().toStdString());
            } catch (const std::exception& e) {
                problems << QStringLiteral("%1: grid: %2").arg(id, QString::fromStdString(e.what()));
            }
    }
    return grid;
}

/// The params entries, each {"value": "text", "source": ...}, as overrides for the scheme's resolver.
core::Overrides checkParams(const QJsonObject& params, const QString& id, QStringList& problems)
{
    core::Overrides overrides;
    for (auto it = params.begin(); it != params.end(); ++it) {
        const QJsonObject entry = it.value().toObject();
        if (!entry.value("value").isString())
            problems
                << QStringLiteral("%1: params.%2 must be {\"value\": \"text\", \"source\": ...}").arg(id, it.key());
        else if (entry.value("source").toString().trimmed().isEmpty())
            problems << QStringLiteral("%1: params.%2 has no source").arg(id, it.key());
        overrides.emplace_back(it.key().toStdString(), entry.value("value").toString().toStdString());
    }
    return overrides;
}

/// The overrides through the scheme's own resolver, at the preset's dimension (and grid, for a spatial scheme).
void checkResolves(const QJsonObject& preset, const QString& id, const core::SchemeDescriptor* scheme,
                   const core::SpatialSchemeDescriptor* spatial, const std::optional<core::Grid>& grid,
                   const core::Overrides& overrides, QStringList& problems)
{
    try {
        if (spatial) {
            // The spatial resolver, at the preset's dimension and grid (a one-token text run for sequences).
            core::SpatialContext ctx;
            ctx.dim = presetState(preset).value("dim").toInt(128);
            ctx.grid = grid.value_or(core::Grid{14, 14});
            ctx.sequence = core::parseSequence("text:1");
            core::resolveSpatialParams(*spatial, overrides, ctx);
        } else {
            core::TableContext ctx;
            ctx.dim = fieldNumber(preset, "head_dim").value_or(128);
            ctx.positions = core::PositionList::range(0, presetState(preset).value("positions").toInt(1024));
            core::resolveParams(*scheme, overrides, ctx); // unknown key, type, range, applies, dimension rules
        }
    } catch (const std::exception& e) {
        problems << QStringLiteral("%1: %2").arg(id, QString::fromStdString(e.what()));
    }
}

/// "unverified": a list naming only fields, the grid or params the preset sets.
void checkUnverified(const QJsonObject& preset, const QString& id, const QJsonObject& params, QStringList& problems)
{
    const QJsonValue unverified = preset.value("unverified");
    if (!unverified.isUndefined() && !unverified.isArray())
        problems << QStringLiteral("%1: \"unverified\" must be a list").arg(id);
    for (const QJsonValue& u : unverified.toArray()) {
        const QString key = u.toString();
        const bool field = std::any_of(std::begin(numberFields), std::end(numberFields),
                                       [&](const char* f) { return key == QLatin1String(f); });
        if (!(field && preset.contains(key)) && !(key == QLatin1String("grid") && preset.contains(key))
            && !params.contains(key))
            problems << QStringLiteral("%1: \"unverified\" names '%2', which the preset does not set").arg(id, key);
    }
}

} // namespace

QStringList validatePreset(const QJsonObject& preset)
{
    QStringList problems;
    const QString id = preset.value("id").toString();
    for (const char* field : {"id", "name", "source", "scheme"})
        if (preset.value(QLatin1String(field)).toString().trimmed().isEmpty())
            problems << QStringLiteral("%1: \"%2\" must be a non-empty string").arg(id, QLatin1String(field));
    const std::string schemeId = preset.value("scheme").toString().toStdString();
    const core::SchemeDescriptor* scheme = core::findScheme(schemeId);
    const core::SpatialSchemeDescriptor* spatial = core::findSpatialScheme(schemeId);
    if (!scheme && !spatial) {
        problems << QStringLiteral("%1: unknown scheme '%2'").arg(id, preset.value("scheme").toString());
        return problems;
    }
    checkNumberFields(preset, id, problems);
    const std::optional<core::Grid> grid = checkGrid(preset, id, spatial, problems);
    if (const auto h = fieldNumber(preset, "heads"); h && *h > core::maxHeads)
        problems << QStringLiteral("%1: heads %2 is over %3").arg(id).arg(*h).arg(core::maxHeads);
    const QJsonValue paramsValue = preset.value("params");
    if (!paramsValue.isUndefined() && !paramsValue.isObject())
        problems << QStringLiteral("%1: \"params\" must be an object").arg(id);
    const QJsonObject params = paramsValue.toObject();
    const core::Overrides overrides = checkParams(params, id, problems);
    checkResolves(preset, id, scheme, spatial, grid, overrides, problems);
    checkUnverified(preset, id, params, problems);
    return problems;
}

QJsonObject presetState(const QJsonObject& preset)
{
    QJsonObject state{{"scheme", preset.value("scheme").toString()}};
    QJsonObject params;
    const QJsonObject p = preset.value("params").toObject();
    for (auto it = p.begin(); it != p.end(); ++it)
        params.insert(it.key(), it.value().toObject().value("value").toString());
    state.insert("params", params);
    // The dimension the scheme reads: a table's vectors have the model's width, a rotation the head's.
    if (const auto d = fieldNumber(preset, "model_dim"))
        state.insert("dim", *d);
    else if (const auto d = fieldNumber(preset, "head_dim"))
        state.insert("dim", *d);
    if (preset.value("grid").isObject())
        state.insert("grid", preset.value("grid").toObject().value("value").toString());
    if (const auto h = fieldNumber(preset, "heads"))
        state.insert("view", QJsonObject{{"heads", *h}});
    // A learned table added to the embeddings has no rows past its length: the views show exactly its positions.
    const core::SchemeDescriptor* scheme = core::findScheme(state.value("scheme").toString().toStdString());
    const bool learnedTable
        = scheme && scheme->application == core::Application::Embedding && scheme->origin == core::Origin::Learned;
    if (const int rows = params.value("max_position_embeddings").toString().toInt(); rows > 0 && learnedTable)
        state.insert("positions", rows);
    QJsonObject model{{"id", preset.value("id").toString()},
                      {"name", preset.value("name").toString()},
                      {"source", preset.value("source").toString()}};
    for (const char* field : {"trained_length", "context_length", "layers"})
        if (const auto n = fieldNumber(preset, field))
            model.insert(QLatin1String(field), *n);
    model.insert("unverified", preset.value("unverified").toArray());
    if (preset.contains("notes"))
        model.insert("notes", preset.value("notes").toString());
    state.insert("model", model);
    return state;
}

StateSetup stateSetup(const QJsonObject& state)
{
    StateSetup s;
    if (!state.value("scheme").isString())
        throw InputError("the model's state names no scheme");
    s.scheme = state.value("scheme").toString().toStdString();
    const QJsonObject params = state.value("params").toObject();
    for (auto it = params.begin(); it != params.end(); ++it) {
        if (!it.value().isString())
            throw InputError("the model's state: params." + it.key().toStdString() + " must be text");
        s.params.emplace_back(it.key().toStdString(), it.value().toString().toStdString());
    }
    if (state.contains("dim"))
        s.dim = state.value("dim").toInt();
    const QJsonObject view = state.value("view").toObject();
    if (view.contains("heads"))
        s.heads = view.value("heads").toInt();
    if (state.contains("grid")) {
        if (!state.value("grid").isString())
            throw InputError("the model's state: grid must be text such as \"14x14\"");
        s.grid = core::parseGrid(state.value("grid").toString().toStdString());
    }
    s.model = state.value("model").toObject();
    return s;
}

std::optional<QJsonObject> modelState(const std::optional<std::string>& preset,
                                      const std::optional<std::string>& configFile, const QString& base,
                                      QStringList* notices)
{
    if (preset && configFile)
        throw InputError("--preset and --config both set a model; give one");
    if (preset)
        return presetState(presetOrThrow(*preset));
    if (configFile) {
        const QString path = base.isEmpty() ? QString::fromStdString(*configFile)
                                            : QDir(base).filePath(QString::fromStdString(*configFile));
        const ModelConfig config = readModelConfig(path);
        if (notices)
            for (const QString& u : config.unmapped)
                *notices << path + QStringLiteral(": ") + u;
        return config.state;
    }
    return std::nullopt;
}

void applyModelSetup(const StateSetup& model, std::string& scheme, bool schemeGiven, core::Overrides& overrides)
{
    const std::string name = model.model.value("name").toString().toStdString();
    if (schemeGiven && scheme != model.scheme)
        throw InputError("--scheme " + scheme + " conflicts with " + (name.empty() ? "the model" : name)
                         + ", which uses scheme " + model.scheme + "; drop --scheme (or use --set to change its keys)");
    scheme = model.scheme;
    // An explicit --set replaces the model's value of that key (the resolver refuses a key given twice).
    core::Overrides merged;
    for (const auto& kv : model.params)
        if (std::none_of(overrides.begin(), overrides.end(), [&](const auto& o) { return o.first == kv.first; }))
            merged.push_back(kv);
    merged.insert(merged.end(), overrides.begin(), overrides.end());
    overrides = std::move(merged);
}

std::string presetsText()
{
    std::string out;
    for (const QJsonObject& p : presets()) {
        const QJsonObject state = presetState(p);
        const QJsonObject model = state.value("model").toObject();
        out += p.value("id").toString().toStdString() + "  " + p.value("name").toString().toStdString() + "\n";
        out += "    scheme: " + p.value("scheme").toString().toStdString();
        if (state.contains("dim"))
            out += (p.contains("model_dim") ? ", dim " : ", head dim ") + std::to_string(state.value("dim").toInt());
        if (state.contains("grid"))
            out += ", grid " + state.value("grid").toString().toStdString();
        if (state.contains("view"))
            out += ", heads " + std::to_string(state.value("view").toObject().value("heads").toInt());
        if (model.contains("layers"))
            out += ", layers " + std::to_string(model.value("layers").toInt());
        if (model.contains("trained_length"))
            out += ", trained " + std::to_string(model.value("trained_length").toInt());
        if (model.contains("context_length"))
            out += ", context " + std::to_string(model.value("context_length").toInt());
        out += "\n";
        const QJsonObject params = state.value("params").toObject();
        if (!params.isEmpty()) {
            out += "   ";
            for (auto it = params.begin(); it != params.end(); ++it) {
                QString v = it.value().toString();
                if (v.size() > 24) // the 48 LongRoPE factors: their count, not the list
                    v = QStringLiteral("[%1 values]").arg(v.count(QLatin1Char(',')) + 1);
                out += " " + it.key().toStdString() + "=" + v.toStdString();
            }
            out += "\n";
        }
        const QJsonArray unverified = p.value("unverified").toArray();
        if (!unverified.isEmpty()) {
            QStringList u;
            for (const QJsonValue& x : unverified)
                u << x.toString();
            out += "    unverified: " + u.join(QStringLiteral(", ")).toStdString() + "\n";
        }
        out += "    source: " + p.value("source").toString().toStdString() + "\n";
    }
    return out;
}

std::string modelConfigReport(const QString& path, bool json)
{
    const ModelConfig c = readModelConfig(path);
    if (json)
        return QJsonDocument(QJsonObject{{"state", c.state},
                                         {"used", QJsonArray::fromStringList(c.used)},
                                         {"unmapped", QJsonArray::fromStringList(c.unmapped)},
                                         {"ignored", QJsonArray::fromStringList(c.ignored)}})
            .toJson(QJsonDocument::Indented)
            .toStdString();
    const QJsonObject state = c.state;
    std::string out = path.toStdString() + "\n    scheme: " + state.value("scheme").toString().toStdString();
    if (state.contains("dim"))
        out += ", head dim " + std::to_string(state.value("dim").toInt());
    if (state.contains("view"))
        out += ", heads " + std::to_string(state.value("view").toObject().value("heads").toInt());
    out += "\n   ";
    const QJsonObject params = state.value("params").toObject();
    for (auto it = params.begin(); it != params.end(); ++it)
        out += " " + it.key().toStdString() + "=" + it.value().toString().toStdString();
    out += "\n    used: " + c.used.join(QStringLiteral(", ")).toStdString() + "\n";
    for (const QString& u : c.unmapped)
        out += "    NOT MAPPED: " + u.toStdString() + "\n";
    out += "    ignored: "
        + (c.ignored.isEmpty() ? std::string("none") : c.ignored.join(QStringLiteral(", ")).toStdString()) + "\n";
    return out;
}

std::string presetsJson()
{
    QJsonArray list;
    for (const QJsonObject& p : presets())
        list.append(QJsonObject{{"id", p.value("id")},
                                {"name", p.value("name")},
                                {"hf_id", p.value("hf_id")},
                                {"scheme", p.value("scheme")},
                                {"state", presetState(p)},
                                {"preset", p}});
    return QJsonDocument(QJsonObject{{"presets", list}}).toJson(QJsonDocument::Indented).toStdString();
}

} // namespace poslab::ui
