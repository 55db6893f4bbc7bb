// SPDX-License-Identifier: MIT
#pragma once
/// @file patchgridview.h
/// The patch grid view: the image as a grid of patches and, for the selected patch, its similarity to
/// every other patch as a heatmap over the grid (the cosine of the position vectors for the tables vit_learned and
/// sincos_2d; the score with constant content for the 2-D rotations rope_2d and pixtral_rope); beside it the patch
/// at the same place of the larger grid of the resolution change (a 14 x 14 table resized to 24 x 24, a rotation
/// computed further out), and the small multiples of ViT's Figure 7: every patch's own map at its place. The
/// numbers are PatchGridFigure's (spatialfigures.h), from core's spatial table; the view only draws them. Click a
/// patch, or move with the arrow keys, to select it (the spatial set-up's patch, undoable).

#include "ui/render/plotutils.h"
#include "ui/figures/spatialfigures.h"
#include "ui/views/view.h"

class QComboBox;

namespace poslab::ui {

class PatchGridView : public View {
    Q_OBJECT
public:
    PatchGridView(WorkbenchState* state, Computation* computation, QWidget* parent = nullptr);

    /// The spatial set-up is the window's own, apart from the 1-D scheme: every 1-D scheme leaves it drawable.
    bool supports(const core::SchemeDescriptor&) const override { return true; }
    QSizeF minimumRoom() const override { return {18.0, 9.0}; }
    QWidget* controls() override;
    /// Alone, or A | B while comparing (B's half from B's spatial set-up, on one colour scale unless
    /// independent_ranges is on).
    void render(QPainter& painter, const QRectF& target) override;
    std::optional<ValueRange> dataColourRange() const override;
    /// Cosines and scores are not one quantity: a table beside a rotation keeps its own scale.
    QString rangeQuantity() const override;
    /// The read-out of @p patch: its place and its similarity to the selected patch ("B · " first in B's half);
    /// empty outside the grid.
    QString readout(int patch) const;
    /// The patch under the mouse in this view's drawing (B's half: in the twin), or -1.
    int hoveredPatch(bool sideB = false) const;
    /// The read-out of the patch under the mouse, A's or B's half; empty when none is.
    QString hoverReadout() const;
    /// The data drawn (recomputed whenever the spatial set-up changes).
    const PatchGridData& data() const { return m_data; }
    /// A refused set-up (a scheme of the other view, a bad parameter) refuses the export as its data export does.
    QString computeError() const override { return m_data.error; }
    bool computeRefused() const override { return m_data.refused; }
    /// The spatial scheme it draws, not the 1-D one (spatialSchemeLabel, spatialSummary).
    std::pair<QString, QString> ownScheme() const override;

    /// Where a render into @p target puts each part.
    struct Layout {
        QRectF header;
        QRectF grid;          ///< the selected patch's map on the set-up's grid
        QRectF large;         ///< its map on the larger grid
        QRectF multiples;     ///< every patch's map at its place (ViT Figure 7)
        QRectF bar;           ///< the colour bar
        double cell = 0;      ///< side of one patch in grid
        double smallCell = 0; ///< side of one patch inside one small map of multiples
        double smallGap = 0;  ///< the gap between two small maps
    };
    Layout layoutFor(const QRectF& target) const;
    /// The patch (row-major index) under @p pos in a render into @p target (the grid or the small multiples), or -1.
    int patchAt(const QRectF& target, const QPointF& pos) const;

protected:
    void renderContent(QPainter& painter, const QRectF& target) override;
    bool ownsNumbers() const override { return true; }
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    /// The arrow keys move the selected patch while the view has the focus, before the window's shortcuts (the
    /// cursor's Left / Right) take them.
    bool event(QEvent* event) override;

private:
    /// Asks for the figure of the spatial set-up now (takeData() when it is there).
    void takeSpatial();
    /// The figure's new data delivered: drawn from now on, the scheme box following it; @p later: after
    /// takeSpatial() (a worker's), so the view repaints.
    void takeData(bool later);
    /// The scheme box shows m_data's scheme.
    void showScheme();
    HeaderTexts headerTexts() const;
    /// Selects @p patch of @p grid (a click in B's half names B's grid: the same place on A's is selected).
    void selectPatch(int patch, const core::Grid& grid);
    PatchGridData m_data;                 ///< the figure's data drawn (the newest m_figure delivered)
    FigureTask<PatchGridFigure> m_figure; ///< computed at once (the selection is read back by the key handlers)
    QComboBox* m_scheme = nullptr;
    int m_hover = -1;
};

} // namespace poslab::ui
