// SPDX-License-Identifier: MIT
#pragma once
/// @file claims.h
/// The claim engine: evaluates a lesson's probes with core and its checks (FORMAT.md, "Probes" and "Checks").
/// A probe's compute line is split like a shell line (ui/setup/computecommand.h splitCommandLine) and parsed by the
/// command line's own parser (parseComputeCommand), so a probe means exactly what `poslab compute LINE` prints.
/// Results are cached per compute line, so the probes of a step that share one computation compute it once.
///
/// Typical use (the lesson browser and `poslab lessons`):
/// @code
///   lessons::ClaimEngine engine;
///   const lessons::CheckResult r = engine.check(notice.check);   // r.holds, r.reason
///   QString shown = engine.fillNotice(notice);                   // {v:K} replaced by the values
///   for (const lessons::ClaimReport& f : lessons::checkLesson(lesson, engine)) if (!f.holds) ...
/// @endcode
/// Not thread-safe: one engine per thread (the cache is unguarded).

#include "core/compute.h"
#include "ui/lessons/lesson.h"

#include <QList>
#include <QString>

#include <deque>
#include <map>
#include <memory>
#include <vector>

namespace poslab::lessons {

/// What one probe gave.
struct ProbeValue {
    /// True when the probe gave its number(s) (an "at" or "scalar" probe) or was refused as it expects (a
    /// "refused" probe). False: @c error says why (a bad compute line, an index outside the result, a
    /// computation refused or computed against the probe's expectation).
    bool ok = false;
    std::vector<double> values; ///< one number, or a slice's numbers in row-major order
    bool slice = false;         ///< the probe has a "*"
    QString error;              ///< why not ok; for a refusal probe that holds, the refusal message
    /// The value as live text shows it ({v:K}): 6 significant digits with thousands separators
    /// ("54,410.1", "0.000316228", "5,063,256"), a slice as "[a, b, c, … (n values)]", a refusal as
    /// "refused", a failure as "?".
    QString text() const;
};

/// The verdict on one check.
struct CheckResult {
    bool holds = false;
    /// One line: why the check fails ("computed 6.28319, not 6.2832 to 5 significant digits"), or what held.
    QString reason;
};

/// Formats @p x as live text does (see ProbeValue::text()).
QString formatValue(double x);

class ClaimEngine {
public:
    /// The cap on one probe's result (64 MiB of float64) and its work (2e10 operations, a few seconds on the
    /// 2-core machine core/limits.h measures): a lesson shows small worked examples; a probe past these is refused
    /// with core's message.
    static constexpr std::size_t maxResultBytes = std::size_t(64) << 20;
    static constexpr double maxWork = 2e10;
    /// The results the cache keeps at most (the oldest lines are computed again when needed).
    static constexpr std::size_t maxCachedBytes = std::size_t(256) << 20;

    ClaimEngine();
    ~ClaimEngine();

    /// Evaluates @p probe. In its compute line "{answer}" is replaced by @p answer first (a puzzle's check).
    ProbeValue probe(const Probe& probe, const QString& answer = {});
    /// Evaluates @p check (probes as above).
    CheckResult check(const Check& check, const QString& answer = {});
    /// The values of every probe of @p notice, in the order of Notice::probes() (the K of {v:K}).
    QList<ProbeValue> noticeValues(const Notice& notice);
    /// @p notice's text with each {v:K} replaced by its probe's value text; {p:NAME} is left as it is.
    QString fillNotice(const Notice& notice);
    /// @p step's text (or do text, @p text) with each {v:nID.K} replaced by the value of probe K of notice nID.
    QString fillStepText(const Step& step, const QString& text);

    /// The result of one compute line (split and parsed as the command line does), from the cache when it was
    /// computed before; throws core::InputError or core::RefusedError as compute does (and remembers that too).
    std::shared_ptr<const core::ComputeResult> result(const QString& computeLine);

    /// Compute lines in the cache; for tests and statistics.
    int computedLines() const { return int(m_cache.size()); }

private:
    struct Entry;
    std::map<std::string, std::shared_ptr<Entry>> m_cache;
    std::deque<std::string> m_order; ///< cache keys, oldest first
    std::size_t m_cachedBytes = 0;
};

/// One claim of a lesson and whether it holds.
struct ClaimReport {
    QString file; ///< "L02.json"
    QString step; ///< "2.1"; empty for the puzzle
    QString what; ///< "notice n1", "predict", "puzzle"
    bool holds = false;
    QString reason;
    /// "L02.json step 2.1 notice n1: REASON" (the line `poslab lessons --check` prints for a failure).
    QString line() const;
};

/// Evaluates every check of @p lesson: each notice's, each predict's (a number prediction's answer probe must
/// give one finite number; its optional check), and the puzzle's (required: it proves the answer, with
/// "{answer}" in its compute lines replaced by the answer). One report per claim, in file order.
QList<ClaimReport> checkLesson(const Lesson& lesson, ClaimEngine& engine);

} // namespace poslab::lessons
