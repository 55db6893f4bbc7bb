// SPDX-License-Identifier: MIT
#pragma once
/// @file rotationview.h
/// RoPE rotation planes. Each selected pair is a small plane with the query (at position m, the
/// cursor) and the key (at n = m - distance) rotated by m*theta_i and n*theta_i, with their angle arcs; the
/// full score q'_m . k'_n is shown next to the score after shifting both positions by r, which is the same
/// (the relative-position property of RoFormer eq. 16). A strip shows which dimensions pair up under the
/// current layout (interleaved or half-split), which the header can switch.

#include "ui/figures/anglesfigure.h"
#include "ui/views/view.h"

#include <QColor>
#include <QRectF>

#include <optional>
#include <vector>

namespace poslab::ui {

class TextLayout;

class RotationView : public View {
    Q_OBJECT
public:
    RotationView(WorkbenchState* state, Computation* computation, QWidget* parent = nullptr);

    /// Lines of text (width, height) its plot and labels need; see View::minimumRoom().
    QSizeF minimumRoom() const override { return {14.0, 12.5}; }
    bool supports(const core::SchemeDescriptor& scheme) const override;
    QWidget* controls() override;

    /// Query and key positions drawn: m = cursor (+ shift), n = max(0, cursor - distance) (+ shift).
    std::pair<core::Position, core::Position> positions(bool shifted) const;
    /// The full score q'_m . k'_n (over every dimension, unscaled), with or without the shift r.
    double score(bool shifted) const;
    /// Pairs drawn as planes.
    std::vector<int> shownPairs() const;
    /// The header line: positions and m - n, saying so when the key would sit before position 0 and is held
    /// there (then m - n is less than the distance asked for), and xPos's centre.
    QString headerText() const;
    /// The header's note: the held key (when m - n is less than asked) and xPos's centre; longest first.
    QStringList headerNote() const;
    /// The pair dimension @p dim belongs to under the current layout (core::pairDims inverted); -1 for a
    /// dimension beyond the rotary part r, which passes through.
    int pairOfDim(int dim) const;
    /// The colour of dimension @p dim in the pairing strip: one colour per pair, so partners share it.
    QColor pairColour(int dim) const;
    /// The dimensions the pairing strip shows, in order; -1 marks a gap ("…") between the halves.
    std::vector<int> stripDims() const;
    /// The hover read-out for the pair under the mouse, computed from the current state (empty: none).
    QString hoverReadout() const;

protected:
    void renderContent(QPainter& painter, const QRectF& target) override;
    QString notApplicableReason() const override;
    void resultChanged() override;
    bool needsRotation() const override { return true; }
    void mouseMoveEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent* e) override;

private:
    struct Painter; ///< one paint of renderContent, in named parts
    /// The seeded q and k rotated at the shown positions (AnglesFigure::planes), with or without the shift.
    core::RotationPlanes planes(bool shifted) const;
    void drawLayoutStrip(QPainter& p, TextLayout& text, const QRectF& r, double s) const;

    core::RotarySpec m_qSpec;   ///< the query side's rotation (frequencies, layout, xPos centre)
    std::vector<int> m_dimPair; ///< dimension -> pair (-1 beyond r), from core::pairDims
    bool m_valid = false;
    /// The last planes() computed, for the result and positions they belong to: a paint asks for the same planes
    /// up to three times (both scores, then the drawing), and a hover read-out again.
    struct PlanesMemo {
        std::shared_ptr<const EncodingResult> result; ///< held, so that no later result can take its address
        core::Position m = -1, n = -1;
        core::RotationPlanes planes;
    };
    mutable PlanesMemo m_planesMemo[2];
    QWidget* m_controls = nullptr;
    std::vector<std::pair<QRectF, int>> m_cells; ///< plane cells of the last on-screen paint, with their pair
    std::optional<QPointF> m_hover;              ///< mouse position over the view
};

} // namespace poslab::ui
