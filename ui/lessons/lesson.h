// SPDX-License-Identifier: MIT
#pragma once
/// @file lesson.h
/// The lessons as data: the model of a lesson file (resources/lessons/FORMAT.md is the format, LNN.json the
/// files, compiled in under :/lessons/), its reader, and the state a step loads. Qt Core only: the command line
/// (`poslab lessons`, `poslab export --lesson`), the lesson browser and the tests share it. The claims are
/// evaluated by ui/lessons/claims.h.
///
/// Reading is strict: a malformed entry is refused with one line naming the file, the step (or "puzzle") and the
/// field ("L02.json: step 2.3: notice n1: check: \"digits\" must be a whole number from 1 to 17"), never
/// skipped or guessed. The shipped files are read once (lessons()); a file that fails is left out and its
/// message is in lessonLoadProblems(), which the tests assert is empty.
///
/// Typical use (the lesson browser):
/// @code
///   for (const lessons::Lesson& l : lessons::lessons()) {
///       for (int s = 0; s < l.steps.size(); ++s) {
///           QJsonObject state = lessons::stepState(l, s);  // full state: WorkbenchState::fromJson(state)
///           const lessons::Step& step = l.steps[s];         // step.views, step.knobs, step.notice, ...
///       }
///   }
///   const lessons::Step* step = lessons::findStep("2.3"); // "LESSON.STEP", as `poslab export --lesson 2.3`
/// @endcode

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <algorithm>
#include <cstdint>
#include <optional>

namespace poslab::lessons {

/// One index of a probe's "at": a row-major index into the result's shape (0-based, an index into the
/// requested positions, not a position value), a column named by the result's "columns" ("score"), or "*" (the
/// whole axis: the probe is then a slice).
struct ProbeIndex {
    int index = 0;    ///< when neither column nor all
    QString column;   ///< a column's name (only meaningful on the last axis of a result with named columns)
    bool all = false; ///< "*"
};

/// A number (or a slice of numbers) that `poslab compute` prints, or a refusal it gives. Exactly one of
/// at / scalar / refused is set.
struct Probe {
    /// The arguments of `poslab compute` after the word "compute", shell-quoted ("scores --content \"a b\"").
    /// In a puzzle's check, "{answer}" stands for the puzzle's answer (see Puzzle).
    QString compute;
    QList<ProbeIndex> at; ///< "at": indices, one per axis of the result
    QString scalar;       ///< "scalar": a named scalar of the result ("attention_factor")
    QString refused;      ///< "refused": holds when compute is refused with a message containing this text
    bool isRefusal() const { return !refused.isEmpty(); }
    bool isScalar() const { return !scalar.isEmpty(); }
    /// True when "at" has a "*": the probe's value is a list.
    bool isSlice() const;
    /// The probe as JSON, as written in the file (for `poslab lessons --json` and messages).
    QJsonObject json;
};

/// A checkable claim about probes (FORMAT.md, "Checks"). Which fields matter depends on kind.
struct Check {
    enum class Kind {
        Equals,      ///< values[0] equals number to `digits` significant digits, or within `tol`
        LessThan,    ///< values[0] < number
        GreaterThan, ///< values[0] > number
        AllEqual,    ///< every value of values (or of the slice values[0]) within tol of the first
        Differ,      ///< the first two values differ by more than tol
        Order,       ///< values strictly increasing (increasing) or strictly decreasing
        Distinct,    ///< the slice values[0] holds exactly `distinct` values (two closer than tol are one)
        All,         ///< every check of `all` holds
        Refused,     ///< values[0] is a refusal probe: the computation is refused with its text
    };
    Kind kind = Kind::Equals;
    QList<Probe> values;       ///< "value" (one probe) or "values"
    double number = 0;         ///< equals / less_than / greater_than
    std::optional<int> digits; ///< equals: significant digits (1 to 17)
    double tol = 0;            ///< equals (instead of digits), all_equal, differ, distinct: absolute tolerance
    bool increasing = true;    ///< order
    int distinct = 0;          ///< distinct
    QList<Check> all;          ///< all
    QJsonObject json;          ///< the check as written
};

/// A notice: a claim of a step. `{v:K}` in its text is the value of probes()[K].
struct Notice {
    QString id;   ///< "n1", unique within its step
    QString text; ///< may hold {v:K} and {p:NAME}
    Check check;
    /// Every probe of the check, depth first in the order written ("value" or "values", then "all" in order):
    /// the K of {v:K}.
    QList<const Probe*> probes() const;
};

/// A prediction asked before "Try it" loads the step's state.
struct Predict {
    QString prompt;
    QString kind; ///< "number" or "choice"
    // number: the answer is probe `answerProbe` of notice `answerNotice` of the same step; `digits` shown.
    QString answerNotice;
    int answerProbe = 0;
    std::optional<int> digits;
    // choice: `choices`, the index of the right one, and (optional) the notice that says why.
    QStringList choices;
    int answerChoice = -1;
    QString whyNotice;
    std::optional<Check> check; ///< optional extra check
    /// "because": one sentence of why, shown with the verdict once the guess is committed (may hold {v:nID.K}
    /// and {p:NAME}). Every shipped prediction has one (a test checks).
    QString because;
};

/// A guess's verdict against the computed answer.
enum class GuessVerdict {
    Right, ///< within half a unit of the answer's last shown digit (of @p digits significant digits)
    Close, ///< within 10% of the answer (within 0.05 of an answer of 0)
    Wrong,
};
/// The verdict on a number guessed for a prediction whose computed answer is @p answer, shown to @p digits
/// significant digits (FORMAT.md, "predict"): 54,410 to 3 digits is right for 54,400 to 54,499.99, close from
/// 48,969 to 59,851, and wrong elsewhere.
GuessVerdict judgeGuess(double guess, double answer, int digits);
/// "right", "close" or "wrong".
QString verdictName(GuessVerdict v);

/// The puzzle that ends a lesson. Its check proves the answer with core; in its probes' compute lines
/// "{answer}" is replaced by the answer (a number in its shortest exact form, or the first accepted text), so
/// a wrong answer key fails `poslab lessons --check`.
struct Puzzle {
    QString prompt;
    QString kind;                             ///< "number", "choice" or "text"
    double answerNumber = 0;                  ///< number
    std::optional<double> relative, absolute; ///< number: "accept" {"relative": r} or {"absolute": a}
    /// number: "accept" {"from": a, "below": b}, every x with a <= x < b (a half-open range, e.g. the factors
    /// that round r = floor(d * factor) down to the same whole number).
    std::optional<double> from, below;
    QStringList choices;     ///< choice
    int answerChoice = -1;   ///< choice: index into choices
    QStringList answerTexts; ///< text: accepted answers
    std::optional<Check> check;
    QString explain;
    /// True when @p given is an accepted answer: within accept of the number (relative to the answer, default
    /// relative 1e-9), the choice's index as text, or one of the texts compared case-insensitively with white
    /// space collapsed.
    bool accepts(const QString& given) const;
    /// The answer as {answer} in a check's compute line replaces it.
    QString answerText() const;
};

/// One thing a step's "Do" line asks the learner to do, in machine-readable form (FORMAT.md, "Actions"). A test
/// (tests/ui/tst_lessonactions.cpp) performs every action of every shipped step through the window's widgets.
struct Action {
    enum class Kind {
        Set,    ///< {"set": KNOB, "to": VALUE}: set a knob the step unlocks (a parameter, dim, positions, cursor
                ///< or a view property) to a value
        Step,   ///< {"step": KNOB, "by": N}: step a whole-number knob N times (the cursor with Right/Left)
        Hover,  ///< {"hover": VIEW, "row": R, "column": C} (attention, table), {"hover": VIEW, "at": X} (decay:
                ///< a distance; extension: a pair), optional "side": "B" in compare mode
        Probe,  ///< {"probe": NOTICE}: run the `poslab compute` lines of a notice of the step
        Read,   ///< {"read": VIEW}: read a view of the step (nothing to change)
        Show,   ///< {"show": VIEW}: bring a view of the step on screen (its tab, or its button in the grid's strip)
        Select, ///< {"select": "patchgrid", "row": R, "column": C, "by": "click"|"keys"}: select the patch at
                ///< (R, C) of the spatial grid with a click, or with the arrow keys from the patch selected;
                ///< {"select": "sequence", "token": T, "by": ...}: the same for token T of the mixed sequence
    };
    Kind kind = Kind::Read;
    QString target;   ///< the knob (Set, Step), the view (Hover, Read) or the notice id (Probe)
    QJsonValue value; ///< Set: the value (a number, a string or true/false)
    /// Set: "refused": true when the Do line asks for a value the control refuses (4.2's 1025 positions): the
    /// control shows why and the state keeps its value.
    bool refused = false;
    int by = 0;               ///< Step
    int row = -1;             ///< Hover on attention / table; Select: the patch's row
    int column = -1;          ///< Hover on attention / table; Select: the patch's column
    int token = -1;           ///< Select on the sequence view: the token
    std::optional<double> at; ///< Hover on decay (a distance) or extension (a pair)
    bool sideB = false;       ///< Hover: configuration B's half
    bool byKeys = false;      ///< Select: with the arrow keys (else a click)
    QJsonObject json;         ///< the action as written
    /// One line: what the action does ("set key_distance to -4", "hover attention row 4 column 0").
    QString describe() const;
};

/// "hide": the numbers of a spatial view that answer the step's prediction, left out (shown as "?") while the
/// guess is due (WorkbenchState::answerPending; FORMAT.md, "hide"). The rest of the figure stays.
struct Hide {
    /// Sequence view: the ids of tokens first..last (both included) on the axes in axes (0 t, 1 h, 2 w), in the
    /// id rows, the block's cells, the header and the hover read-out.
    struct Ids {
        int first = 0, last = 0;
        bool axes[3] = {true, true, true};
    };
    QList<Ids> ids;
    /// Sequence view: the pairs strip's boxes pairsFrom..pairsTo (both included) in a neutral colour, and the
    /// strip's per-axis counts. pairsFrom -1: no pairs hidden.
    int pairsFrom = -1, pairsTo = -1;
    /// Patch grid view: the scores and cosines of the hover read-out.
    bool scores = false;
    bool hidesId(int axis, std::int64_t token) const
    {
        return axis >= 0 && axis < 3 && std::any_of(ids.begin(), ids.end(), [&](const Ids& r) {
                   return r.axes[axis] && token >= r.first && token <= r.last;
               });
    }
    bool hidesPair(int k) const { return pairsFrom >= 0 && k >= pairsFrom && k <= pairsTo; }
};

/// One step of a lesson.
struct Step {
    QString id; ///< "2.1"
    QString title;
    QString text;    ///< may hold {v:nK.J} and {p:NAME}
    QString formula; ///< TeX, may be empty
    /// "formula_reveals": the formula gives the prediction away (1.4's a_ij = 1/(i+1)), so the browser shows it
    /// only once the guess is committed.
    bool formulaReveals = false;
    QJsonObject state; ///< the partial state as written (see stepState for the full one)
    QStringList views; ///< registry ids; the first is the main view
    QStringList knobs; ///< scheme parameters, state fields and view properties the step unlocks
    QString doText;    ///< "do"
    /// "actions": the "Do" line in machine-readable form (every Set or Step knob is one of knobs, every view one
    /// of views, every probe a notice of the step; a hover lies inside the step's positions).
    QList<Action> actions;
    std::optional<Predict> predict;
    QList<Notice> notice;
    /// "derivation": the id of a derivation page the step opens (derivation.h; "sinusoid-shift"), empty for none.
    /// The reader refuses an id that no shipped page has.
    QString derivation;
    /// "hide": what the spatial views leave out until the guess (needs a prediction); nullopt for nothing.
    std::optional<Hide> hide;
    /// The notice with this id, or nullptr.
    const Notice* findNotice(const QString& id) const;
};

/// One lesson file.
struct Lesson {
    QString file; ///< file name, "L02.json"
    int number = 0;
    QString title;
    QString objective;
    QStringList resolves;
    QList<Step> steps;
    std::optional<Puzzle> puzzle;
    QStringList sources;
    QJsonArray verify; ///< [{"item", "finding", "source"}] as written (optional)
};

/// One piece of a text with live fields (FORMAT.md): plain text, a computed value ({v:K} in a notice's text,
/// {v:nID.K} in a step's text or do line) or a state field ({p:NAME}). The lesson browser draws values and fields
/// as links; ClaimEngine fills the values.
struct TextPart {
    enum class Kind { Text, Value, Field };
    Kind kind = Kind::Text;
    QString text;   ///< Text: the text itself; Field: NAME; Value: the field as written ("{v:n1.0}")
    QString notice; ///< Value: the notice id, empty for {v:K} (the notice whose text it is)
    int probe = 0;  ///< Value: K, the index into Notice::probes()
};
/// Splits @p text into its parts, in order (adjacent plain text is one part). The reader has already refused
/// malformed fields in shipped files; here an unknown {x:...} stays plain text.
QList<TextPart> textParts(const QString& text);

/// Reads one lesson file's bytes. Throws core::InputError with one line "FILE: step ID: FIELD: problem" for
/// any malformed entry (wrong type, missing field, unknown kind, a {v:K} beyond the notice's probes, a duplicate
/// id, a step id that does not start with the lesson's number). @p fileName names the file in messages.
Lesson parseLesson(const QByteArray& bytes, const QString& fileName);

/// Reads one notice as a step's are read (a derivation page's numbers, derivation.h); throws core::InputError with
/// one line "WHERE: notice nID: problem".
Notice parseNotice(const QJsonValue& value, const QString& where);
/// Checks the live fields of @p text ({v:nID.K} naming a notice of @p step, {p:NAME}) as a step's text is checked;
/// throws core::InputError "WHERE: \"FIELD\": problem".
void checkStepText(const QString& text, const Step& step, const QString& where, const char* field);

/// Reads a lesson file from disk or from a resource path (":/lessons/L02.json"); throws as parseLesson.
Lesson readLessonFile(const QString& path);

/// Every shipped lesson (:/lessons/), sorted by number; read once. Files that fail are left out (see below).
const QList<Lesson>& lessons();
/// One line per shipped file that failed to read (see parseLesson), or a duplicate lesson number; empty when
/// all is well.
const QStringList& lessonLoadProblems();
/// The shipped lesson with this number, or nullptr.
const Lesson* findLesson(int number);
/// The shipped step with this id ("2.3"), or nullptr; @p lesson and @p index receive where it is.
const Step* findStep(const QString& id, const Lesson** lesson = nullptr, int* index = nullptr);

/// The full state of step @p index of @p lesson (FORMAT.md's merge rule): starting from {} (a fresh
/// workbench), each step's "state" up to and including @p index is applied in turn: top-level keys replace,
/// "params" and "view" merge key by key, and a "scheme" that differs from the current one drops the old
/// params (unless the same state names params too, which then apply to the new scheme). "version": 2 is
/// added when no step gives one. Load the result with WorkbenchState::fromJson (keys absent from it take a
/// fresh workbench's values there).
QJsonObject stepState(const Lesson& lesson, int index);

/// Applies a partial state @p partial on top of @p base by the merge rule above (one step of stepState).
QJsonObject mergeState(const QJsonObject& base, const QJsonObject& partial);

} // namespace poslab::lessons
