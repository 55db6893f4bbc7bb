// SPDX-License-Identifier: MIT
#pragma once
/// @file exportparts.h
/// Pieces the export service's files share (exportservice.cpp: formats, figures, files; exportanimation.cpp:
/// GIF sweeps; exportdata.cpp: CSV, JSON and NPY). Private to ui/export.

#include "ui/export/exportservice.h"

#include <QSizeF>

#include <optional>

class QPainter;

namespace poslab::exporting::detail {

/// Qt's point sizes and SVG's user unit assume 96 logical pixels per inch.
inline constexpr double logicalDpi = 96.0;

/// A result that failed with @p message.
ExportResult failed(Failure how, const QString& message);

/// Paints the view with Qt's 96-per-inch logical pixels whatever the output DPI: point sizes then mean the
/// same on every device, and only the device pixel ratio carries the DPI.
void paintView(ui::View& view, QPainter& p, const QSizeF& logical);

/// The geometry of a figure, or nothing with the reason in *error (the renderers' common first step).
std::optional<FigureGeometry> checkedGeometry(const ExportOptions& options, QString* error);

/// renderFigure's GIF: checks the animation's options and size (@p g), draws the frames and encodes them.
QByteArray renderGif(ui::View& view, ui::WorkbenchState& state, ui::Computation& computation,
                     const ExportOptions& options, const FigureGeometry& g, ExportResult& r);

} // namespace poslab::exporting::detail
