// SPDX-License-Identifier: MIT
#pragma once
/// @file viewproperties.h
/// The view options of the workbench state and their property table. Every view option (a computation input
/// such as the attention view's heads, or a cosmetic such as the colour map) is one named, typed, ranged
/// property here; serialisation (sessions, share strings, batch entries), undo, animation sweeps, the export
/// dialog and the command line all enumerate this one table instead of listing the knobs by hand.

#include "core/precision.h"
#include "ui/render/theme.h"

#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <QVariant>

#include <functional>
#include <vector>

namespace poslab::ui {

/// What the encoding table shows for a rotary scheme (additive schemes always show their encoding).
enum class TableQuantity { Cos, Sin, Angle };
/// Colour map choice; Auto picks diverging for signed data and viridis otherwise.
enum class ColorMapChoice { Auto, Viridis, Cividis, Diverging };
/// Content fed to the attention view.
enum class AttentionContent { Random, Constant, Sentence };
/// What the attention view shows: the scheme's pattern (core's attention engine) or a model trained in the window.
enum class AttentionSource { Scheme, Trained };
/// Which scale curves the extension view draws: every method at the scheme's theta, factor and window, or only
/// the scheme's own.
enum class ExtensionMethods { All, Scheme };

/// What the pipeline view shows: the stages of one attention layer, or the NoPE demonstrations.
enum class PipelineMode { Stages, Nope };
/// lengthlab view: what it plots against the test length (core::train::LengthMetric's order).
enum class LengthMetricChoice { ExactMatch, TokenAccuracy, Loss };

/// The values of every view option. Read it through WorkbenchState::viewOptions(); change it through
/// WorkbenchState::setViewOptions() or setProperty() (both undoable).
struct ViewOptions {
    TableQuantity tableQuantity = TableQuantity::Cos;
    ColorMapChoice colorMap = ColorMapChoice::Auto;
    bool pendulum = false; ///< clock view: pendulums instead of clock hands
    QString clockPairs;    ///< clock view: "" = automatic, else e.g. "0-3,8,63"
    double speed = 2.0;    ///< animation speed in tokens per second
    int keyDistance = 3;   ///< rotation view: key position n = m - keyDistance
    /// rotation view: both positions shifted by r; non-zero by default, so "unchanged" is shown, not trivial
    int shift = 100;
    /// attention view: probabilities (true) or logits; logits by default, as `poslab compute scores` and
    /// `poslab export`: a rotary scheme's relative pattern shows in the logits, while softmax keeps mostly the
    /// diagonal
    bool softmax = false;
    bool causal = true; ///< attention view: causal mask
    int head = 0;       ///< attention view: which head
    int heads = 8;      ///< attention view: number of heads
    /// attention view: constant content by default (random q, k hide the position pattern); each scheme
    /// opens with teachingContent() until the user picks a content
    AttentionContent content = AttentionContent::Constant;
    QString sentence = QStringLiteral("the cat sat on the mat because it was warm");
    int attentionSize = 512; ///< attention view: queries = keys = this many positions
    /// attention view: one named part of the logits (Transformer-XL's terms, DeBERTa's c2p, CoPE's gates);
    /// empty shows the whole score
    QString term;
    // --- extension view (context-extension lab) ---
    /// the pair whose seen and unseen arcs the circle shows; -1: the fastest pair that never turns in training
    int extensionPair = -1;
    ExtensionMethods extensionMethods = ExtensionMethods::All; ///< the scale panel's curves
    /// inference length L (also dynamic NTK's and LongRoPE's sequence length); 0: the state's positions
    int targetLength = 0;
    /// trained window T for schemes whose parameters name none (default, linear, ntk, xPos); 0: the model's
    /// (a preset's trained_length), else L / factor or L
    int trainedLength = 0;
    /// precision view: the format whose rounding it emulates (bfloat16, the dtype of today's checkpoints)
    core::FloatFormat dtype = core::FloatFormat::BFloat16;
    /// precision view: which pipeline forms the rounded angle (core/precision.h)
    core::AnglePipeline anglePipeline = core::AnglePipeline::LowPrecision;
    // --- pipeline view (its sentence, mask and heads are the attention view's: sentence, causal, heads, head)
    PipelineMode pipelineMode = PipelineMode::Stages; ///< pipeline view: the stages, or the NoPE demonstrations
    int pipelinePair = 0;   ///< pipeline view: the rotation pair drawn in the added-vs-rotated plane
    int nopePositions = 32; ///< pipeline view, NoPE mode: positions of the causal-mask (1/(i+1)) plot
    // --- lengthlab view (length-generalisation lab)
    QString runFile; ///< lengthlab view: the run file (poslab train -o FILE) it draws; empty: none
    LengthMetricChoice lengthMetric = LengthMetricChoice::ExactMatch; ///< lengthlab view: the plotted measure
    // --- attention view, a model trained in the window (the lengthlab view's Train; WorkbenchState::trainedRuns)
    AttentionSource attentionSource
        = AttentionSource::Scheme; ///< attention view: the scheme's pattern or a trained model
    int trainedRun = 0;            ///< attention view, trained source: which of the window's runs (0-based)
    int trainedLayer = 0;          ///< attention view, trained source: the layer (0-based)
    int trainedTestLength = 0;     ///< attention view, trained source: the task length of the sequence; 0: 3 x L_train
    ThemeKind theme = ThemeKind::Light;
    double fontScale = 1.0; ///< lecture mode enlarges every view font
    /// compare side by side: A and B each on their own colour range and axes (false: one range for both halves
    /// when they plot the same quantity, so one colour or height means one value)
    bool independentRanges = false;
    /// a clean slide: every view leaves out the table's aliasing note, hover hints and read-outs, and cursor tags
    bool cleanSlide = false;
    bool operator==(const ViewOptions&) const = default;
};

enum class PropertyKind { Integer, Real, Bool, Choice, Text };

/// One view option: its name (the key in state files, share strings and batch entries, the word of
/// `poslab export --view NAME=VALUE` and of `--animate NAME`), its type and range, and how to read and write it.
struct ViewProperty {
    QString name;
    PropertyKind kind = PropertyKind::Integer;
    QString label;               ///< "key distance (rotation view)": menus and the export dialog
    QString doc;                 ///< one sentence for help texts
    double minimum = 0.0;        ///< Integer, Real: inclusive range; Text: minimum length
    double maximum = 0.0;        ///< Integer, Real: inclusive range; Text: maximum length
    QStringList words;           ///< Choice: the words, in the enum's order
    bool animatable = false;     ///< a GIF sweep may animate it (numbers only)
    bool attentionInput = false; ///< an input of the attention computation (a change recomputes the scores)
    /// Reads the value: int for Integer and Choice (the enum's index), double, bool or QString.
    std::function<QVariant(const ViewOptions&)> get;
    /// Writes a value of the type get() returns (already checked).
    std::function<void(ViewOptions&, const QVariant&)> set;
};

/// Every view option, in the order help texts list them.
const std::vector<ViewProperty>& viewProperties();
/// The property called @p name, or nullptr.
const ViewProperty* findViewProperty(const QString& name);
/// "table_quantity, colormap, ..." for messages.
QString viewPropertyNames();

/// Converts @p value (a JSON value: a number, a bool, a string; a Choice also takes its word or, as state
/// files of version 1 wrote it, the enum's index) to the type of @p property and checks its range. Returns an
/// empty string and sets @p out, or one line naming the property, the value and what is allowed.
QString convertProperty(const ViewProperty& property, const QJsonValue& value, QVariant* out);
/// As convertProperty for the text a person types (`--view heads=4`, "dark", "true", "0.5").
QString parseProperty(const ViewProperty& property, const QString& text, QVariant* out);
/// The JSON form of the property's value in @p options (Choice as its word).
QJsonValue propertyJson(const ViewProperty& property, const ViewOptions& options);
/// The text form (what parseProperty reads back): "dark", "true", "4", "0.5".
QString propertyText(const ViewProperty& property, const ViewOptions& options);

/// Empty when every option of @p options is in its range and the options agree with each other (head below
/// heads); else one line naming the first problem. The state refuses options that fail this.
QString checkViewOptions(const ViewOptions& options);
/// The names of the properties whose values differ between @p a and @p b.
QStringList changedProperties(const ViewOptions& a, const ViewOptions& b);

} // namespace poslab::ui
