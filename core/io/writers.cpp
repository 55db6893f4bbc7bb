// SPDX-License-Identifier: MIT
#include "core/io/writers.h"

#include "core/spatial.h"

#include "core/encodingregistry.h"
#include "core/errors.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace poslab::core {

OutputFormat parseOutputFormat(std::string_view name)
{
    if (name == "json")
        return OutputFormat::Json;
    if (name == "csv")
        return OutputFormat::Csv;
    if (name == "npy")
        return OutputFormat::Npy;
    throw InputError("unknown format '" + std::string(name) + "'; known formats: json, csv, npy");
}

std::string jsonString(std::string_view s)
{
    std::string out = "\"";
    for (char c : s) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        default:
            if ((unsigned char)c < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", c);
                out += buf;
            } else {
                out += c;
            }
        }
    }
    return out + "\"";
}

std::string formatNumber(double v, bool asFloat)
{
    if (!std::isfinite(v))
        return "null";
    char buf[64];
    // Shortest text that reads back to the same value (float or double).
    auto [ptr, ec] = asFloat ? std::to_chars(buf, buf + sizeof buf, float(v)) : std::to_chars(buf, buf + sizeof buf, v);
    if (ec != std::errc())
        return "null";
    return std::string(buf, ptr);
}

namespace {

std::string paramJson(const ParamValue& v)
{
    switch (v.type) {
    case ParamType::Real:
    case ParamType::Integer: return formatNumber(v.number);
    case ParamType::Bool: return v.number != 0.0 ? "true" : "false";
    case ParamType::Choice: return jsonString(v.choice);
    case ParamType::Text: return jsonString(v.text);
    case ParamType::RealList: {
        std::string s = "[";
        for (std::size_t i = 0; i < v.list.size(); ++i) {
            s += (i ? "," : "");
            s += formatNumber(v.list[i]);
        }
        return s + "]";
    }
    }
    return "null";
}

void writeParamsObject(std::ostream& out, const ParamSet& params)
{
    out << '{';
    bool first = true;
    for (const auto& [key, value] : params.values()) {
        out << (first ? "" : ",") << jsonString(key) << ':' << paramJson(value);
        first = false;
    }
    out << '}';
}

} // namespace

void writeJson(std::ostream& out, const ComputeResult& r)
{
    out << "{\"quantity\":" << jsonString(r.quantity) << ",\"scheme\":" << jsonString(r.scheme) << ",\"params\":";
    writeParamsObject(out, r.params);
    out << ",\"shape\":[";
    for (std::size_t i = 0; i < r.shape.size(); ++i)
        out << (i ? "," : "") << r.shape[i];
    out << "],\"axes\":[";
    for (std::size_t i = 0; i < r.axes.size(); ++i)
        out << (i ? "," : "") << jsonString(r.axes[i]);
    out << "]";
    if (!r.columns.empty()) {
        out << ",\"columns\":[";
        for (std::size_t i = 0; i < r.columns.size(); ++i)
            out << (i ? "," : "") << jsonString(r.columns[i]);
        out << "]";
    }
    if (!r.columnLabels.empty()) {
        out << ",\"column_labels\":[";
        for (std::size_t i = 0; i < r.columnLabels.size(); ++i)
            out << (i ? "," : "") << jsonString(r.columnLabels[i]);
        out << "]";
    }
    if (!r.warnings.empty()) {
        out << ",\"warnings\":[";
        for (std::size_t i = 0; i < r.warnings.size(); ++i)
            out << (i ? "," : "") << jsonString(r.warnings[i]);
        out << "]";
    }
    out << ",\"dtype\":" << (r.float32 ? "\"float32\"" : "\"float64\"");
    for (const auto& [name, value] : r.scalars)
        out << ',' << jsonString(name) << ':' << formatNumber(value);
    for (const auto& [name, text] : r.labels)
        out << ',' << jsonString(name) << ':' << jsonString(text);
    out << ",\"data\":[";
    std::string buf;
    for (std::size_t i = 0; i < r.data.size(); ++i) {
        if (i)
            out << ',';
        out << formatNumber(r.data[i], r.float32);
    }
    out << "]}\n";
}

namespace {
// One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break.
std::string csvField(const std::string& text)
{
    if (text.find_first_of(",\"\r\n") == std::string::npos)
        return text;
    std::string q = "\"";
    for (char c : text)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}
} // namespace

void writeCsv(std::ostream& out, const ComputeResult& r)
{
    const std::size_t cols = r.shape.empty() ? 1 : (r.shape.size() == 1 ? 1 : r.shape.back());
    if (!r.columnLabels.empty()) {
        for (std::size_t i = 0; i < r.columnLabels.size(); ++i)
            out << (i ? "," : "") << csvField(r.columnLabels[i]);
        out << '\n';
    }
    for (std::size_t i = 0; i < r.data.size(); ++i) {
        const double v = r.data[i];
        if (std::isfinite(v))
            out << formatNumber(v, r.float32);
        out << ((i + 1) % cols == 0 ? '\n' : ',');
    }
}

void writeNpy(std::ostream& out, const ComputeResult& r)
{
    // NumPy format 1.0: magic, version, little-endian header length, a Python dict literal padded with
    // spaces and ending in '\n' so that magic + length + header is a multiple of 64 bytes.
    // Shape as NumPy prints a tuple: "(7,)", "(7, 16)".
    std::string shape = "(";
    for (std::size_t i = 0; i < r.shape.size(); ++i) {
        if (i)
            shape += ", ";
        shape += std::to_string(r.shape[i]);
    }
    shape += r.shape.size() == 1 ? ",)" : ")";
    std::string header = std::string("{'descr': '") + (r.float32 ? "<f4" : "<f8")
        + "', 'fortran_order': False, 'shape': " + shape + ", }";
    const std::size_t preamble = 6 + 2 + 2;
    std::size_t total = preamble + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    const std::uint16_t len = std::uint16_t(header.size());
    out.write("\x93NUMPY", 6);
    const char version[2] = {1, 0};
    out.write(version, 2);
    const char lenBytes[2] = {char(len & 0xff), char(len >> 8)};
    out.write(lenBytes, 2);
    out.write(header.data(), std::streamsize(header.size()));
    // x86-64 and aarch64 are little-endian; the data are written in native order.
    if (r.float32) {
        std::vector<float> f(r.data.begin(), r.data.end());
        out.write(reinterpret_cast<const char*>(f.data()), std::streamsize(f.size() * sizeof(float)));
    } else {
        out.write(reinterpret_cast<const char*>(r.data.data()), std::streamsize(r.data.size() * sizeof(double)));
    }
}

void write(std::ostream& out, const ComputeResult& result, OutputFormat format)
{
    switch (format) {
    case OutputFormat::Json: writeJson(out, result); return;
    case OutputFormat::Csv: writeCsv(out, result); return;
    case OutputFormat::Npy: writeNpy(out, result); return;
    }
}

namespace {

std::string specJson(const ParamSpec& p)
{
    std::string s = "{\"key\":" + jsonString(p.key) + ",\"type\":" + jsonString(paramTypeName(p.type))
        + ",\"default\":" + paramJson(defaultValue(p)) + ",\"doc\":" + jsonString(p.doc);
    if (p.type == ParamType::Real || p.type == ParamType::Integer || p.type == ParamType::RealList)
        s += ",\"min\":" + formatNumber(p.minimum) + ",\"max\":" + formatNumber(p.maximum)
            + ",\"logarithmic\":" + (p.logarithmic ? "true" : "false");
    if (p.type == ParamType::Text)
        s += ",\"max_length\":" + formatNumber(p.maximum);
    if (p.type == ParamType::Choice) {
        s += ",\"choices\":[";
        for (std::size_t i = 0; i < p.choices.size(); ++i) {
            s += (i ? "," : "");
            s += jsonString(p.choices[i]);
        }
        s += "]";
    }
    if (!p.appliesWhen.empty()) {
        s += ",\"applies_when\":{";
        for (std::size_t i = 0; i < p.appliesWhen.size(); ++i) {
            {
                s += (i ? "," : "");
                s += jsonString(p.appliesWhen[i].key) + ":[";
            }
            for (std::size_t j = 0; j < p.appliesWhen[i].values.size(); ++j) {
                s += (j ? "," : "");
                s += jsonString(p.appliesWhen[i].values[j]);
            }
            s += "]";
        }
        s += "}";
    }
    if (!p.defaultsWhen.empty()) {
        // [{"when":{"rope_type":"llama3"},"default":8}, ...]: the default while that choice holds.
        s += ",\"defaults_when\":[";
        for (std::size_t i = 0; i < p.defaultsWhen.size(); ++i)
            s += std::string(i ? "," : "") + "{\"when\":{" + jsonString(p.defaultsWhen[i].key) + ":"
                + jsonString(p.defaultsWhen[i].value) + "},\"default\":" + paramJson(p.defaultsWhen[i].def) + "}";
        s += "]";
    }
    return s + "}";
}

} // namespace

namespace {
/// One scheme's JSON object; @p input is "grid" or "sequence" for a spatial scheme, empty for a 1-D one.
void schemeJson(std::ostream& out, const SchemeDescriptor& s, const std::vector<Quantity>& q, std::string_view input)
{
    out << "{\"id\":" << jsonString(s.id) << ",\"name\":" << jsonString(s.name)
        << ",\"family\":" << jsonString(s.family) << ",\"axes\":{\"relation\":" << jsonString(relationName(s.relation))
        << ",\"applied_to\":" << jsonString(applicationName(s.application))
        << ",\"origin\":" << jsonString(originName(s.origin)) << "},\"citation\":" << jsonString(s.citation)
        << ",\"year\":" << s.year << ",\"reference\":" << jsonString(s.reference)
        << ",\"formula\":" << jsonString(s.formula) << ",\"summary\":" << jsonString(s.summary);
    if (!input.empty())
        out << ",\"input\":" << jsonString(input);
    if (!s.relativePosition.empty())
        out << ",\"relative_position\":" << jsonString(s.relativePosition);
    if (!s.logitScaleText.empty())
        out << ",\"logit_scale\":" << jsonString(s.logitScaleText);
    out << ",\"quantities\":[";
    for (std::size_t i = 0; i < q.size(); ++i)
        out << (i ? "," : "") << jsonString(quantityName(q[i]));
    out << "],\"params\":[";
    for (std::size_t i = 0; i < s.params.size(); ++i)
        out << (i ? "," : "") << specJson(s.params[i]);
    out << "]}";
}
} // namespace

void writeSchemesJson(std::ostream& out)
{
    out << "[";
    bool first = true;
    for (const auto& s : schemes()) {
        out << (first ? "\n" : ",\n");
        first = false;
        schemeJson(out, s, s.quantities(), {});
    }
    // The grid and sequence schemes (core/spatial.h), each with its "input".
    for (const auto& s : spatialSchemes()) {
        out << ",\n";
        schemeJson(out, s.info, s.quantities(), spatialInputName(s.input));
    }
    out << "\n]\n";
}

namespace {
void schemeText(std::ostream& out, const SchemeDescriptor& s, const std::vector<Quantity>& quantities,
                std::string_view input)
{
    out << s.id << "  " << s.name << "\n";
    out << "    family: " << s.family << "; " << relationName(s.relation) << ", applied to "
        << applicationName(s.application) << ", " << originName(s.origin) << "\n";
    if (!input.empty())
        out << "    input: " << input
            << (input == "grid" ? " (--grid HxW)" : " (--sequence text:N,image:TxHxW,video:TxHxW,...)") << "\n";
    out << "    " << s.formula << "\n";
    if (!s.relativePosition.empty())
        out << "    relative position = " << s.relativePosition << "\n";
    if (!s.logitScaleText.empty())
        out << "    logit scale on q.k = " << s.logitScaleText << "\n";
    out << "    cite: " << s.citation << "\n";
    out << "    code: " << s.reference << "\n";
    out << "    quantities:";
    for (Quantity q : quantities)
        out << ' ' << quantityName(q);
    out << "\n";
    for (const auto& p : s.params) {
        out << "    --set " << p.key << "=" << defaultValue(p).toString() << "   (" << paramTypeName(p.type);
        if (p.type == ParamType::Choice) {
            out << ":";
            for (const auto& c : p.choices)
                out << ' ' << c;
        } else if (p.type == ParamType::Text) {
            out << ", at most " << formatNumber(p.maximum) << " bytes";
        } else if (p.type != ParamType::Bool) {
            out << " in [" << formatNumber(p.minimum) << ", " << formatNumber(p.maximum) << "]";
        }
        out << ")";
        for (const auto& d : p.defaultsWhen)
            out << " [" << d.def.toString() << " when " << d.key << "=" << d.value << "]";
        if (!p.appliesWhen.empty()) {
            out << " when " << p.appliesWhen[0].key << " in {";
            for (std::size_t j = 0; j < p.appliesWhen[0].values.size(); ++j)
                out << (j ? "," : "") << (p.appliesWhen[0].values[j].empty() ? "\"\"" : p.appliesWhen[0].values[j]);
            out << "}";
        }
        out << "\n        " << p.doc << "\n";
    }
    out << "\n";
}
} // namespace

void writeSchemesText(std::ostream& out)
{
    for (const auto& s : schemes())
        schemeText(out, s, s.quantities(), {});
    for (const auto& s : spatialSchemes())
        schemeText(out, s.info, s.quantities(), spatialInputName(s.input));
}

} // namespace poslab::core
