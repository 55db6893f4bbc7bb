// SPDX-License-Identifier: MIT
#pragma once
/// @file sequenceview.h
/// The mixed sequence view: a vision-language model's text, image and video tokens in one sequence with
/// their three M-RoPE ids (t, h, w; Hugging Face's modeling_qwen2_vl get_rope_index), the first image or video
/// block as its grid, the scores of the whole sequence with constant content under the causal mask with the block
/// boundaries marked, and which rotary pair turns with which axis. The numbers are sequenceData()'s
/// (spatialfigures.h), from core's spatial table. Click a token, or use the left and right arrow keys, to select it.

#include "ui/render/plotutils.h"
#include "ui/spatialfigures.h"
#include "ui/views/view.h"

namespace poslab::ui {

class SequenceView : public View {
    Q_OBJECT
public:
    SequenceView(WorkbenchState* state, Computation* computation, QWidget* parent = nullptr);

    bool supports(const core::SchemeDescriptor&) const override { return true; }
    QSizeF minimumRoom() const override { return {18.0, 11.0}; }
    void render(QPainter& painter, const QRectF& target) override;
    const SequenceData& data() const { return m_data; }

    struct Layout {
        QRectF header;
        QRectF tokens;  ///< one column per token: its box, then the t, h and w ids below it
        QRectF pairs;   ///< one box per rotary pair, coloured by its axis
        QRectF block;   ///< the first image or video block as its grid (empty without one)
        QRectF scores;  ///< the L x L scores
        QRectF bar;
        double labelW = 0;
    };
    Layout layoutFor(const QRectF& target) const;
    /// The token under @p pos (the token strip or a row of the scores), or -1.
    int tokenAt(const QRectF& target, const QPointF& pos) const;

protected:
    void renderContent(QPainter& painter, const QRectF& target) override;
    void mousePressEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;

private:
    HeaderTexts headerTexts() const;
    SequenceData m_data;
};

} // namespace poslab::ui
