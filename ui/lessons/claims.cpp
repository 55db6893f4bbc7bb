// SPDX-License-Identifier: MIT
#include "ui/lessons/claims.h"
#include "ui/lessons/derivation.h"

#include "core/errors.h"
#include "core/numbertext.h"
#include "ui/setup/computecommand.h"

#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace poslab::lessons {

struct ClaimEngine::Entry {
    std::shared_ptr<const core::ComputeResult> result;
    std::string error;    ///< the message when compute (or the parser) refused
    bool refused = false; ///< RefusedError (else InputError) when error is set
};

namespace {

/// @p x rounded to @p digits significant digits, in scientific form ("6.28319e+00"): two values are equal to
/// that many digits when these strings are.
std::string significant(double x, int digits)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*e", digits - 1, x);
    return buf;
}

/// The value of a check's number as typed (shortest exact form).
QString typed(double x)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", x);
    // Shortest form that reads back the same.
    for (int p = 1; p <= 17; ++p) {
        char t[64];
        std::snprintf(t, sizeof t, "%.*g", p, x);
        if (std::strtod(t, nullptr) == x)
            return QString::fromLatin1(t);
    }
    return QString::fromLatin1(buf);
}

QString probeLabel(const Probe& p, int k)
{
    return QStringLiteral("probe %1 (%2)").arg(k).arg(p.compute);
}

} // namespace

QString formatValue(double x)
{
    if (std::isnan(x))
        return QStringLiteral("NaN");
    if (std::isinf(x))
        return x > 0 ? QStringLiteral("inf") : QStringLiteral("-inf");
    if (x == 0)
        return QStringLiteral("0");
    const double a = std::abs(x);
    if (a < 1e-4 || a >= 1e15) {
        // 3.16228e-05 -> 3.16228e-5
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.6g", x);
        QString s = QString::fromLatin1(buf);
        s.replace(QRegularExpression(QStringLiteral("e([+-])0*(\\d)")), QStringLiteral("e\\1\\2"));
        s.replace(QStringLiteral("e+"), QStringLiteral("e"));
        return s;
    }
    // Six significant digits in fixed notation, trailing zeros dropped, thousands grouped.
    const int intDigits = a >= 1 ? int(std::floor(std::log10(a))) + 1 : 0;
    int decimals = std::max(0, 6 - intDigits);
    if (a < 1) // 0.000316228: six digits after the leading zeros
        decimals = 6 - int(std::floor(std::log10(a))) - 1;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, a);
    QString s = QString::fromLatin1(buf);
    if (s.contains(QLatin1Char('.'))) {
        while (s.endsWith(QLatin1Char('0')))
            s.chop(1);
        if (s.endsWith(QLatin1Char('.')))
            s.chop(1);
    }
    const int dot = int(s.indexOf(QLatin1Char('.')));
    const QString whole = dot < 0 ? s : s.left(dot);
    s = QString::fromStdString(core::groupThousands(whole.toStdString())) + (dot < 0 ? QString() : s.mid(dot));
    return x < 0 ? QStringLiteral("-") + s : s;
}

QString ProbeValue::text() const
{
    if (!ok)
        return QStringLiteral("?");
    if (values.empty())
        return QStringLiteral("refused");
    if (!slice)
        return formatValue(values[0]);
    QStringList parts;
    const std::size_t shown = std::min<std::size_t>(values.size(), 4);
    for (std::size_t i = 0; i < shown; ++i)
        parts << formatValue(values[i]);
    if (values.size() > shown)
        parts << QStringLiteral("\u2026 (%1 values)").arg(values.size());
    return QStringLiteral("[") + parts.join(QStringLiteral(", ")) + QStringLiteral("]");
}

ClaimEngine::ClaimEngine() = default;
ClaimEngine::~ClaimEngine() = default;

std::shared_ptr<const core::ComputeResult> ClaimEngine::result(const QString& computeLine)
{
    const std::vector<std::string> words = ui::splitCommandLine(computeLine.toStdString());
    // One cache key per word list, so spacing and quoting differences share an entry.
    std::string key;
    for (const std::string& w : words)
        key += w + '\x1f';
    auto& slot = m_cache[key];
    if (!slot) {
        // Keep the cache's results under maxCachedBytes: forget the oldest lines first (a --check of every
        // lesson reads hundreds of lines, each once or a few times in a row).
        while (m_cachedBytes > maxCachedBytes && !m_order.empty()) {
            const auto old = m_cache.find(m_order.front());
            m_order.pop_front();
            if (old != m_cache.end() && old->second && old->second->result) {
                m_cachedBytes -= old->second->result->data.size() * sizeof(double);
                m_cache.erase(old);
            }
        }
        slot = std::make_shared<Entry>();
        m_order.push_back(key);
        try {
            for (const std::string& w : words) {
                const std::string name = w.substr(0, w.find('='));
                if (name == "-o" || name == "--output" || name == "--format" || name == "-h" || name == "--help"
                    || name == "--version")
                    throw core::InputError("a probe's compute line gives numbers to the lesson; " + name
                                           + " does not apply to it");
            }
            ui::ComputeCommand command = ui::parseComputeCommand(words);
            // A lesson probes small worked examples; keep its cost to what a learner waits for.
            command.limits.maxBytes = std::min(command.limits.maxBytes, maxResultBytes);
            command.limits.maxWork = std::min(command.limits.maxWork, maxWork);
            slot->result = std::make_shared<const core::ComputeResult>(core::compute(command.request, command.limits));
            m_cachedBytes += slot->result->data.size() * sizeof(double);
        } catch (const core::RefusedError& e) {
            slot->error = e.what();
            slot->refused = true;
            // core's message suggests --max-memory, which cannot raise a probe's cap: say what can.
            if (slot->error.find("memory cap of 64.0 MiB") != std::string::npos)
                slot->error += "; a lesson probe is capped at 64 MiB: ask for the rows it reads (e.g. --positions 999 "
                               "--keys 0:1000)";
        } catch (const core::InputError& e) {
            slot->error = e.what();
        } catch (const std::bad_alloc&) {
            slot->error = "out of memory";
            slot->refused = true;
        }
    }
    if (!slot->result) {
        if (slot->refused)
            throw core::RefusedError(slot->error);
        throw core::InputError(slot->error);
    }
    return slot->result;
}

namespace {

/// The value of refusal-expecting or other probe @p p whose compute line @p line failed with @p message.
ProbeValue failedProbe(const Probe& p, const QString& line, const QString& message, ProbeValue v)
{
    if (p.isRefusal() && message.contains(p.refused)) {
        v.ok = true;
        v.error = message;
    } else if (p.isRefusal()) {
        v.error = QStringLiteral("refused with \"%1\", which does not contain \"%2\"").arg(message, p.refused);
    } else {
        v.error = QStringLiteral("poslab compute %1: %2").arg(line, message);
    }
    return v;
}

/// The value of scalar probe @p p in @p r.
ProbeValue scalarProbe(const Probe& p, const core::ComputeResult& r, ProbeValue v)
{
    for (const auto& [name, value] : r.scalars) {
        if (QString::fromStdString(name) == p.scalar) {
            v.values = {value};
            v.ok = true;
            return v;
        }
    }
    QStringList names;
    for (const auto& s : r.scalars)
        names << QString::fromStdString(s.first);
    v.error = QStringLiteral("the result has no scalar '%1' (it has: %2)")
                  .arg(p.scalar, names.isEmpty() ? QStringLiteral("none") : names.join(QStringLiteral(", ")));
    return v;
}

/// The indices probe @p p's "at" takes on each axis of @p r ("*" is the whole axis), or the problem in @p error.
std::vector<std::vector<std::size_t>> probeAxes(const Probe& p, const core::ComputeResult& r, QString* error)
{
    const std::vector<std::size_t>& shape = r.shape;
    if (p.at.size() != qsizetype(shape.size())) {
        QStringList sizes;
        for (std::size_t n : shape)
            sizes << QString::number(n);
        *error = QStringLiteral("\"at\" has %1 index(es) but the result has %2 axes (shape [%3])")
                     .arg(p.at.size())
                     .arg(shape.size())
                     .arg(sizes.join(QStringLiteral(", ")));
        return {};
    }
    std::vector<std::vector<std::size_t>> axes(shape.size());
    for (std::size_t k = 0; k < shape.size(); ++k) {
        const ProbeIndex& ix = p.at[qsizetype(k)];
        const QString axisName = k < r.axes.size() ? QString::fromStdString(r.axes[k]) : QString::number(k);
        if (ix.all) {
            for (std::size_t i = 0; i < shape[k]; ++i)
                axes[k].push_back(i);
        } else if (!ix.column.isEmpty()) {
            const auto it = std::find(r.columns.begin(), r.columns.end(), ix.column.toStdString());
            if (k + 1 != shape.size() || it == r.columns.end()) {
                QStringList names;
                for (const std::string& c : r.columns)
                    names << QString::fromStdString(c);
                *error = QStringLiteral("at[%1]: no column '%2' on axis '%3' (columns: %4)")
                             .arg(k)
                             .arg(ix.column, axisName,
                                  names.isEmpty() ? QStringLiteral("none") : names.join(QStringLiteral(", ")));
                return {};
            }
            axes[k].push_back(std::size_t(it - r.columns.begin()));
        } else {
            if (std::size_t(ix.index) >= shape[k]) {
                *error = QStringLiteral("at[%1] = %2 is outside axis '%3' (size %4)")
                             .arg(k)
                             .arg(ix.index)
                             .arg(axisName)
                             .arg(shape[k]);
                return {};
            }
            axes[k].push_back(std::size_t(ix.index));
        }
    }
    for (std::size_t k = 0; k < shape.size(); ++k) {
        if (axes[k].empty()) {
            *error = QStringLiteral("at[%1]: the result's axis %1 is empty").arg(k);
            return {};
        }
    }
    return axes;
}

/// The values of @p r at every combination of @p axes' indices, row-major.
std::vector<double> valuesAt(const core::ComputeResult& r, const std::vector<std::vector<std::size_t>>& axes)
{
    const std::vector<std::size_t>& shape = r.shape;
    std::vector<std::size_t> stride(shape.size(), 1);
    for (std::size_t k = shape.size(); k-- > 1;)
        stride[k - 1] = stride[k] * shape[k];
    std::vector<double> out;
    std::vector<std::size_t> at(shape.size(), 0);
    while (true) {
        std::size_t flat = 0;
        for (std::size_t k = 0; k < shape.size(); ++k)
            flat += axes[k][at[k]] * stride[k];
        out.push_back(r.data[flat]);
        std::size_t k = shape.size();
        while (k > 0) {
            --k;
            if (++at[k] < axes[k].size())
                break;
            at[k] = 0;
            if (k == 0)
                return out;
        }
    }
}

} // namespace

ProbeValue ClaimEngine::probe(const Probe& p, const QString& answer)
{
    ProbeValue v;
    v.slice = p.isSlice();
    QString line = p.compute;
    if (line.contains(QLatin1String("{answer}"))) {
        if (answer.isEmpty()) {
            v.error = QStringLiteral("{answer} is only known in a puzzle's check");
            return v;
        }
        line.replace(QLatin1String("{answer}"), answer);
    }
    std::shared_ptr<const core::ComputeResult> r;
    try {
        r = result(line);
    } catch (const std::exception& e) {
        return failedProbe(p, line, QString::fromStdString(e.what()), std::move(v));
    }
    if (p.isRefusal()) {
        v.error = QStringLiteral("computed without a refusal (expected one containing \"%1\")").arg(p.refused);
        return v;
    }
    if (p.isScalar())
        return scalarProbe(p, *r, std::move(v));
    const std::vector<std::vector<std::size_t>> axes = probeAxes(p, *r, &v.error);
    if (!v.error.isEmpty())
        return v;
    v.values = valuesAt(*r, axes);
    v.ok = true;
    return v;
}

namespace {

// How each kind of check judges the numbers its probes gave (@p xs: the probes' values in order, or the one
// slice's), with the line that says why.

CheckResult judgeEquals(const Check& c, const std::vector<double>& xs)
{
    const double x = xs[0];
    if (c.digits) {
        const bool holds = significant(x, *c.digits) == significant(c.number, *c.digits);
        return {holds,
                QStringLiteral("computed %1 (%2), %3 %4 to %5 significant digits")
                    .arg(QString::fromStdString(significant(x, *c.digits)), typed(x),
                         holds ? QStringLiteral("equal to") : QStringLiteral("not"), typed(c.number))
                    .arg(*c.digits)};
    }
    const bool holds = std::abs(x - c.number) <= c.tol;
    return {
        holds,
        QStringLiteral("computed %1, %2 %3 within %4")
            .arg(typed(x), holds ? QStringLiteral("equal to") : QStringLiteral("not"), typed(c.number), typed(c.tol))};
}

CheckResult judgeBound(const Check& c, const std::vector<double>& xs)
{
    const bool less = c.kind == Check::Kind::LessThan;
    const bool holds = less ? xs[0] < c.number : xs[0] > c.number;
    return {holds,
            QStringLiteral("computed %1, %2 %3 %4")
                .arg(typed(xs[0]), holds ? QString() : QStringLiteral("not"),
                     less ? QStringLiteral("less than") : QStringLiteral("greater than"), typed(c.number))
                .simplified()};
}

CheckResult judgeAllEqual(const Check& c, const std::vector<double>& xs)
{
    for (std::size_t i = 1; i < xs.size(); ++i)
        if (!(std::abs(xs[i] - xs[0]) <= c.tol))
            return {false,
                    QStringLiteral("value %1 = %2 differs from value 0 = %3 by %4, more than tol %5")
                        .arg(i)
                        .arg(typed(xs[i]), typed(xs[0]), typed(std::abs(xs[i] - xs[0])), typed(c.tol))};
    return {true, QStringLiteral("%1 values within %2 of %3").arg(xs.size()).arg(typed(c.tol), typed(xs[0]))};
}

CheckResult judgeDiffer(const Check& c, const std::vector<double>& xs)
{
    const double d = std::abs(xs[1] - xs[0]);
    const bool holds = d > c.tol;
    return {holds,
            QStringLiteral("%1 and %2 differ by %3, %4 more than tol %5")
                .arg(typed(xs[0]), typed(xs[1]), typed(d), holds ? QString() : QStringLiteral("not"), typed(c.tol))
                .simplified()};
}

CheckResult judgeOrder(const Check& c, const std::vector<double>& xs)
{
    for (std::size_t i = 1; i < xs.size(); ++i)
        if (!(c.increasing ? xs[i] > xs[i - 1] : xs[i] < xs[i - 1]))
            return {false,
                    QStringLiteral("not strictly %1: value %2 = %3 after value %4 = %5")
                        .arg(c.increasing ? QStringLiteral("increasing") : QStringLiteral("decreasing"))
                        .arg(i)
                        .arg(typed(xs[i]))
                        .arg(i - 1)
                        .arg(typed(xs[i - 1]))};
    return {true,
            QStringLiteral("%1 values strictly %2")
                .arg(xs.size())
                .arg(c.increasing ? QLatin1String("increasing") : QLatin1String("decreasing"))};
}

CheckResult judgeDistinct(const Check& c, const std::vector<double>& xs)
{
    std::vector<double> sorted = xs;
    std::sort(sorted.begin(), sorted.end());
    int count = sorted.empty() ? 0 : 1;
    for (std::size_t i = 1; i < sorted.size(); ++i)
        if (sorted[i] - sorted[i - 1] > c.tol)
            ++count;
    return {count == c.distinct,
            QStringLiteral("%1 distinct values among %2 (tol %3), %4 %5")
                .arg(count)
                .arg(sorted.size())
                .arg(typed(c.tol), count == c.distinct ? QStringLiteral("as claimed:") : QStringLiteral("not"))
                .arg(c.distinct)};
}

/// The judges by kind; All and Refused are judged by ClaimEngine::check itself.
constexpr std::pair<Check::Kind, CheckResult (*)(const Check&, const std::vector<double>&)> judges[] = {
    {Check::Kind::Equals, judgeEquals},     {Check::Kind::LessThan, judgeBound}, {Check::Kind::GreaterThan, judgeBound},
    {Check::Kind::AllEqual, judgeAllEqual}, {Check::Kind::Differ, judgeDiffer},  {Check::Kind::Order, judgeOrder},
    {Check::Kind::Distinct, judgeDistinct},
};

} // namespace

CheckResult ClaimEngine::check(const Check& c, const QString& answer)
{
    using Kind = Check::Kind;
    if (c.kind == Kind::All) {
        for (int i = 0; i < c.all.size(); ++i) {
            const CheckResult r = check(c.all[i], answer);
            if (!r.holds)
                return {false, c.all.size() > 1 ? QStringLiteral("all[%1]: %2").arg(i).arg(r.reason) : r.reason};
        }
        return {true, QStringLiteral("all %1 checks hold").arg(c.all.size())};
    }
    QList<ProbeValue> values;
    for (int k = 0; k < c.values.size(); ++k) {
        ProbeValue v = probe(c.values[k], answer);
        if (!v.ok)
            return {false, c.values.size() > 1 ? QStringLiteral("probe %1: %2").arg(k).arg(v.error) : v.error};
        if (c.kind != Kind::Refused) {
            for (double x : v.values)
                if (!std::isfinite(x))
                    return {false,
                            QStringLiteral("%1 gives %2, not a number to compare (a masked or undefined entry)")
                                .arg(probeLabel(c.values[k], k), formatValue(x))};
        }
        values << v;
    }
    if (c.kind == Kind::Refused)
        return {true, QStringLiteral("refused: %1").arg(values[0].error)};
    std::vector<double> xs;
    for (const ProbeValue& v : values)
        xs.insert(xs.end(), v.values.begin(), v.values.end());
    for (const auto& [kind, judge] : judges)
        if (kind == c.kind)
            return judge(c, xs);
    return {false, QStringLiteral("unknown check")};
}

QList<ProbeValue> ClaimEngine::noticeValues(const Notice& notice)
{
    QList<ProbeValue> out;
    for (const Probe* p : notice.probes())
        out << probe(*p);
    return out;
}

QString ClaimEngine::fillNotice(const Notice& notice)
{
    const QList<const Probe*> probes = notice.probes();
    static const QRegularExpression field(QStringLiteral("\\{v:(\\d+)\\}"));
    QString out;
    qsizetype last = 0;
    for (auto it = field.globalMatch(notice.text); it.hasNext();) {
        const auto m = it.next();
        out += notice.text.mid(last, m.capturedStart() - last);
        const int k = m.captured(1).toInt();
        out += k < probes.size() ? probe(*probes[k]).text() : QStringLiteral("?");
        last = m.capturedEnd();
    }
    return out + notice.text.mid(last);
}

QString ClaimEngine::fillStepText(const Step& step, const QString& text)
{
    static const QRegularExpression field(QStringLiteral("\\{v:([^}.]+)\\.(\\d+)\\}"));
    QString out;
    qsizetype last = 0;
    for (auto it = field.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        out += text.mid(last, m.capturedStart() - last);
        const Notice* n = step.findNotice(m.captured(1));
        const int k = m.captured(2).toInt();
        const QList<const Probe*> probes = n ? n->probes() : QList<const Probe*>{};
        out += k < probes.size() ? probe(*probes[k]).text() : QStringLiteral("?");
        last = m.capturedEnd();
    }
    return out + text.mid(last);
}

QString ClaimReport::line() const
{
    return file + (step.isEmpty() ? QString() : QStringLiteral(" step ") + step) + QLatin1Char(' ') + what
        + QStringLiteral(": ") + reason;
}

QList<ClaimReport> checkLesson(const Lesson& lesson, ClaimEngine& engine)
{
    QList<ClaimReport> out;
    for (const Step& s : lesson.steps) {
        for (const Notice& n : s.notice) {
            const CheckResult r = engine.check(n.check);
            out << ClaimReport{lesson.file, s.id, QStringLiteral("notice ") + n.id, r.holds, r.reason};
        }
        // The numbers of the derivation page the step opens are checked with it (derivation.h).
        if (const Derivation* d = s.derivation.isEmpty() ? nullptr : findDerivation(s.derivation))
            for (ClaimReport r : checkDerivation(*d, engine)) {
                r.file = lesson.file;
                r.step = s.id;
                out << r;
            }
        if (!s.predict)
            continue;
        const Predict& p = *s.predict;
        if (p.kind == QLatin1String("number")) {
            const Notice* n = s.findNotice(p.answerNotice);
            const QList<const Probe*> probes = n ? n->probes() : QList<const Probe*>{};
            const ProbeValue v = p.answerProbe < probes.size() ? engine.probe(*probes[p.answerProbe]) : ProbeValue{};
            const bool holds = v.ok && v.values.size() == 1 && std::isfinite(v.values[0]);
            out << ClaimReport{lesson.file, s.id, QStringLiteral("predict"), holds,
                               holds ? QStringLiteral("the answer is %1").arg(v.text())
                                     : QStringLiteral("the answer (notice %1, probe %2) gives no number: %3")
                                           .arg(p.answerNotice)
                                           .arg(p.answerProbe)
                                           .arg(v.error)};
        }
        if (p.check) {
            const CheckResult r = engine.check(*p.check);
            out << ClaimReport{lesson.file, s.id, QStringLiteral("predict check"), r.holds, r.reason};
        }
    }
    if (lesson.puzzle) {
        const Puzzle& z = *lesson.puzzle;
        if (!z.check) {
            out << ClaimReport{lesson.file,
                               {},
                               QStringLiteral("puzzle"),
                               false,
                               QStringLiteral("the puzzle has no check; give one that proves the answer with core "
                                              "(\"{answer}\" in a compute line stands for the answer)")};
        } else {
            const CheckResult r = engine.check(*z.check, z.answerText());
            out << ClaimReport{lesson.file, {}, QStringLiteral("puzzle"), r.holds, r.reason};
        }
    }
    return out;
}

} // namespace poslab::lessons
