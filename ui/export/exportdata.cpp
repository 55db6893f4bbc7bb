// SPDX-License-Identifier: MIT
// The numbers behind a view: CSV (with a header and row labels), JSON and NPY through core's writers.
#include "ui/export/exportparts.h"

#include "core/compute.h"
#include "core/encodingregistry.h"
#include "core/errors.h"
#include "core/io/writers.h"
#include "ui/figures/computation.h"
#include "ui/state/workbenchstate.h"
#include "ui/views/view.h"
#include "ui/views/viewlist.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <ostream>
#include <sstream>
#include <streambuf>

namespace poslab::exporting {

using detail::failed;

namespace {

/// Passes core's CSV through to @p next with a label in front of every line (the row's index along each row
/// axis), without holding the body: a table of a million rows streams.
class RowLabelBuffer : public std::streambuf {
public:
    RowLabelBuffer(std::streambuf* next, std::function<std::string(std::size_t)> label)
        : m_next(next)
        , m_label(std::move(label))
    { }

protected:
    std::streamsize xsputn(const char* s, std::streamsize n) override
    {
        std::streamsize done = 0;
        while (done < n) {
            if (m_lineStart) {
                const std::string label = m_label(m_row) + ",";
                if (m_next->sputn(label.data(), std::streamsize(label.size())) != std::streamsize(label.size()))
                    return done;
                m_lineStart = false;
            }
            const char* end = static_cast<const char*>(std::memchr(s + done, '\n', std::size_t(n - done)));
            const std::streamsize len = end ? (end - (s + done)) + 1 : n - done;
            if (m_next->sputn(s + done, len) != len)
                return done;
            done += len;
            if (end) {
                m_lineStart = true;
                ++m_row;
            }
        }
        return done;
    }
    int overflow(int c) override
    {
        if (c == traits_type::eof())
            return traits_type::not_eof(c);
        const char ch = char(c);
        return xsputn(&ch, 1) == 1 ? c : traits_type::eof();
    }
    int sync() override { return m_next->pubsync(); }

private:
    std::streambuf* m_next;
    std::function<std::string(std::size_t)> m_label;
    bool m_lineStart = true;
    std::size_t m_row = 0;
};

/// core's CSV (numbers only, one line per row of the last axis) with a header row naming every column, and
/// for tables one leading column per row axis (position; head and query) so that every row says what it is.
/// The views show positions 0 to N-1, so the row index along each axis is the position itself.
void writeCsvWithHeader(std::ostream& os, const core::ComputeResult& data)
{
    auto quoted = [](const std::string& s) {
        if (s.find_first_of(",\"\n") == std::string::npos)
            return s;
        std::string q = "\"";
        for (char c : s)
            q += c == '"' ? std::string("\"\"") : std::string(1, c);
        return q + "\"";
    };
    std::string header;
    if (!data.columns.empty()) { // the decay curves: the first column is already the distance
        for (std::size_t c = 0; c < data.columns.size(); ++c)
            header += (c ? "," : "") + quoted(data.columns[c]);
        os << header << "\n";
        core::write(os, data, core::OutputFormat::Csv);
        return;
    }
    const std::size_t rank = data.shape.size();
    const std::size_t rowAxes = rank >= 2 ? rank - 1 : 1;
    auto axisName = [&](std::size_t i) { return i < data.axes.size() ? data.axes[i] : "axis " + std::to_string(i); };
    for (std::size_t i = 0; i < rowAxes; ++i)
        header += (i ? "," : "") + quoted(axisName(i));
    if (rank >= 2) {
        for (std::size_t j = 0; j < data.shape.back(); ++j)
            header += "," + quoted(axisName(rank - 1) + " " + std::to_string(j));
    } else {
        header += ",value";
    }
    os << header << "\n";
    RowLabelBuffer labels(os.rdbuf(), [&](std::size_t row) {
        std::string label;
        std::size_t rest = row;
        for (std::size_t i = rowAxes; i-- > 0;) {
            const std::size_t n = rank >= 2 || i < rank ? std::max<std::size_t>(1, data.shape[i]) : 1;
            label = std::to_string(rest % n) + (label.empty() ? "" : "," + label);
            rest /= n;
        }
        return label;
    });
    std::ostream labelled(&labels);
    core::write(labelled, data, core::OutputFormat::Csv);
    labelled.flush();
    if (!labelled)
        os.setstate(std::ios::badbit);
}

} // namespace

ExportResult ExportService::writeData(ui::View& view, const ui::WorkbenchState& state, Format format, std::ostream& out)
{
    ExportResult r;
    core::OutputFormat kind = core::OutputFormat::Json;
    switch (format) {
    case Format::Csv: kind = core::OutputFormat::Csv; break;
    case Format::Json: kind = core::OutputFormat::Json; break;
    case Format::Npy: kind = core::OutputFormat::Npy; break;
    default: return failed(Failure::Usage, QStringLiteral("%1 is not a data format").arg(extension(format)));
    }
    const QString name = view.exportName();
    const core::SchemeDescriptor& scheme = state.scheme();
    try {
        if (!view.isApplicable())
            throw core::RefusedError("the " + name.toStdString() + " view has nothing to show for " + scheme.id);
        // The registry's numbers for the view: what `poslab compute` gives for the same state.
        const ui::ViewEntry* entry = ui::findView(name);
        if (!entry)
            throw core::InputError("unknown view '" + name.toStdString() + "'");
        core::ComputeResult data = entry->data(state, &r.notes);
        if (state.comparing() && state.compareMode() == ui::CompareMode::Difference) {
            // Difference mode: A's numbers minus B's, element by element (B computed the same way from its state).
            ui::WorkbenchState* b = const_cast<ui::WorkbenchState&>(state).compareState();
            if (!view.supports(b->scheme()))
                throw core::RefusedError("the " + name.toStdString() + " view has nothing to show for B's scheme "
                                         + b->scheme().id + ": no difference A - B");
            data = ui::Computation::difference(data, entry->data(*b, &r.notes));
            r.notes << QStringLiteral("difference mode: the numbers are A \u2212 B, element by element");
        } else if (state.comparing()) {
            r.notes << QStringLiteral("compare mode: the data export writes configuration A's numbers (difference mode "
                                      "writes A \u2212 B)");
        }
        // Written straight to @p out (the file, for an export): the numbers are held once, as core computed them.
        if (kind == core::OutputFormat::Csv)
            writeCsvWithHeader(out, data);
        else
            core::write(out, data, kind);
        out.flush();
    } catch (const core::InputError& e) {
        r = failed(Failure::Usage, QString::fromUtf8(e.what()));
    } catch (const core::RefusedError& e) {
        r = failed(Failure::Refused, QString::fromUtf8(e.what()));
    } catch (const std::bad_alloc&) {
        r = failed(Failure::Refused, QStringLiteral("out of memory; ask for a smaller table"));
    } catch (const std::exception& e) {
        r = failed(Failure::Refused, QString::fromUtf8(e.what()));
    }
    return r;
}

QByteArray ExportService::renderData(ui::View& view, const ui::WorkbenchState& state, Format format,
                                     ExportResult* result)
{
    std::ostringstream os;
    ExportResult r = writeData(view, state, format, os);
    if (result)
        *result = r;
    if (!r.ok())
        return {};
    const std::string s = os.str();
    return QByteArray(s.data(), qsizetype(s.size()));
}
} // namespace poslab::exporting
