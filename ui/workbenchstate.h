// SPDX-License-Identifier: MIT
#pragma once
/// @file workbenchstate.h
/// The one state every view observes: scheme, its parameters, dimension, position range, position cursor,
/// animation time and view options. Views and controllers read it and call its setters; they never call
/// each other. Changes of the set-up (scheme, parameters, dimension, range) go through a QUndoStack.

#include "core/encodingregistry.h"
#include "ui/render/theme.h"

#include <QJsonObject>
#include <QObject>
#include <QString>

#include <map>
#include <string>

class QUndoStack;

namespace poslab::ui {

/// What the encoding table shows for a rotary scheme (additive schemes always show their encoding).
enum class TableQuantity { Cos, Sin, Angle };
/// Colour map choice; Auto picks diverging for signed data and viridis otherwise.
enum class ColorMapChoice { Auto, Viridis, Cividis, Diverging };
/// Content fed to the attention view.
enum class AttentionContent { Random, Constant, Sentence };

/// Options that only change how views draw, not what core computes (except the table quantity).
struct ViewOptions {
    TableQuantity tableQuantity = TableQuantity::Cos;
    ColorMapChoice colorMap = ColorMapChoice::Auto;
    bool pendulum = false;          ///< clock view: pendulums instead of clock hands
    QString clockPairs;             ///< clock view: "" = automatic, else e.g. "0-3,8,63"
    double speed = 2.0;             ///< animation speed in tokens per second
    int keyDistance = 3;            ///< rotation view: key position n = m - keyDistance
    /// rotation view: both positions shifted by r; non-zero by default, so "unchanged" is shown, not trivial
    int shift = 100;
    /// attention view: probabilities (true) or logits; logits by default, as `poslab compute scores` and
    /// `poslab export`: a rotary scheme's relative pattern shows in the logits, while softmax keeps mostly the
    /// diagonal
    bool softmax = false;
    bool causal = true;             ///< attention view: causal mask
    int head = 0;                   ///< attention view: which head
    int heads = 8;                  ///< attention view: number of heads
    /// attention view: constant content by default (random q, k hide the position pattern); each scheme
    /// opens with teachingContent() until the user picks a content
    AttentionContent content = AttentionContent::Constant;
    QString sentence = QStringLiteral("the cat sat on the mat because it was warm");
    int attentionSize = 512;        ///< attention view: queries = keys = this many positions
    /// attention view: one named part of the logits (Transformer-XL's terms, DeBERTa's c2p, CoPE's gates);
    /// empty shows the whole score
    QString term;
    ThemeKind theme = ThemeKind::Light;
    double fontScale = 1.0;         ///< lecture mode enlarges every view font
    bool operator==(const ViewOptions&) const = default;
};

/// The part of the state that undo/redo restores.
struct Setup {
    std::string scheme;
    core::ParamSet params;
    int dim = 128;
    int positionCount = 1024;
    bool operator==(const Setup&) const = default;
};

/// The content that shows @p scheme's position pattern in the attention view: constant q = k everywhere (the
/// logits then vary with position only), except CoPE, whose positions count content-gated keys, so constant
/// content would make it a plain relative scheme: it opens on the sentence.
AttentionContent teachingContent(const core::SchemeDescriptor& scheme);

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
    bool isRotary() const { return m_scheme->rotary != nullptr; }

    int cursor() const { return m_cursor; }
    double animationTime() const { return m_time; }
    bool isPlaying() const { return m_playing; }
    const ViewOptions& viewOptions() const { return m_options; }
    Theme theme() const { return Theme::of(m_options.theme, m_options.fontScale); }

    QUndoStack* undoStack() const { return m_undo; }

    /// Serialises everything but the undo history (sessions, lessons and batch export read this back).
    QJsonObject toJson() const;
    /// Restores a state written by toJson(); returns an error message, empty on success. Every size and index
    /// is checked against the limits of the setters and the CLI (dim, positions, heads, head, attention size,
    /// font scale, ...) before anything changes.
    QString fromJson(const QJsonObject& json);

    // --- setters of the set-up: validated, undoable. Each returns an empty string on success, otherwise
    // the message shown to the user (and emits refused()). Nothing is clamped.
    QString setScheme(const QString& id);
    /// @p mergeable: consecutive mergeable changes of one key collapse into one undo step (a slider drag).
    QString setParam(const QString& key, const core::ParamValue& value, bool mergeable = false);
    /// Parses @p text for @p key (the typed value of the panel) and sets it through core::resolveParams, the
    /// resolver of `poslab compute` and `poslab export`: a key that does not apply is refused the same way.
    QString setParamText(const QString& key, const QString& text, bool mergeable = false);
    QString resetParam(const QString& key);
    QString setDim(int dim);
    QString setPositionCount(int count);
    /// Applies a whole set-up (used by undo/redo and fromJson); no validation, no undo entry.
    void applySetup(const Setup& setup);

public slots:
    /// Moves the cursor (clamped to the range) and the animation time with it.
    void setCursor(int position);
    void stepCursor(int delta) { setCursor(m_cursor + delta); }
    void setAnimationTime(double t);
    void setPlaying(bool playing);
    void togglePlaying() { setPlaying(!m_playing); }
    void setViewOptions(const ViewOptions& options);

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
    /// A change was refused; @p message names the key and what is allowed.
    void refused(const QString& message);

private:
    QString pushSetup(Setup next, const QString& text, const QString& mergeKey);
    QString refuse(const QString& message);

    Setup m_setup;
    const core::SchemeDescriptor* m_scheme = nullptr;
    std::map<std::string, core::ParamSet> m_remembered; ///< last parameters per scheme
    int m_cursor = teachingCursor;
    double m_time = teachingCursor;
    bool m_playing = false;
    ViewOptions m_options;
    bool m_contentChosen = false; ///< the user picked an attention content: scheme changes keep it
    QUndoStack* m_undo = nullptr;
};

} // namespace poslab::ui
