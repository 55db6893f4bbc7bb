// SPDX-License-Identifier: MIT
#pragma once
/// @file view.h
/// The base of every workbench view. A view observes the one WorkbenchState and the Computation's results;
/// it never calls another view. It draws itself onto any QPainter at any size through render(), which the
/// widget's paintEvent, the export service and the tests all use.

#include "ui/figures/computation.h"
#include "ui/render/colormap.h"
#include "ui/render/theme.h"
#include "ui/state/workbenchstate.h"

#include <QImage>
#include <QJsonArray>
#include <QWidget>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

class QPainter;

namespace poslab::ui {

class View : public QWidget {
    Q_OBJECT
public:
    View(WorkbenchState* state, Computation* computation, QWidget* parent = nullptr);

    /// Title shown in the view's frame ("Encoding table"), from the view registry (viewlist.h).
    QString title() const;
    /// Name used by export and the command line ("table", "clock", "decay", "rotation", "attention"), from the
    /// view registry (viewlist.h).
    QString exportName() const;
    /// True when the view has something to show for @p scheme.
    virtual bool supports(const core::SchemeDescriptor& scheme) const = 0;
    bool isApplicable() const { return supports(m_state->scheme()); }
    /// Controls placed in the frame's header (may be null). Created once, owned by the view.
    virtual QWidget* controls() { return nullptr; }

    /// Draws the whole view into @p target (any painter: widget, QImage, SVG, PDF). Shows the
    /// not-applicable state when the scheme does not apply.
    virtual void render(QPainter& painter, const QRectF& target);
    /// render() into a new image of @p size (device-independent pixels) at @p dpr.
    QImage renderImage(QSize size, qreal dpr = 1.0);

    /// Heatmap views: the range their colour scale takes from the current data (ignoring a held range);
    /// nullopt for views without a colour scale.
    virtual std::optional<ValueRange> dataColourRange() const { return std::nullopt; }
    /// Curve views: the data ranges of the value axes they draw (the extension view's wavelength and scale
    /// axes), for the halves of A | B to share; empty for views whose axes are not shared.
    virtual std::vector<ValueRange> dataAxisRanges() const { return {}; }
    /// What the colour scale and the value axes measure ("attention logits", "attention softmax", "table cos"):
    /// A and B share their ranges side by side only when they measure the same (a softmax beside logits keeps
    /// its own 0..1 scale).
    virtual QString rangeQuantity() const { return exportName(); }
    /// Side by side with shared ranges: the union of A's and B's dataAxisRanges(), one per axis, that both halves
    /// draw on; empty when each half fits its own data (independent_ranges, other quantities, no compare).
    const std::vector<ValueRange>& sharedAxes() const { return m_sharedAxes; }
    /// True while this view (A's or B's half) takes its colour scale and axes from both halves.
    bool sharesRanges() const { return m_sharedRange || !m_sharedAxes.empty(); }
    /// Bytes of the raster images the view embeds when it is drawn into an SVG of logical size @p size (the
    /// table's heatmap at twice its plot's size); 0 when it embeds none. The export refuses a figure whose
    /// images would be over its raster cap before drawing it.
    virtual double svgImageBytes(const QSizeF& size) const
    {
        (void)size;
        return 0.0;
    }
    /// Why the view's own numbers could not be computed (a request over the work limit), or empty: an export
    /// refuses with it rather than writing a figure of the message.
    virtual QString computeError() const { return {}; }
    /// The scheme an export's title and description name when the view draws one of its own (the spatial views:
    /// the spatial set-up's scheme, apart from the 1-D one): {title label, description line}; empty for the
    /// views that draw the state's 1-D scheme.
    virtual std::pair<QString, QString> ownScheme() const { return {}; }
    /// True when computeError() is a request refused for its size (a work limit: exit 1, as core::RefusedError),
    /// false when it is bad input that the view's data export refuses as a usage error (exit 2).
    virtual bool computeRefused() const { return true; }
    /// Holds the colour scale at @p range whatever the data, so that the frames of a GIF sweep share one
    /// scale; nullopt lets it follow the data again.
    void holdColourRange(std::optional<ValueRange> range)
    {
        m_sharedRange = false;
        m_heldRange = range;
        colourRangeChanged();
    }

    /// The colour range held over the data (a sweep's, or A's and B's together side by side); nullopt: the data's.
    std::optional<ValueRange> heldColourRange() const { return m_heldRange; }

    // --- compare mode
    /// The same view of configuration B (the state's compareState(), with B's own computation), created on first
    /// use; nullptr for a view that shows B itself.
    View* compareTwin();
    /// The latest encoding result the view draws (B's for a twin).
    std::shared_ptr<const EncodingResult> currentResult() const { return m_result; }
    /// True when this view shows A and B in halves, A left and B right: side by side, or a mode the view does
    /// not draw itself (with a one-line note saying so).
    bool showsHalves() const;
    /// The part of the widget this view's own drawing takes on screen: the whole widget, or the left half
    /// while showsHalves() (mouse read-outs map through it).
    QRectF contentArea() const;
    /// While showsHalves(): the part of the widget B's half (compareTwin()) is drawn in; the mouse over it moves
    /// the twin's hover, so B's read-outs name B's values. Empty otherwise.
    QRectF twinArea() const;
    /// The one line a view shows where it cannot draw the compare mode itself ("overlay: curve views only; A
    /// and B are shown side by side"), empty where it draws the mode (or compare is off).
    QString compareNote() const;

    /// How many times the view took in a change (tests and the benchmark read it).
    int refreshCount() const { return m_refreshes; }
    /// Schedules a repaint and emits refreshed().
    void refresh();

    /// For a rotary scheme whose current set-up rotates nothing (an iRoPE NoPE layer): why, and what applies
    /// there instead (the attention temperature at the cursor). Empty when the set-up rotates.
    QString noRotationReason() const;
    /// One line for views that still draw on such a layer (attention): "layer 3: NoPE, no rotation · ...".
    QString noRotationSummary() const;

    /// True when @p size holds minimumRoom() at font scale @p fontScale (presentation mode picks its scale so).
    bool hasRoomAt(const QSizeF& size, double fontScale) const;
    /// hasRoomAt() for the whole view at @p size: while it shows A | B (showsHalves()), each half, below the
    /// compare note, must have room.
    bool wholeHasRoomAt(const QSizeF& size, double fontScale) const;

    /// What render() draws into a target of @p size (one half of A | B is the view itself at half the width):
    /// the content, or which of the notices instead.
    enum class DrawState { Drawn, NotApplicable, CannotCompute, NoRotation, NoDifference, TooSmall };
    DrawState drawState(const QSizeF& size) const;
    /// "drawn", "not applicable", "cannot compute", "no rotation", "difference not drawn", "too small".
    static QString drawStateName(DrawState state);
    /// Every view shown on screen under @p top (grid, tab or slide): {"view", "title", "width", "height", "state"}
    /// and, for A | B, "halves": true with "state_b" (each half at its size). `poslab --screenshot FILE` writes it
    /// as FILE.json so that a script can check a layout.
    static QJsonArray visibleViewReport(const QWidget* top);

    QSize sizeHint() const override { return {520, 380}; }
    QSize minimumSizeHint() const override { return {200, 150}; }

signals:
    /// The view took in new state or a new result and scheduled a repaint.
    void refreshed();

protected:
    /// Draws the content when applicable.
    virtual void renderContent(QPainter& painter, const QRectF& target) = 0;
    /// One sentence saying why the current scheme has nothing to show here.
    virtual QString notApplicableReason() const;
    /// True for views that draw rotations only (table, clock, rotation planes, decay of a rotary scheme): on a
    /// layer without rotation they show noRotationReason() instead of an empty plot.
    virtual bool needsRotation() const { return false; }
    /// The smallest area, in lines of body text (width, height), in which the view's drawing and its labels fit
    /// without the graphics running into the text. Below it the view says so instead of drawing (a view at font
    /// scale 2 in a quarter of a 1366 x 768 window).
    virtual QSizeF minimumRoom() const { return {13.0, 8.5}; }
    /// True when @p size holds minimumRoom() at the current font scale.
    bool hasRoom(const QSizeF& size) const;
    /// One line of body text, in pixels, for a view drawn at @p size.
    double roomUnit(const QSizeF& size) const;
    /// What to do when there is too little room: maximise, hide the panels, or smaller text.
    QString tooSmallReason() const;
    /// True when the content can be drawn: applicable, computed without error, and something to rotate.
    bool hasContent() const;
    /// True for views that draw the compare mode @p mode themselves (overlay of curves, a difference heatmap);
    /// every other mode, and side by side always, is drawn by render() as A | B.
    virtual bool drawsCompare(CompareMode) const { return false; }
    /// Why the view does not draw @p mode (overlay or difference) itself; the default names what does.
    virtual QString compareNoteFor(CompareMode mode) const;
    /// The state or B's set-up changed in a way that changes the compare drawing: recompute derived data here.
    virtual void compareChanged() { refresh(); }
    /// Why the current compare mode cannot be drawn here (e.g. a difference of unlike data), one line; the view
    /// then shows it instead of a drawing. Empty when it can.
    virtual QString compareProblem() const { return {}; }
    /// Draws B's half (the twin) into @p target, on screen when this view is (the twin's wording follows).
    void renderTwin(QPainter& painter, const QRectF& target);
    /// True while the colour scale is the range shared with B (side by side); with Auto colours the views then
    /// take the diverging map when the shared range spans 0, so one colour means one value in both halves.
    bool sharesCompareRange() const { return m_sharedRange && m_heldRange.has_value(); }
    /// Draws the view without compare halves (applicable, error, room checks, then renderContent()).
    void renderSingle(QPainter& painter, const QRectF& target);
    /// A new result arrived (m_result is set); recompute derived data here.
    virtual void resultChanged() { }
    /// True for a view drawn from a result of its own that is on its way (the attention scores): the table's
    /// new result then does not redraw it. Its figure is its own result's alone, so that paint would draw the
    /// old figure again; the view redraws once when its own result lands.
    virtual bool awaitsOwnResult() const { return false; }
    /// True for views whose numbers are their own, not the 1-D set-up's result (patch grid, sequence): an error
    /// of that result is not theirs to show.
    virtual bool ownsNumbers() const { return false; }
    /// What refresh() marks for repainting: the whole widget. A view drawn by child widgets that repaint themselves
    /// when their content changes (the decay view's chart and labels) marks only what it paints itself.
    virtual void scheduleRepaint() { update(); }
    /// The held colour range changed (holdColourRange): rebuild what depends on it.
    virtual void colourRangeChanged() { refresh(); }
    /// sharedAxes() changed: a view that lays its axes out ahead of painting (the decay view's chart) fits them again.
    virtual void sharedAxesChanged() { }

    void paintEvent(QPaintEvent* event) override;
    /// Shows the full text of a label the layout cut ("…") under the mouse.
    bool event(QEvent* event) override;
    /// A render() for views that draw one set-up whatever compare mode shows (families, length lab, patch grid,
    /// sequence): clipped and antialiased, "Too small" when the target has no room, else renderContent().
    void renderAlone(QPainter& painter, const QRectF& target);
    Theme theme() const { return m_state->theme(); }
    /// True while paintEvent draws (hover read-outs appear on screen only, not in exports).
    bool onScreen() const { return m_onScreen; }
    /// True while paintEvent draws and the view option clean_slide is off: hover hints, hover read-outs and
    /// cursor tags appear then only (a clean slide shows the figure alone, as an export does).
    bool showsHints() const;
    /// The rule for hover read-outs while a guess is due (Predict, then see). While a lesson step waits
    /// for its guess (WorkbenchState::answerPending()), a hover read-out still says where the pointer is (position
    /// and dimension, query and key, pair, curve and distance) but shows none of the values there, since any of
    /// them may answer the prediction; committing the guess, or leaving the step, brings them back. Every view that
    /// draws a hover read-out builds it through withheldReadout() or readoutValue(). A step's `hide` (FORMAT.md)
    /// states a finer rule for the position ids the sequence view prints, which are where a token is.
    bool withholdsReadoutValues() const { return m_state->answerPending(); }
    /// The read-out @p where ("p = 3  ·  dim 5") followed by "values after your guess"; for a read-out of several
    /// values while withholdsReadoutValues().
    QString withheldReadout(const QString& where) const;
    /// @p value, or "after your guess" in its place while withholdsReadoutValues(); for a read-out that names
    /// one value in its sentence ("k = 12 tokens,  value after your guess").
    QString readoutValue(const QString& value) const;
    /// True while paintEvent draws with @p p on a raster device, moved at most: where an on-screen cache (an image
    /// or pixmap drawn once and copied) gives the same pixels. Exports and scaled or rotated painters draw directly.
    bool cachesOnScreen(const QPainter& p) const;

    WorkbenchState* m_state;
    Computation* m_computation;
    std::shared_ptr<const EncodingResult> m_result;
    std::optional<ValueRange> m_heldRange; ///< see holdColourRange()

private:
    int m_refreshes = 0;
    bool m_onScreen = false;
    std::unique_ptr<View> m_twin;         ///< compareTwin()
    bool m_sharedRange = false;           ///< m_heldRange is the range shared with B (not a sweep's)
    std::vector<ValueRange> m_sharedAxes; ///< sharedAxes()
    bool m_twinHovered = false;           ///< the mouse is over B's half: the twin has had a move and gets a leave
    /// Side by side: both halves' colour scales take the union of A's and B's data ranges.
    void shareCompareRange();
    std::vector<std::pair<QRectF, QString>> m_elided; ///< cut labels on screen and their full text
};

} // namespace poslab::ui
