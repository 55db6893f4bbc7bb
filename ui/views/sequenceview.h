// SPDX-License-Identifier: MIT
#pragma once
/// @file sequenceview.h
/// The mixed sequence view: a vision-language model's text, image and video tokens in one sequence with
/// their three M-RoPE ids (t, h, w; Hugging Face's modeling_qwen2_vl get_rope_index), the first image or video
/// block as its grid, the scores of the whole sequence with constant content under the causal mask with the block
/// boundaries marked, and which rotary pair turns with which axis. The numbers are SequenceFigure's
/// (spatialfigures.h), from core's spatial table. Click a token, or use the left and right arrow keys, to select it.

#include "ui/lessons/lesson.h"
#include "ui/render/plotutils.h"
#include "ui/figures/spatialfigures.h"
#include "ui/views/view.h"

namespace poslab::ui {

class SequenceView : public View {
    Q_OBJECT
public:
    SequenceView(WorkbenchState* state, Computation* computation, QWidget* parent = nullptr);

    bool supports(const core::SchemeDescriptor&) const override { return true; }
    QSizeF minimumRoom() const override { return {18.0, 11.0}; }
    /// Alone, or A | B while comparing (B's half from B's spatial set-up, on one colour scale unless
    /// independent_ranges is on).
    void render(QPainter& painter, const QRectF& target) override;
    std::optional<ValueRange> dataColourRange() const override;
    QString rangeQuantity() const override { return QStringLiteral("sequence scores"); }
    const SequenceData& data() const { return m_data; }
    /// A refused set-up (a scheme of the other view, a bad parameter) refuses the export as its data export does.
    QString computeError() const override { return m_data.error; }
    bool computeRefused() const override { return m_data.refused; }
    /// The spatial scheme it draws, not the 1-D one (spatialSchemeLabel, spatialSummary).
    std::pair<QString, QString> ownScheme() const override;
    /// The read-out of token @p token (its segment and its t, h, w ids) and, for @p key >= 0, the score of query
    /// @p token and key @p key; "B · " first in B's half. Empty outside the sequence.
    QString readout(int token, int key = -1) const;
    /// The read-out under the mouse, A's or B's half; empty when no token is under it.
    QString hoverReadout() const;

    struct Layout {
        QRectF header;
        QRectF tokens; ///< one column per token: its box, then the t, h and w ids below it
        QRectF pairs;  ///< one box per rotary pair, coloured by its axis
        QRectF block;  ///< the first image or video block as its grid (empty without one)
        QRectF scores; ///< the L x L scores
        QRectF bar;
        double labelW = 0;
    };
    Layout layoutFor(const QRectF& target) const;
    /// The token under @p pos (the token strip or a row of the scores), or -1.
    int tokenAt(const QRectF& target, const QPointF& pos) const;
    /// The (query, key) of the scores under @p pos, the key -1 over the token strip; (-1, -1) elsewhere.
    std::pair<int, int> cellAt(const QRectF& target, const QPointF& pos) const;

protected:
    void renderContent(QPainter& painter, const QRectF& target) override;
    bool ownsNumbers() const override { return true; }
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;

    /// Token @p token's id on axis @p axis as drawn: "?" while a lesson step's guess is due and its "hide" names
    /// it (lessons::Hide; Predict, then see), else the number.
    QString idText(int axis, std::int64_t token) const;
    /// True when pair @p k's axis is left out for the same reason.
    bool pairHidden(int k) const;

private:
    struct Painter; ///< one paint of renderContent, in named parts
    const lessons::Hide* pendingHide() const;
    HeaderTexts headerTexts() const;
    void selectToken(int token);
    SequenceData m_data;                 ///< the figure's data drawn (the newest m_figure delivered)
    FigureTask<SequenceFigure> m_figure; ///< computed at once (the selection is read back by the key handlers)
    std::pair<int, int> m_hover{-1, -1};
};

} // namespace poslab::ui
