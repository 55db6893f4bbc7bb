// SPDX-License-Identifier: MIT
#pragma once
/// @file view.h
/// The base of every workbench view. A view observes the one WorkbenchState and the Computation's results;
/// it never calls another view. It draws itself onto any QPainter at any size through render(), which the
/// widget's paintEvent, the export service and the tests all use.

#include "ui/computation.h"
#include "ui/render/colormap.h"
#include "ui/render/theme.h"
#include "ui/workbenchstate.h"

#include <QImage>
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
    /// Holds the colour scale at @p range whatever the data, so that the frames of a GIF sweep share one
    /// scale; nullopt lets it follow the data again.
    void holdColourRange(std::optional<ValueRange> range)
    {
        m_heldRange = range;
        colourRangeChanged();
    }

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
    /// A new result arrived (m_result is set); recompute derived data here.
    virtual void resultChanged() {}
    /// The held colour range changed (holdColourRange): rebuild what depends on it.
    virtual void colourRangeChanged() { refresh(); }

    void paintEvent(QPaintEvent* event) override;
    /// Shows the full text of a label the layout cut ("…") under the mouse.
    bool event(QEvent* event) override;
    Theme theme() const { return m_state->theme(); }
    /// True while paintEvent draws (hover read-outs appear on screen only, not in exports).
    bool onScreen() const { return m_onScreen; }

    WorkbenchState* m_state;
    Computation* m_computation;
    std::shared_ptr<const EncodingResult> m_result;
    std::optional<ValueRange> m_heldRange; ///< see holdColourRange()

private:
    int m_refreshes = 0;
    bool m_onScreen = false;
    std::vector<std::pair<QRectF, QString>> m_elided; ///< cut labels on screen and their full text

};

} // namespace poslab::ui
