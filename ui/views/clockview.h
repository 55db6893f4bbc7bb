// SPDX-License-Identifier: MIT
#pragma once
/// @file clockview.h
/// Clock hands (or pendulums), one per dimension pair, turning with the position: pair i's hand
/// stands at angle p * omega_i (clockwise from twelve o'clock), so sin and cos of the encoding are the
/// hand's x and y. Each hand is labelled with its period 2*pi/omega_i in tokens, from the fastest
/// ("second hand") to the slowest ("hour hand").

#include "ui/figures/anglesfigure.h"
#include "ui/views/view.h"

#include <QColor>
#include <QPixmap>
#include <QRectF>

#include <optional>
#include <vector>

class QComboBox;
class QLineEdit;
class QToolButton;
class QDoubleSpinBox;

namespace poslab::ui {

class TextLayout;

class ClockView : public View {
    Q_OBJECT
public:
    ClockView(WorkbenchState* state, Computation* computation, QWidget* parent = nullptr);

    /// Lines of text (width, height) its plot and labels need; see View::minimumRoom().
    QSizeF minimumRoom() const override { return {12.0, 8.5}; }
    bool supports(const core::SchemeDescriptor& scheme) const override;
    QWidget* controls() override;

    /// The pairs drawn: parsed from the options ("0-3,8"), or up to 8 spread from fastest to slowest.
    std::vector<int> shownPairs() const;
    /// Parses a pair list such as "0-3,8,63" for @p pairs pairs; returns an error message or empty.
    static QString parsePairs(const QString& text, int pairs, std::vector<int>* out);
    /// The hover read-out for the hand under the mouse, computed from the current state (empty: none).
    QString hoverReadout() const;

protected:
    void renderContent(QPainter& painter, const QRectF& target) override;
    QString notApplicableReason() const override;
    bool needsRotation() const override { return true; }
    void mouseMoveEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent* e) override;

private:
    /// The dial of one clock: face and twelve ticks (cached on screen, see the definition).
    void drawDial(QPainter& p, QPointF centre, double radius, double scale, const Theme& theme);
    // The parts of renderContent, in the order drawn.
    struct Grid;
    /// The header: the scheme, the position and the angle's rule; returns the y below it.
    double drawClockHeader(TextLayout& text, const QRectF& target, const Theme& theme, double scale, double time) const;
    /// The bottom line (the hover read-out or its hint) below the clocks; returns the clocks' area.
    QRectF drawHoverLine(TextLayout& text, const QRectF& target, double headerBottom, const Theme& theme, double scale);
    /// The grid of clocks in @p area for @p pairs, and the wordings their labels take.
    Grid layOut(const QRectF& area, const std::vector<int>& pairs, const Theme& theme, double scale) const;
    /// The names' and periods' wording levels and the periods' lines for the grid's cells.
    void chooseWordings(Grid& grid, const std::vector<int>& pairs) const;
    /// One clock: its dial, the swept sector and the hand at @p angle.
    void drawClockHand(QPainter& p, QPointF centre, double radius, double scale, const Theme& theme, double angle);
    /// One pendulum swung by @p sine of its angle.
    static void drawPendulum(QPainter& p, QPointF centre, double radius, double scale, const Theme& theme, double sine);
    /// The k-th clock's name and period under it.
    void drawCellLabels(TextLayout& text, const Grid& grid, const ClockHands& hands, int k, const QRectF& cell,
                        QPointF centre, double scale, const Theme& theme) const;
    struct DialKey {
        double radius, scale, dpr, x, y;
        QRgb grid, panel, muted;
        bool operator==(const DialKey&) const = default;
    };
    std::vector<std::pair<DialKey, QPixmap>> m_dials; ///< on-screen dials drawn so far
    QWidget* m_controls = nullptr;
    std::vector<std::pair<QRectF, int>> m_cells; ///< hand cells of the last on-screen paint, with their pair
    std::optional<QPointF> m_hover;              ///< mouse position over the view
};

} // namespace poslab::ui
