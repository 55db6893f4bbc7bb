// SPDX-License-Identifier: MIT
#pragma once
/// @file tablefigure.h
/// The table figure: the encoding table (the additive encoding, or for rotary schemes the cos, sin or angle table
/// per pair), computed whole or, when large, for the window the table view shows at about display resolution;
/// and its data export. The scheduler (ui/figures/computation.h) runs it off the UI thread for large requests.

#include "ui/figures/figure.h"

#include "core/rotary.h"
#include "core/types.h"

#include <QString>
#include <QStringList>

#include <memory>
#include <vector>

namespace poslab::gpu {
class TableEngine;
}

namespace poslab::ui {

/// One computed encoding table and what the views need to explain it.
struct EncodingResult {
    quint64 serial = 0;                          ///< increases with every request
    Setup setup;                                 ///< what was computed
    TableQuantity quantity = TableQuantity::Cos; ///< for rotary schemes: which table
    QString error;                               ///< non-empty when core refused the request
    bool rotary = false;
    core::RotarySpec spec; ///< rotary schemes: frequencies, layout, attention factor, seqLen
    /// Rotary schemes: the query and key rotations of a score (core::rotarySpecs: xPos scales the query up and
    /// the key down whatever its "side" parameter; the same spec twice otherwise).
    core::RotarySides sides;
    QStringList warnings;            ///< accepted-but-unusual settings (core::schemeWarnings), for a note
    std::vector<double> frequencies; ///< per pair, rad/token (sinusoidal or rotary); empty for none
    /// positions x columns: the additive encoding (positions x d) or, for rotary schemes, the chosen
    /// quantity per pair (positions x r/2). Row i = position i.
    core::MatrixF table;
    std::vector<int> columnPair; ///< column -> pair index (wavelength read-out), -1 when none
    QString tableLabel;          ///< e.g. "cos(p * theta_i)"
    QString columnLabel;         ///< "dimension" or "pair i"
    double lo = 0.0, hi = 1.0;   ///< value range of the table
    bool signedValues = false;   ///< the table holds negative and positive values
    double milliseconds = 0.0;   ///< time core took

    /// Which part of the full table (positionCount x columns) @c table holds. Large tables are computed at
    /// about display resolution: row r is position rowStart + r * rowStep, every column is kept. A sampled
    /// row holds the exact values at that position (never an average of neighbouring rows).
    int rowStart = 0;
    int rowStep = 1;
    int totalRows = 0; ///< positions in the full table (setup.positionCount)
    int totalCols = 0; ///< columns in the full table (= table.cols())
    /// The position of table row @p r.
    int positionOfRow(int r) const { return rowStart + r * rowStep; }
    /// True when @c table holds fewer rows than the full table (every k-th position, or a window).
    bool isPartial() const { return rowStep > 1 || rowStart > 0 || int(table.rows()) < totalRows; }
    /// Which path filled the table, for the status bar: "CPU, 3.1 ms", "GPU, 0.4 ms", "CPU (core), ..."
    QString path;
};

/// The part of the encoding table the table view shows, in full-table coordinates, and its resolution
/// in device pixels. Tables of more than TableFigure::fullTableCells cells are computed for this window
/// only, every k-th position with k the power of two that keeps about one to two rows per pixel.
struct TableWindow {
    int rowBegin = 0;     ///< first position shown
    int rowEnd = 0;       ///< one past the last position shown; 0 = to the end
    int pixelRows = 1024; ///< device pixels the rows are drawn on
    bool operator==(const TableWindow&) const = default;
};

/// The table figure (figure.h's pattern; compute() takes an optional engine for the sin/cos tables).
struct TableFigure {
    /// Tables with more cells than this are computed for the visible window at display resolution.
    static constexpr long long fullTableCells = 1 << 22;

    /// The row step and range of positions computed for a table: see planRows().
    struct RowPlan {
        int start = 0;
        int count = 0;
        int step = 1;
    };
    /// The row step and range of positions computed for @p totalRows x @p cols under @p window: the whole
    /// table (step 1) when it has at most fullTableCells cells; otherwise the window widened by half its
    /// height on either side (so that panning a little needs nothing new), every k-th position with k a
    /// power of two, starts aligned to k so that samples stay put while panning.
    static RowPlan planRows(int totalRows, int cols, const TableWindow& window);

    /// The set-up, which table of a rotary scheme, and the part of the table wanted.
    struct Inputs {
        Setup setup;
        TableQuantity quantity = TableQuantity::Cos;
        TableWindow window;
        CheckedSetup checked; ///< the state's token of @c setup: not validated again, its rotary spec used
        bool operator==(const Inputs&) const = default;
    };
    /// The snapshot's set-up and table quantity, the whole table (a window wider than any table, one row per
    /// pixel of it).
    static Inputs inputsOf(const FigureSnapshot& snapshot);
    using Data = std::shared_ptr<EncodingResult>;
    /// The part of the table @p inputs' window asks for (see planRows), sin/cos tables through @p engine (null:
    /// core on the CPU). xPos and angle tables always come from core. An error message instead when core refuses.
    static std::shared_ptr<EncodingResult> compute(const Inputs& inputs, gpu::TableEngine* engine = nullptr);
    /// The exact value of one cell of the full table, computed directly with core (hover read-outs of
    /// positions a sampled table skips). NaN when out of range or the result holds an error.
    static double exactValue(const EncodingResult& result, int position, int column);
    /// The table's quantity as `poslab compute` writes it: the additive encoding, or for rotary schemes the chosen
    /// cos, sin or angle table, whole. Throws core::InputError or core::RefusedError.
    static core::ComputeResult dataExport(const FigureSnapshot& snapshot, QStringList* notes);
};

} // namespace poslab::ui
