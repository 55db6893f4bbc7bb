// SPDX-License-Identifier: MIT
#pragma once
/// @file tableview.h
/// The encoding table as a positions x dimensions heatmap (rows = positions, the cursor's row
/// highlighted). Rotary schemes show cos, sin or the angle of each pair. Diverging colours for signed
/// values, viridis or cividis otherwise, with a colour bar. Wheel zooms, drag pans, double-click resets;
/// hovering reads out position, dimension, exact value and that pair's wavelength.
/// Large tables (more than TableFigure::fullTableCells cells, e.g. 65536 x 4096) arrive as every k-th
/// position of the visible window; the view says so on the plot, asks the Computation for the window it
/// shows whenever it zooms, pans or resizes, and computes hovered values of skipped positions with core.

#include "ui/render/colormap.h"
#include "ui/render/plotutils.h"
#include "ui/views/view.h"

#include <QPointF>
#include <optional>

class QComboBox;

namespace poslab::ui {

class TableView : public View {
    Q_OBJECT
public:
    TableView(WorkbenchState* state, Computation* computation, QWidget* parent = nullptr);

    /// Lines of text (width, height) its plot and labels need; see View::minimumRoom().
    QSizeF minimumRoom() const override { return {13.0, 10.0}; }
    /// The heatmap resampled to twice the plot's size (32-bit pixels) when the visible cells are too many for
    /// vector rectangles.
    double svgImageBytes(const QSizeF& size) const override;
    bool supports(const core::SchemeDescriptor& scheme) const override;
    QWidget* controls() override;

    /// The visible window in full-table coordinates: x = columns, y = positions.
    QRectF window() const { return m_window; }
    void setWindow(const QRectF& w);
    /// The hovered cell as (column, row) of the full table; nullopt when the mouse is over none.
    std::optional<QPoint> hoveredCell() const { return m_hover; }
    /// The centre of cell (@p row, @p column) of the full table in widget coordinates; nullopt when it lies
    /// outside the window shown (zoom in or pan to it first).
    std::optional<QPointF> cellCentre(int row, int column) const;
    void resetZoom();
    /// The colour map in use for the current result (Auto resolved).
    ColorMapKind colorMapKind() const;
    /// Text of the hover read-out for position @p row, column @p column of the full table (exact, also
    /// for positions a sampled table skips); empty when outside.
    QString readout(int row, int column) const;
    std::optional<ValueRange> dataColourRange() const override;
    /// "table cos", "table sin" or "table angle": A and B share a colour scale only for the same quantity.
    QString rangeQuantity() const override
    {
        return QStringLiteral("table %1").arg(int(m_state->viewOptions().tableQuantity));
    }
    /// The note shown on the plot while the table is sampled ("showing every 64th position; ..."), empty
    /// when every position of the window is there.
    QString samplingNote() const;
    /// The aliasing note for the visible window drawn on @p pixelRows device pixel rows: when a pixel row
    /// stands for more than one position it says so, and when a column turns within four pixel rows (at or
    /// past the display's Nyquist limit of two, where resampled stripes turn to moire) it names those columns
    /// on a second line after a '\n'; empty when every position has its pixel row and nothing aliases. The window and every export
    /// draw it (export renders the same view).
    QString aliasingNote(double pixelRows) const;
    /// xPos only: the line naming torchscale's centre c of the scale zeta^((p - c)/scale_base); else empty.
    QString xposNote() const;

protected:
    void renderContent(QPainter& painter, const QRectF& target) override;
    QString notApplicableReason() const override;
    bool needsRotation() const override { return m_state->isRotary(); }
    void resultChanged() override;
    void wheelEvent(QWheelEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void colourRangeChanged() override { rebuildImage(); }
    bool drawsCompare(CompareMode mode) const override { return mode == CompareMode::Difference; }
    void compareChanged() override;
    QString compareProblem() const override { return m_showDiff ? QString() : m_compareProblem; }

private:
    struct Painter; ///< one paint of renderContent, in named parts
    struct Layout {
        QRectF plot, bar, title, subtitle, footer;
        QRectF note; ///< the aliasing note's line, under the axes and off the data; empty when none (or a clean slide)
        double scale = 1.0;
    };
    Layout layoutFor(const QRectF& target) const;
    /// How the visible window maps onto @p pixelRows device pixel rows (aliasingNote() words it).
    struct Aliasing {
        double rows = 0, pixelRows = 0, perPixel = 1; ///< positions shown, pixel rows, positions per pixel row
        bool squeezed = false;                        ///< more positions than pixel rows
        int fast = 0, last = -1, columns = 0;         ///< pairs turning within 4 pixel rows, the last of them, all
    };
    Aliasing aliasing(double pixelRows) const;
    /// The header: the variant, the quantity, the table's shape.
    HeaderTexts headerTexts() const;
    ValueRange valueRange() const;
    void rebuildImage();
    std::optional<QPointF> toTable(const QPointF& widgetPos) const;
    /// The full table's extent: (0, 0, columns, positions).
    QRectF fullRect() const;
    /// Tells the Computation which rows are visible and at what resolution.
    void requestWindow();

    QImage m_image;
    ColorMapKind m_imageMap = ColorMapKind::Viridis;
    QRectF m_window;
    QSize m_fullSize;              ///< columns x positions of the result m_window belongs to
    std::optional<QPoint> m_hover; ///< (column, row)
    std::optional<QPointF> m_dragFrom;
    QRectF m_dragWindow;
    QWidget* m_controls = nullptr;
    QComboBox* m_quantity = nullptr;
    QComboBox* m_map = nullptr;
    // compare mode, difference: A's table minus B's, cell by cell (Computation::difference)
    bool differenceMode() const;
    bool m_showDiff = false;
    core::MatrixF m_diff;
    ValueRange m_diffRange;
    QString m_compareProblem;
};

} // namespace poslab::ui
