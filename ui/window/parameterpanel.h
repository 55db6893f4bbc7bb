// SPDX-License-Identifier: MIT
#pragma once
/// @file parameterpanel.h
/// The parameter panel, generated from the registry: for every knob of the current scheme a slider plus a
/// typed value (logarithmic where the spec says so), a combo box for choices, a check box for bools, a
/// reset button and the one-line doc as tooltip. Knobs that do not apply under the current choices are
/// hidden. A typed value that core refuses (out of range, malformed) is not applied and not clamped: the
/// row shows core's message, which names the key and the allowed range. The model's dimension and number
/// of positions are rows of the same kind at the top.

#include "core/params.h"

#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QGridLayout;
class QLabel;
class QLineEdit;
class QSlider;
class QToolButton;
class QVBoxLayout;

namespace poslab::core {
struct RotarySpec;
}

namespace poslab::ui {

class WorkbenchState;

class ParameterPanel : public QWidget {
    Q_OBJECT
public:
    explicit ParameterPanel(WorkbenchState* state, QWidget* parent = nullptr);
    ~ParameterPanel() override;

    /// Slider steps; a slider position t in [0, steps] maps linearly or logarithmically onto the range.
    static constexpr int sliderSteps = 1000;
    /// Slider position of @p value for @p spec.
    static int toSlider(const core::ParamSpec& spec, double value);
    /// Value at slider position @p pos, rounded to 4 significant digits (integers: whole numbers).
    static double fromSlider(const core::ParamSpec& spec, int pos);

    // For tests and the benchmark: the widgets of one key ("dim", "positions" or a parameter key).
    QSlider* slider(const QString& key) const;
    QLineEdit* edit(const QString& key) const;
    QComboBox* combo(const QString& key) const;
    QCheckBox* check(const QString& key) const;
    /// The message shown under a row (empty when none).
    QString message(const QString& key) const;
    /// The rows shown (the parameter applies), top to bottom: dim and positions first.
    std::vector<QWidget*> shownRows() const;
    /// The panel's height from its top through the bottom of its @p n -th shown row (all of them when fewer).
    int heightForRows(int n) const;
    /// The window's left column gives the panel room for at least this many rows (1366 x 768, font scale 1).
    static constexpr int rowsInView = 6;
    /// True when the row of @p key is shown (the parameter applies).
    bool isShown(const QString& key) const;
    /// The sequence-length line (dynamic NTK, LongRoPE), empty when the scheme does not read it.
    QString sequenceLengthText() const;
    /// The warnings core gives for the current set-up (core::schemeWarnings, e.g. factor below 1), one per
    /// line; empty when there are none.
    QString warningText() const;
    /// The "Model" heading and the scheme's heading (tests compare their size with the body text).
    QLabel* headings(int i) const { return i == 0 ? m_modelTitle : m_schemeTitle; }

    /// Step lock (lessons): only the rows named in @p unlocked (dim, positions, parameter keys) stay editable, the
    /// others are disabled and say lockedTip(); nullopt unlocks every row (free play).
    void setUnlocked(const std::optional<QStringList>& unlocked);
    bool isLocked(const QString& key) const;
    static QString lockedTip() { return tr("Free play unlocks this"); }

    /// Headings are this much larger than the panel's text.
    static constexpr double headingScale = 1.15;

protected:
    void changeEvent(QEvent* e) override;
    /// The wheel over an unfocused slider or choice scrolls the panel instead (see makeRow()).
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    struct Row;
    void rebuild();
    void syncValues();
    Row* row(const QString& key) const;
    std::unique_ptr<Row> makeRow(const core::ParamSpec& spec, bool model);
    // makeRow()'s controls for each kind of parameter, laid out in the row's @p grid under its key (@p tip: the
    // key's tooltip). A number: the typed value beside the key (@p label), the slider below.
    void addNumberControls(Row& r, QGridLayout* grid, QLabel* label, const QString& key, const QString& tip);
    void addChoiceControls(Row& r, QGridLayout* grid, const QString& key, const QString& tip);
    void addBoolControls(Row& r, QGridLayout* grid, const QString& key, const QString& tip);
    void addListControls(Row& r, QGridLayout* grid, const QString& key, const QString& tip);
    void addTextControls(Row& r, QGridLayout* grid, const QString& key, const QString& tip);
    QString apply(Row& r, const core::ParamValue& v, bool mergeable);
    QString applyText(Row& r, const QString& text);
    void showMessage(Row& r, const QString& message);
    /// The state's value of the row's key (dim and positions included).
    core::ParamValue stateValue(const Row& r) const;
    void syncSequenceLength();
    /// What core derived from the sequence length in @p spec (dynamic NTK's length, LongRoPE's factors, xPos's
    /// centre), one sentence each, @p length naming that length ("the sequence length", "L").
    QString sequenceSentences(const core::RotarySpec& spec, const QString& length) const;
    void updateHeadingFonts();
    void fitEdit(QLineEdit* edit) const;

    WorkbenchState* m_state;
    QVBoxLayout* m_modelBox = nullptr;
    QVBoxLayout* m_schemeBox = nullptr;
    QLabel* m_modelTitle = nullptr;
    QLabel* m_schemeTitle = nullptr;
    QLabel* m_seqLen = nullptr;
    /// The real model the set-up came from (name, source, values the sources leave unverified); hidden without.
    QLabel* m_modelNote = nullptr;
    void syncModel();
    QLabel* m_warnings = nullptr;
    std::vector<core::ParamSpec> m_modelSpecs;
    std::vector<std::unique_ptr<Row>> m_modelRows;
    std::vector<std::unique_ptr<Row>> m_rows;
    std::optional<QStringList> m_unlocked; ///< see setUnlocked()
    void applyLock();
};

} // namespace poslab::ui
