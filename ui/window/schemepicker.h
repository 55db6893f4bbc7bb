// SPDX-License-Identifier: MIT
#pragma once
/// @file schemepicker.h
/// The scheme picker: every registry entry grouped by family, in teaching order, one line per family with
/// the family's name on the left and its schemes as buttons flowing to the right (so that every scheme is
/// on screen at once where the window's left column has the room; else the compact form below). Each button carries the scheme's full name, axes and
/// citation as tooltip; Up/Down move through the schemes. Below: the selected scheme's name and formula
/// (always in view), then its summary, axes, citation and reference implementation, in colours that follow
/// the theme. The formula is typeset (MathJax's SVG of the scheme's TeX in resources/formulas/schemes.json,
/// drawn by ui/render/formula.h in the palette's text colour, shrunk towards the panel's width where wider); the
/// plain-text formula of core's scheme table is its tooltip, and shows instead where no SVG exists.
///
/// Compact form (setCompact()): where the window's left column has no room for the whole list beside the
/// parameters (ui/window/leftcolumn.h states the rule), the list gives way to one line, a combo box of the same
/// schemes under their family headings, so that the parameters get the height and no family line is cut at
/// the list's edge.

#include <QWidget>

#include <utility>
#include <vector>

class QAbstractButton;
class QBoxLayout;
class QButtonGroup;
class QComboBox;
class QLabel;
class QScrollArea;
class QToolButton;
class QVBoxLayout;

namespace poslab::core {
struct SchemeDescriptor;
}

namespace poslab::ui {

class WorkbenchState;

class SchemePicker : public QWidget {
    Q_OBJECT
public:
    explicit SchemePicker(WorkbenchState* state, QWidget* parent = nullptr);

    /// The button of scheme @p id, or nullptr.
    QAbstractButton* button(const QString& id) const;
    /// The widget holding the family lines and the buttons (tests measure it); it scrolls only where the
    /// screen is too small for it (a large font scale).
    QWidget* list() const { return m_list; }
    QScrollArea* listScroll() const { return m_listScroll; }
    /// The family a scheme's button sits under, as shown ("absolute, fixed").
    QString familyOf(const QString& id) const;
    /// The rich text of the info panel (tests read it).
    QString infoText() const;
    /// The label showing the selected scheme's formula (a box in the theme's base colour, the formula in its text colour): the
    /// typeset formula as a pixmap, or the plain-text formula where the scheme has no typeset one.
    QLabel* formulaLabel() const { return m_formula; }
    /// The TeX of the formula shown (empty when the plain text shows).
    const QString& formulaTex() const { return m_formulaTex; }
    /// The button that folds the formula away and back. The user's choice is remembered in the settings; until
    /// there is one, formulaShownByDefault() decides, again whenever the font scale changes.
    QToolButton* formulaToggle() const { return m_formulaToggle; }
    /// The formula's default: shown where the screen is at least formulaRoomHeight px tall and the font scale is
    /// below foldFromScale; folded elsewhere (a 768 px projector, or large text on any screen).
    bool formulaShownByDefault() const;

    /// Compact form: the list hidden, the combo box compactPicker() in its place (same schemes, same order,
    /// family names as headings that cannot be chosen).
    void setCompact(bool compact);
    bool isCompact() const { return m_compact; }
    QComboBox* compactPicker() const { return m_compactPicker; }
    /// The picker's height in either form at a width of @p width: its margins, the whole list at that width (or
    /// the combo box), the story and formula line, and the name and formula it always keeps in view.
    int heightFor(bool compact, int width) const;

    /// The story link names and opens the spatial set-up's scheme (M-RoPE, 2-D RoPE ...) while the view in front
    /// draws the spatial set-up (the patch grid or the mixed sequence), or while a lesson step whose first view
    /// draws it waits for its guess (its views come to the front after it); the 1-D scheme otherwise.
    void setFrontView(const QString& viewId);
    /// The scheme the story link names and opens ("rope", "mrope").
    QString storyScheme() const;
    QToolButton* storyButton() const { return m_story; }

    /// A typeset formula wider than the panel shrinks to fit, but not below this fraction of the text size;
    /// wider still, it scrolls sideways.
    static constexpr double minFormulaScale = 0.7;
    /// Family names go above their buttons when the list is narrower than this many average characters.
    static constexpr int stackBelowChars = 30;
    /// The formula is shown by default on screens at least this tall, folded below (until the user unfolds it).
    static constexpr int formulaRoomHeight = 900;
    /// The formula is folded by default from this font scale up, on every screen (until the user unfolds it).
    static constexpr double foldFromScale = 1.5;

signals:
    /// The heights of heightFor() changed (the formula folded or unfolded, the font changed): the window shares
    /// its left column again.
    void roomChanged();

protected:
    void changeEvent(QEvent* e) override;
    /// Shown (the docks switching to this configuration's picker): roomChanged(), its heights are new to the dock.
    void showEvent(QShowEvent* e) override;
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    // The constructor's parts, top to bottom: the family lines of scheme buttons, their one-line form, the
    // story and formula links, and the description with its formula.
    void buildList(QVBoxLayout* lay);
    /// One scheme's button in @p parent (a family line), with its tooltip and story menu, in the exclusive group.
    QToolButton* makeSchemeButton(const core::SchemeDescriptor& s, const QString& family, QWidget* parent);
    void buildCompactPicker(QVBoxLayout* lay);
    void buildLinks(QVBoxLayout* lay);
    void buildDescription(QVBoxLayout* lay);
    void syncSelection();
    /// Opens scheme @p id's story page beside the window.
    void openStory(const QString& id);
    void step(int delta);
    void arrangeLines(bool stacked);
    void keepFormulaInView();
    void showFormula();
    void syncStory();
    void fillCompactPicker();
    WorkbenchState* m_state;
    QWidget* m_list = nullptr;
    QButtonGroup* m_group = nullptr;
    QLabel* m_info = nullptr;
    QLabel* m_formula = nullptr;
    QLabel* m_details = nullptr;
    QScrollArea* m_scroll = nullptr;
    QScrollArea* m_listScroll = nullptr;
    QComboBox* m_compactPicker = nullptr; ///< the list's one-line form (setCompact())
    QToolButton* m_story = nullptr;
    QBoxLayout* m_linksLayout = nullptr;
    QString m_frontView; ///< see setFrontView()
    bool m_compact = false;
    QScrollArea* m_formulaScroll = nullptr; ///< around m_formula: sideways only
    QToolButton* m_formulaToggle = nullptr; ///< folds the formula away (settings: picker/formulaShown)
    QBoxLayout* m_infoLayout = nullptr;
    std::vector<std::pair<QLabel*, QWidget*>> m_lines; ///< family name, its buttons
    bool m_stacked = false;
    QString m_formulaTex;
    QString m_formulaText;  ///< core's plain-text formula
    QString m_formulaShown; ///< tex, colour, em and width of the pixmap shown, to redraw only on a change
};

} // namespace poslab::ui
