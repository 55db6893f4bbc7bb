// SPDX-License-Identifier: MIT
#pragma once
/// @file attentionview.h
/// The attention heatmap, queries (rows) x keys (columns), logits or softmax probabilities of one
/// head, from core's attention engine (core/attention.h). Masked entries are drawn in a neutral grey;
/// ALiBi's slope of the head is labelled; a typed sentence puts its words on the axes. The cursor's query
/// row is highlighted.

#include "ui/figures/attentionfigure.h"
#include "ui/render/colormap.h"
#include "ui/render/plotutils.h"
#include "ui/render/textlayout.h"
#include "ui/views/view.h"

#include <optional>

class QComboBox;
class QFontMetricsF;
class QLineEdit;
class QSpinBox;

namespace poslab::ui {

class AttentionView : public View {
    Q_OBJECT
public:
    /// What the heatmap is fed, in words ("constant q = k = (1, …, 1)", "seeded random q, k", "sentence: …"):
    /// drawn with every figure, since random content hides a rotary scheme's position pattern.
    QString contentNote() const;
    AttentionView(WorkbenchState* state, Computation* computation, QWidget* parent = nullptr);

    /// Lines of text (width, height) its plot and labels need; see View::minimumRoom().
    QSizeF minimumRoom() const override { return {12.0, 9.0}; }
    bool supports(const core::SchemeDescriptor& scheme) const override;
    QWidget* controls() override;
    std::shared_ptr<const AttentionOutput> output() const { return m_output; }
    /// Read-out for (query row, key column); empty outside. B's half (a view of B) starts "B · ".
    QString readout(int row, int column) const;
    /// The cell under the mouse as (key column, query row) in this view's heatmap, or with @p sideB in B's half
    /// of A | B (the twin's hover, which View moves while the mouse is over that half); nullopt: none.
    std::optional<QPoint> hoveredCell(bool sideB = false) const;
    /// The hover read-out shown (B's when the mouse is over B's half); empty when none.
    QString hoverReadout() const;
    /// The centre of cell (query @p row, key @p column) in widget coordinates, in A's heatmap or (@p sideB) in B's
    /// half; nullopt when that heatmap is not drawn or has no such cell.
    std::optional<QPointF> cellCentre(int row, int column, bool sideB = false) const;
    std::optional<ValueRange> dataColourRange() const override;
    /// "attention logits" or "attention softmax", with the term shown: A and B share a colour scale only then.
    QString rangeQuantity() const override;
    /// The legend line's words for the colour scale in use ("colours 0 … 1 (fixed)"), empty for logits on their
    /// own range.
    QString scaleNote() const;

protected:
    void renderContent(QPainter& painter, const QRectF& target) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent* e) override;
    void colourRangeChanged() override { takeOutput(m_output); }
    bool awaitsOwnResult() const override { return m_computation->attentionPending(); }
    bool drawsCompare(CompareMode mode) const override { return mode == CompareMode::Difference; }
    void compareChanged() override;
    QString compareProblem() const override { return m_diff ? QString() : m_compareProblem; }

private:
    struct Layout {
        QRectF plot, bar, title, subtitle, footer;
        double scale = 1.0;
    };
    Layout layoutFor(const QRectF& target) const;
    /// The widest tick label the colour bar draws for the colours' range at @p barHeight, in @p fm (the tick font).
    double colorBarTickWidth(const QFontMetricsF& fm, double barHeight) const;
    /// The axes: the sentence's words beside and under the rows where they fit, else position numbers and titles.
    void drawAxes(QPainter& p, TextLayout& text, const Layout& l) const;
    /// The cursor's query row: a frame, or a line where the rows are thinner than 4 pixels.
    void drawCursorRow(QPainter& p, const Layout& l) const;
    /// The footer's wordings, longest first: the hover read-out, or the content, range and colour scale.
    QStringList footerLines() const;
    /// The header: the variant, the quantity and head, the size and mask.
    HeaderTexts headerTexts() const;
    ValueRange valueRange() const;
    ColorMapKind mapKind() const;
    void takeOutput(std::shared_ptr<const AttentionOutput> out);

    std::shared_ptr<const AttentionOutput> m_output;
    /// The heatmap of the output (or of A − B), made when first drawn after a change.
    const QImage& image();
    QImage m_image;
    std::optional<QRgb> m_imageGrid; ///< the grid colour m_image was made with; empty: to be made again
    std::optional<QPoint> m_hover;
    QWidget* m_controls = nullptr;
    /// The controls' widgets (children of m_controls), made by makeControls().
    struct ControlWidgets {
        QComboBox *kind = nullptr, *mask = nullptr, *content = nullptr, *source = nullptr;
        QSpinBox *head = nullptr, *heads = nullptr, *run = nullptr, *layer = nullptr, *length = nullptr;
        QLineEdit* sentence = nullptr;
    };
    ControlWidgets m_widgets;
    void makeControls();
    /// Shows the state's options in the controls (signals blocked) and which of them apply to the source.
    void syncControls();
    /// Each control edits its option of the state.
    void connectControls();
    QComboBox* m_termBox = nullptr; ///< "whole score" or one named part; shown for schemes that have parts
    // compare mode, difference: A's scores minus B's (Computation::difference); masked in either stays masked
    bool differenceMode() const;
    std::optional<core::MatrixF> m_diff;
    ValueRange m_diffRange;
    QString m_compareProblem;
    /// Draws the trained window T on both axes, the positions past it hatched and labelled "new".
    void drawTrainedLength(QPainter& p, TextLayout& text, const QRectF& plot, double scale) const;
};

} // namespace poslab::ui
