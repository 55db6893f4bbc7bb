// SPDX-License-Identifier: MIT
#pragma once
/// @file tableview.h
/// View 1: the encoding table as a positions x dimensions heatmap (rows = positions, the cursor's row
/// highlighted). Rotary schemes show cos, sin or the angle of each pair. Diverging colours for signed
/// values, viridis or cividis otherwise, with a colour bar. Wheel zooms, drag pans, double-click resets;
/// hovering reads out position, dimension, exact value and that pair's wavelength.

#include "ui/render/colormap.h"
#include "ui/views/view.h"

#include <QPointF>
#include <optional>

class QComboBox;

namespace poslab::ui {

class TableView : public View {
    Q_OBJECT
public:
    TableView(WorkbenchState* state, Computation* computation, QWidget* parent = nullptr);

    QString title() const override { return tr("Encoding table"); }
    QString exportName() const override { return QStringLiteral("table"); }
    bool supports(const core::SchemeDescriptor& scheme) const override;
    QWidget* controls() override;

    /// The visible window in table coordinates: x = columns, y = positions.
    QRectF window() const { return m_window; }
    void setWindow(const QRectF& w);
    void resetZoom();
    /// The colour map in use for the current result (Auto resolved).
    ColorMapKind colorMapKind() const;
    /// Text of the hover read-out for table cell (row, column); empty when outside.
    QString readout(int row, int column) const;

protected:
    void renderContent(QPainter& painter, const QRectF& target) override;
    QString notApplicableReason() const override;
    void resultChanged() override;
    void wheelEvent(QWheelEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void mouseDoubleClickEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent* e) override;

private:
    struct Layout {
        QRectF plot, bar, title, footer;
        double scale = 1.0;
    };
    Layout layoutFor(const QRectF& target) const;
    ValueRange valueRange() const;
    void rebuildImage();
    std::optional<QPointF> toTable(const QPointF& widgetPos) const;

    QImage m_image;
    ColorMapKind m_imageMap = ColorMapKind::Viridis;
    QRectF m_window;
    std::optional<QPoint> m_hover;   ///< (column, row)
    std::optional<QPointF> m_dragFrom;
    QRectF m_dragWindow;
    QWidget* m_controls = nullptr;
    QComboBox* m_quantity = nullptr;
    QComboBox* m_map = nullptr;
};

} // namespace poslab::ui
