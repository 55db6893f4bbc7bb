// SPDX-License-Identifier: MIT
#pragma once
/// @file pipelineview.h
/// The attention pipeline: where the position signal enters attention for the chosen scheme, with the live
/// numbers of a short sentence (the state's sentence). Each stage (token embedding, + PE(t) for additive schemes,
/// x, W_Q, q, the rotation for rotary schemes, q.k/sqrt(d), + bias for bias schemes, mask, softmax weights) is a
/// small heatmap; the stage where the position enters is framed; the cursor's query row is outlined in every
/// stage. Beside it, the same vector with a position added and rotated, with norms and angles. A second mode
/// shows the NoPE demonstrations: permutation equivariance without a mask, and the position a causal mask leaks.
/// Every number comes from core/pipeline.h through the pipeline figure (ui/figures/pipelinefigure.h).

#include "ui/figures/pipelinefigure.h"
#include "ui/views/view.h"

#include <QImage>
#include <QStringList>

#include <vector>

namespace poslab::ui {

class PipelineView : public View {
    Q_OBJECT
public:
    PipelineView(WorkbenchState* state, Computation* computation, QWidget* parent = nullptr);

    /// Every scheme has a pipeline (NoPE's carries order through the mask alone).
    bool supports(const core::SchemeDescriptor&) const override { return true; }
    QSizeF minimumRoom() const override { return {17.0, 11.0}; }
    /// The numbers drawn.
    const PipelineData& data() const { return m_figure.data(); }
    /// The stage keys of the panels drawn, in order (a subset of the pipeline's stages).
    QStringList panelKeys() const;
    /// The mode (stages or NoPE) and the pair of the added-vs-rotated plane, as view properties.
    QWidget* controls() override;

protected:
    void renderContent(QPainter& painter, const QRectF& target) override;
    /// Its figure is on its way: the table's new result does not redraw the old one (it redraws when it lands).
    bool awaitsOwnResult() const override { return m_figure.isPending(); }

private:
    struct Painter; ///< one paint of renderStages or renderNope, in named parts
    void recompute();
    /// The stages' images from data() and the theme.
    void buildImages();
    void renderStages(QPainter& p, const QRectF& target);
    void renderNope(QPainter& p, const QRectF& target);
    /// The stage's index in data().pipeline.stages, or -1.
    int stageIndex(const QString& key) const;

    FigureTask<PipelineFigure> m_figure; ///< computed off the UI thread in the window
    QWidget* m_controls = nullptr;
    std::vector<QImage> m_images; ///< one per stage of data().pipeline (or the two NoPE outputs)
};

} // namespace poslab::ui
