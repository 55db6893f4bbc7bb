// SPDX-License-Identifier: MIT
#pragma once
/// @file extensionview.h
/// The context-extension lab: for a rotary set-up, each pair's wavelength 2 pi / omega in tokens on a
/// log axis, before (rope_type default, same theta) and after the scheme's scaling, against the trained window T
/// and the inference length L (a draggable line: target_length); the method's bands shaded with their edges in
/// tokens (Llama 3: O/high_freq_factor and O/low_freq_factor; YaRN: O/beta_fast and O/beta_slow); the scale
/// omega_old / omega_new per pair for PI, NTK-aware, dynamic NTK, YaRN and Llama 3 at the same theta, factor and
/// window (or this scheme only: extension_methods); and for one pair (extension_pair) the arc of angles met in
/// training against the arc met at L on a circle, with the fraction that is new. Every number is core's
/// (core/extension.h through ExtensionFigure, ui/figures/extensionfigure.h); the view only draws.

#include "ui/figures/extensionfigure.h"
#include "ui/views/view.h"

#include <QRectF>

#include <optional>
#include <utility>

namespace poslab::ui {

class ExtensionView : public View {
    Q_OBJECT
public:
    ExtensionView(WorkbenchState* state, Computation* computation, QWidget* parent = nullptr);

    QSizeF minimumRoom() const override { return {16.0, 11.0}; }
    bool supports(const core::SchemeDescriptor& scheme) const override;
    /// The numbers drawn (tests read them); empty while the scheme has no extension table.
    const ExtensionData& data() const;
    /// The height of the inference-length line in the last on-screen paint (-1: not drawn): where a drag starts.
    double lengthMarkerY() const { return m_lengthY; }
    /// The pair under the on-screen point @p pos of either plot (-1: none). Clicking it selects it
    /// (extension_pair); hovering it shows its numbers.
    int pairAt(const QPointF& pos) const;
    /// The pair whose read-out the last hover shows (-1: none).
    int hoveredPair() const { return m_hoverPair; }
    /// The middle of pair @p pair's column in the wave plot, in widget coordinates (where hovering or clicking
    /// picks that pair); nullopt before the plot is drawn or for a pair it does not show.
    std::optional<QPointF> pairCentre(int pair) const;
    /// The pair spin box (-1 = automatic) and the typed inference length (0 = the positions) in the frame's header.
    QWidget* controls() override;
    /// The data ranges of the wavelength axis and of the scale axis (before rounding to decades): side by side,
    /// A and B draw on their union (sharedAxes()).
    std::vector<ValueRange> dataAxisRanges() const override;

protected:
    void renderContent(QPainter& painter, const QRectF& target) override;
    QString notApplicableReason() const override;
    bool needsRotation() const override { return true; }
    void resultChanged() override { recompute(); }
    /// Its figure is on its way: the table's new result does not redraw the old one (it redraws when it lands).
    bool awaitsOwnResult() const override { return m_figure.isPending(); }
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent* e) override;

private:
    void recompute();
    /// The inference length at the on-screen height @p y of the wavelength plot (drawn last on screen).
    double lengthAtY(double y) const;

    FigureTask<ExtensionFigure> m_figure; ///< computed off the UI thread in the window
    bool m_applicable = false;            ///< the scheme has an extension table: data() is the figure's
    // Geometry of the last on-screen paint (for dragging the L line).
    QRectF m_wavePlot;
    double m_logLo = 0.0, m_logHi = 1.0;
    QRectF m_scalePlot;
    double m_lengthY = -1.0;
    bool m_dragging = false;
    /// While the L line is dragged, the wavelength axis stays where the drag began (log10 of its ends), so the
    /// handle stays under the mouse; released, the axis fits the data again.
    std::optional<std::pair<double, double>> m_frozenAxis;
    int m_hoverPair = -1;
    QWidget* m_controls = nullptr;
};

} // namespace poslab::ui
