// SPDX-License-Identifier: MIT
#pragma once
/// @file workbenchstate.h
/// The one state every view observes: scheme, its parameters, dimension, position range, position cursor,
/// animation time and view options. Views and controllers read it and call its setters; they never call
/// each other. Changes of the set-up (scheme, parameters, dimension, range) go through a QUndoStack.

#include "core/encodingregistry.h"
#include "core/train/trainer.h"
#include "ui/render/theme.h"
#include "ui/state/spatialsetup.h"
#include "ui/state/viewproperties.h"

#include <QJsonObject>
#include <QObject>
#include <QString>

#include <map>
#include <memory>
#include <vector>
#include <optional>
#include <string>

class QUndoStack;

namespace poslab::ui {

/// The part of the state that undo/redo restores.
struct Setup {
    std::string scheme;
    core::ParamSet params;
    int dim = 128;
    int positionCount = 1024;
    /// The real model this set-up came from (a preset or a config.json): {"id", "name", "source", ...} as
    /// ui/setup/presets.h writes it, plus "set_up": the scheme, parameters and dimension it set. Empty for none;
    /// choosing another scheme clears it.
    QJsonObject model;
    bool operator==(const Setup&) const = default;
};

/// The content that shows @p scheme's position pattern in the attention view: constant q = k everywhere (the
/// logits then vary with position only), except CoPE, whose positions count content-gated keys, so constant
/// content would make it a plain relative scheme: it opens on the sentence.
AttentionContent teachingContent(const core::SchemeDescriptor& scheme);

/// Compare mode: how configuration B is shown beside configuration A. The JSON words are
/// "side_by_side", "overlay" and "difference"; Off writes no "compare" key.
enum class CompareMode { Off, SideBySide, Overlay, Difference };
/// "off", "side_by_side", "overlay", "difference".
QString compareModeWord(CompareMode mode);
/// The mode named @p word, or nullopt.
std::optional<CompareMode> compareModeFromWord(const QString& word);

/// Configuration B of a workbench: the keys of the state form ("scheme", "params", "dim", "positions", "view",
/// "model") that B sets; every key it leaves out is A's (the cursor always is). A "params" key is B's own value
/// for that parameter; when B names no scheme, B has A's scheme and A's parameters except the ones B sets.
struct CompareConfig {
    CompareMode mode = CompareMode::Off;
    QJsonObject state;
    bool operator==(const CompareConfig&) const = default;
};

/// The training runs of this window (the lengthlab view's Train panel): the runs while they train (loss so far,
/// the latest preview of accuracy against length) and once done (core's RunResult, with its trained parameters).
/// Held in memory only: not undoable, not in toJson (a run file keeps the curves: writeRuns).
struct TrainedRuns {
    std::vector<core::train::RunResult> runs;
    std::vector<double> progress; ///< per run, 0..1
    bool running = false;
    QString message;    ///< the last problem or stop ("rope, seed 1: loss is nan at step 12; ..."), or empty
    QString file;       ///< where the runs were saved (the view option run_file then names it), or empty
    quint64 models = 0; ///< increases whenever a run's trained parameters change
};

/// The cursor a new workbench opens at: not 0, where every hand points to 12 and every angle is 0.
constexpr int teachingCursor = 37;

class WorkbenchState : public QObject {
    Q_OBJECT
public:
    explicit WorkbenchState(QObject* parent = nullptr);
    ~WorkbenchState() override;

    static constexpr int minDim = 2;
    static constexpr int maxDim = 4096;
    static constexpr int maxPositionCount = 1 << 20;
    static constexpr double minFontScale = 0.8;
    static constexpr double maxFontScale = 2.5;
    /// Undo steps kept; older ones are dropped (a long session of slider steps grew memory without bound).
    static constexpr int undoLimit = 1000;
    /// Empty when @p scale is a usable font scale, else one sentence saying why not (NaN, which std::clamp
    /// passes through, made every label invisible).
    static QString fontScaleProblem(double scale);

    const core::SchemeDescriptor& scheme() const { return *m_scheme; }
    QString schemeId() const { return QString::fromStdString(m_setup.scheme); }
    const core::ParamSet& params() const { return m_setup.params; }
    int dim() const { return m_setup.dim; }
    int positionCount() const { return m_setup.positionCount; }
    const Setup& setup() const { return m_setup; }
    /// The context core needs: dim, positions [0, positionCount), sequence length = positionCount.
    core::TableContext context() const;
    /// The set-up as core validated it, once per change (core::checkParams for context(), with its rotary spec):
    /// made by the setter's resolve, or by applySetup() for a set-up that comes without one (undo, redo, a state
    /// file). The figures hand it on with their requests (ComputeRequest::checked). Null when core refuses the
    /// set-up applySetup() was given.
    std::shared_ptr<const core::CheckedParams> checkedParams() const { return m_checked; }
    bool isRotary() const { return m_scheme->rotary != nullptr; }

    int cursor() const { return m_cursor; }
    double animationTime() const { return m_time; }
    bool isPlaying() const { return m_playing; }
    const ViewOptions& viewOptions() const { return m_options; }
    Theme theme() const
    {
        Theme t = Theme::of(m_options.theme, m_options.fontScale);
        t.heading = m_heading;
        return t;
    }
    /// The heading an export gives its figure in place of the view's own title (poslab export --title); not part
    /// of the state's JSON. Empty: the view's own.
    void setHeading(const QString& heading) { m_heading = heading; }
    const QString& heading() const { return m_heading; }
    /// Predict, then see: true while the lesson step shown waits for its prediction's guess (LessonBrowser sets
    /// it as needsGuess() changes). Views then leave out the header and caption text that states a computed
    /// result (a count, a base in force); the figure itself stays. Not part of the state's JSON or undo; B reads
    /// A's.
    bool answerPending() const { return m_owner ? m_owner->answerPending() : m_answerPending; }
    /// The id of the lesson step whose guess is due ("18.1"), empty when none: a view that draws the numbers a
    /// step's "hide" names (lessons::Hide) reads what to leave out from it.
    QString answerPendingStep() const { return m_owner ? m_owner->answerPendingStep() : m_answerPendingStep; }
    void setAnswerPending(bool pending, const QString& step = {});

    QUndoStack* undoStack() const { return m_undo; }

    /// The version toJson() writes. Version 1 (no "version" key) wrote choices as numbers; fromJson reads both.
    static constexpr int stateVersion = 2;
    /// Serialises everything but the undo history (sessions, share strings, lessons and batch export read this
    /// back): {"version", "scheme", "params", "dim", "positions", "cursor", "view": {every view property},
    /// "model", "compare": {"mode", "state": B's own keys} while comparing}. @p onlyChanged: only what differs from a new workbench's state (share strings).
    QJsonObject toJson(bool onlyChanged = false) const;
    /// Restores a state written by toJson() (any version; keys it does not know are ignored, and a session
    /// keeps them); returns an error message, empty on success. Every size and index is checked against the
    /// limits of the setters and the CLI before anything changes. @p undoable: one undo step restores the
    /// state before (the window's Open and Paste state); otherwise the undo history is left as it is.
    QString fromJson(const QJsonObject& json, bool undoable = false);

    /// The real model the set-up came from (Setup::model), empty for none.
    const QJsonObject& model() const { return m_setup.model; }
    /// "Llama 3.1 8B" when the set-up is the model's; "Llama 3.1 8B, edited" once a parameter, the scheme's
    /// variant or the dimension differs from what the model set; empty without a model.
    QString modelLabel() const;
    /// The heading of every figure: the scheme's variant ("RoPE · Llama 3 ×8, trained 8,192"), after the model's
    /// name when the set-up came from one ("Llama 3.1 8B · RoPE · ...").
    QString figureLabel() const;

    // --- setters of the set-up: validated, undoable. Each returns an empty string on success, otherwise
    // the message shown to the user (and emits refused()). Nothing is clamped.
    QString setScheme(const QString& id);
    /// @p mergeable: consecutive mergeable changes of one key collapse into one undo step (a slider drag). The
    /// value goes to core::resolveParams as it is (a slider's double is never turned into text and back).
    QString setParam(const QString& key, const core::ParamValue& value, bool mergeable = false);
    /// Parses @p text for @p key (the typed value of the panel) once (core::parseSettings) and sets it as setParam
    /// does, through the resolver of `poslab compute` and `poslab export`: a key that does not apply is refused the
    /// same way.
    QString setParamText(const QString& key, const QString& text, bool mergeable = false);
    QString resetParam(const QString& key);
    QString setDim(int dim);
    /// The clock pairs @p pairs ("0,64,127", "0-3") of @p oldPairs pairs mapped onto @p newPairs: pair i becomes
    /// round(i (newPairs - 1) / (oldPairs - 1)), so the fastest, the slowest and the ones between keep their places.
    static QString followDim(const QString& pairs, int oldPairs, int newPairs);
    QString setPositionCount(int count);
    /// Applies a whole set-up (used by undo/redo and fromJson); no validation, no undo entry.
    void applySetup(const Setup& setup);

    // --- compare mode: configuration B, one more part of this one state (undoable, in toJson).
    const CompareConfig& compare() const { return m_compare; }
    CompareMode compareMode() const { return m_compare.mode; }
    /// True while B is shown (the mode is not Off).
    bool comparing() const { return m_compare.mode != CompareMode::Off; }
    /// Sets B and the mode (undoable); refused (message, refused()) when B's keys do not load on top of A.
    QString setCompare(const CompareConfig& config);
    /// Sets the mode, keeping B (undoable). Turning compare on from Off keeps the B set before, if any.
    QString setCompareMode(CompareMode mode);
    /// "Compare with…": B becomes a copy of A (no key of its own) and the mode @p mode (side by side unless
    /// given). The user then edits B through compareState().
    QString compareWithCopy(CompareMode mode = CompareMode::SideBySide);
    /// Configuration B as a whole state, kept in sync with this one: B's set-up and view options, this state's
    /// cursor. Views of B and the panel that edits B observe it; its setters (setScheme, setParam, setDim,
    /// setProperty, setCursor...) change this state's B (undoable here, on this state's stack). Created on
    /// first use; owned by this state. Its figureLabel() starts with "B: ".
    WorkbenchState* compareState();
    /// The state this one is configuration B of, or nullptr.
    WorkbenchState* compareOwner() const { return m_owner; }
    /// "A" or "B" while comparing (this state or its owner), else empty.
    QString compareName() const;
    /// Applies a compare configuration with no validation and no undo entry (undo/redo).
    void applyCompare(const CompareConfig& config);
    /// Resolves B's keys @p b on top of A's set-up @p a and options @p ao: the set-up and view options B shows.
    /// Returns an empty string or the first problem. @p strict: a key that does not load is an error (reading a
    /// file); otherwise it is left out (A changed under B, e.g. a parameter B set no longer applies).
    static QString resolveCompare(const Setup& a, const ViewOptions& ao, const QJsonObject& b, bool strict,
                                  Setup* setup, ViewOptions* options);

    // --- view options: every one is a property of viewproperties.h, undoable like the set-up.
    /// The value of the view property @p name (int, double, bool or QString; a choice as its index), or an
    /// invalid QVariant for an unknown name.
    QVariant property(const QString& name) const;
    /// Sets a view property from a value of its type (as property() returns it); refused (message, refused())
    /// when out of range. @p mergeable as setParam.
    QString setProperty(const QString& name, const QVariant& value, bool mergeable = false);
    /// Sets a view property from the text a person types ("dark", "4", "true").
    QString setPropertyText(const QString& name, const QString& text, bool mergeable = false);
    /// Applies view options with no validation and no undo entry (undo/redo).
    void applyViewOptions(const ViewOptions& options);

    // --- training runs of the window (in memory; see TrainedRuns). The lengthlab view draws them while run_file is
    // empty or names the file they were saved to; the attention view's source "trained" reads their parameters.
    std::shared_ptr<const TrainedRuns> trainedRuns() const { return m_trained; }
    void setTrainedRuns(std::shared_ptr<const TrainedRuns> runs);

    // --- the spatial set-up: the patch grid and mixed sequence views' own, apart from the 1-D set-up.
    const SpatialSetup& spatial() const { return m_spatial; }
    /// Sets it (one undo step; @p mergeable as setParam) or refuses with spatialProblem()'s message (refused()).
    QString setSpatial(const SpatialSetup& spatial, bool mergeable = false);
    /// Applies a spatial set-up with no validation and no undo entry (undo/redo). While comparing, configuration
    /// B's spatial set-up is A's with B's own keys (compare.state's "spatial", spatialOnTop()) on top, and B shares
    /// A's selected patch; a change of B's spatial set-up through compareState() becomes B's own keys.
    void applySpatial(const SpatialSetup& spatial);

public slots:
    /// Moves the cursor (clamped to the range) and the animation time with it.
    void setCursor(int position);
    void stepCursor(int delta) { setCursor(m_cursor + delta); }
    void setAnimationTime(double t);
    void setPlaying(bool playing);
    void togglePlaying() { setPlaying(!m_playing); }
    /// Sets every view option at once (undoable; a change of one number property merges with the next change
    /// of the same property, as a slider drag). Refused as a whole when checkViewOptions() finds a problem.
    QString setViewOptions(const ViewOptions& options);

signals:
    void schemeChanged();
    void paramsChanged();
    void dimChanged(int dim);
    void positionCountChanged(int count);
    /// Any of the four above; the computation listens to this one.
    void setupChanged();
    void cursorChanged(int position);
    void animationTimeChanged(double t);
    void playingChanged(bool playing);
    void viewOptionsChanged();
    /// One view property changed (emitted before viewOptionsChanged, once per changed property).
    void propertyChanged(const QString& name);
    /// The compare configuration (mode or B) changed.
    void compareChanged();
    /// spatial() changed.
    void spatialChanged();
    /// trainedRuns() changed (at most about ten times a second while training).
    void trainedRunsChanged();
    /// answerPending() changed (emitted by B's state too).
    void answerPendingChanged();
    /// A change was refused; @p message names the key and what is allowed.
    void refused(const QString& message);

private:
    /// setParam()'s work for @p value of @p key, already read as a value.
    QString applyParam(const QString& key, const core::ParamValue& value, bool mergeable);
    /// What is wrong with set-up @p next (unknown scheme, a parameter core refuses); empty when it is valid.
    /// @p checked, when given, receives the token of a valid @p next.
    static QString setupProblem(const Setup& next, std::shared_ptr<const core::CheckedParams>* checked = nullptr);
    /// @p checked: the token of @p next when the caller validated it already (then it is not validated again).
    QString pushSetup(Setup next, const QString& text, const QString& mergeKey,
                      std::shared_ptr<const core::CheckedParams> checked = {});
    QString pushViewOptions(const ViewOptions& options, bool mergeable);
    QString refuse(const QString& message);

    Setup m_setup;
    const core::SchemeDescriptor* m_scheme = nullptr;
    std::shared_ptr<const core::CheckedParams> m_checked;        ///< see checkedParams()
    std::shared_ptr<const core::CheckedParams> m_pendingChecked; ///< pushSetup()'s token for applySetup()
    std::map<std::string, core::ParamSet> m_remembered;          ///< last parameters per scheme
    int m_cursor = teachingCursor;
    double m_time = teachingCursor;
    bool m_playing = false;
    ViewOptions m_options;
    QString m_heading;            ///< see setHeading()
    bool m_answerPending = false; ///< see answerPending()
    QString m_answerPendingStep;  ///< see answerPendingStep()
    bool m_contentChosen = false; ///< the user picked an attention content: scheme changes keep it
    // compare mode
    void syncCompare();
    void syncCompareCursor();
    /// B's edits (called by B's setters, on A's state): B's own keys (compare.state) that make B show @p now, pushed
    /// as one step of this state's undo stack; applying it gives B its new set-up (syncCompare). Nothing when B
    /// already shows it.
    QString pushCompareSetup(const Setup& now);
    QString pushCompareOptions(const ViewOptions& now);
    QString pushCompareSpatial(const SpatialSetup& now);
    /// B's spatial set-up: spatialOnTop() of A's and B's "spatial" keys, A's own where those do not load.
    SpatialSetup compareSpatial() const;
    QString pushCompare(const CompareConfig& next, const QString& text, const QString& mergeKey);
    CompareConfig m_compare;
    WorkbenchState* m_mirror = nullptr; ///< configuration B (compareState()), created on first use
    WorkbenchState* m_owner = nullptr;  ///< for B: configuration A's state
    bool m_syncing = false;             ///< A applying B's resolved set-up to B: B's setters then apply, not route
    QUndoStack* m_undo = nullptr;
    std::shared_ptr<const TrainedRuns> m_trained;
    SpatialSetup m_spatial;
};

} // namespace poslab::ui
