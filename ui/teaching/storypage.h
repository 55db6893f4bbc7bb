// SPDX-License-Identifier: MIT
#pragma once
/// @file storypage.h
/// The story page of a scheme: a window of its own, opened from the scheme picker's "Story" link
/// (and from the lesson browser through StoryPage::open), that reads top to bottom: the problem the scheme
/// answered, its idea, its mechanism with the formula, what the papers found it good and bad at (each finding
/// with its source), the real models that use it (computed from the presets, with their sources), what came
/// next, for RoPE its rope_type variants and the timeline of the context-extension methods, and the sources.
/// Text follows the application palette and font, so the theme and the font scale of the main window apply.
/// Findings cite their sources briefly; how a source was read is in the list of sources at the end. The page
/// links to the lessons that show the scheme, and closes with Esc or Ctrl+W (QKeySequence::Close). Below the
/// mechanism it shows one live figure of the scheme: a view of the registry (storyFigureView()) drawn by its own
/// render path (View::renderImage) for the scheme's default state, at the page's width, theme and font scale.

#include "ui/teaching/stories.h"

#include <QImage>
#include <QList>
#include <QPointer>
#include <QRect>
#include <QWidget>

#include <functional>

class QComboBox;
class QLabel;
class QScrollArea;
class QVBoxLayout;

namespace poslab::ui {

class WorkbenchState;

/// The context-extension methods on a horizontal time axis: one dot per method, its name and date in a label
/// that starts at the dot and reaches right, the labels stacked in rows so that no two overlap and no leader
/// line crosses a label. Width-for-height: the rows it needs depend on its width.
class TimelineWidget : public QWidget {
    Q_OBJECT
public:
    explicit TimelineWidget(QWidget* parent = nullptr);
    void setEvents(const QList<TimelineEvent>& events);

    /// The layout at width @p width: the axis, each event's dot x, its label rectangle and its row, and the
    /// year ticks with their label rectangles (tests check that nothing overlaps or leaves the widget).
    struct Layout {
        int axisY = 0;
        int axisLeft = 0;
        int axisRight = 0;
        QList<int> dotX;
        QList<QRect> labels;
        QList<int> rows;
        QList<int> yearX;
        QList<QRect> yearLabels;
        QList<int> years;
        int height = 0;
    };
    Layout layoutFor(int width) const;

    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* e) override;
    void changeEvent(QEvent* e) override;

private:
    QStringList labelLines(int i) const;
    QList<TimelineEvent> m_events;
};

/// The view a story's figure shows for scheme @p schemeId: rotation for a rotary scheme, table for an additive
/// table, attention for the rest; patchgrid or sequence for a spatial scheme (by its input).
QString storyFigureView(const QString& schemeId);

/// The figure of scheme @p schemeId's default state in view storyFigureView(), @p size logical pixels at @p dpr,
/// in theme @p dark (else light) at font scale @p fontScale; a null image for an unknown scheme.
QImage storyFigure(const QString& schemeId, QSize size, bool dark, double fontScale, qreal dpr = 1.0);

class StoryPage : public QWidget {
    Q_OBJECT
public:
    explicit StoryPage(QWidget* parent = nullptr);

    /// Opens the story page of scheme @p schemeId in the window of @p anchor's window (one page per main
    /// window, created on first use, raised on later ones) and returns it. @p look: the state whose theme and
    /// font scale the figure takes (null: the page's palette, and its font against the application's);
    /// @p openStep: what a link to a lesson step does (null: only lessonRequested). Either, when given, replaces
    /// the one an earlier call gave.
    static StoryPage* open(const QString& schemeId, QWidget* anchor, const WorkbenchState* look = nullptr,
                           std::function<void(const QString& stepId)> openStep = {});

    /// The scheme shown.
    QString schemeId() const { return m_schemeId; }
    /// Every text label of the page (tests check that none is cut off).
    QList<QLabel*> textLabels() const;
    TimelineWidget* timeline() const { return m_timeline; }
    QScrollArea* scrollArea() const { return m_scroll; }
    /// The figure's label (its pixmap is storyFigure()), nullptr for an unknown scheme.
    QLabel* figure() const { return m_figure; }
    /// The page's whole text (tests read it).
    QString text() const;

public slots:
    /// Shows the story of scheme @p schemeId (an unknown id shows a line saying so).
    void showStory(const QString& schemeId);

signals:
    /// A link to a lesson step ("7.1") was clicked (then open()'s openStep runs, where one was given).
    void lessonRequested(const QString& stepId);

protected:
    void changeEvent(QEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;

private:
    void addFigure();
    /// A section: its heading (object name @p id + "Heading") and its text (@p id).
    QLabel* addSection(const QString& id, const QString& heading, const QString& html);
    /// A typeset formula on the alternate background (its TeX kept for applyFonts()).
    QLabel* addFormula(const QString& objectName, const QString& tex);
    /// The presets that use the scheme, grouped by rope_type.
    static QString usersHtml(const QList<StoryUser>& users);
    void addVariants(const Story& story);
    void addLessons();
    void addTimeline();
    /// The sources, then how each briefly cited claim, timeline event and preset was read.
    static QString sourcesHtml(const Story& story, const QList<StoryUser>& users);
    void renderFigure();
    QLabel* addLabel(const QString& objectName, bool heading = false);
    void applyFonts();
    QString m_schemeId;
    QComboBox* m_choice = nullptr;
    QScrollArea* m_scroll = nullptr;
    QWidget* m_body = nullptr;
    QVBoxLayout* m_layout = nullptr;
    TimelineWidget* m_timeline = nullptr;
    QLabel* m_title = nullptr;
    QLabel* m_formula = nullptr;
    QLabel* m_figure = nullptr;
    int m_figureWidth = -1;
    QPointer<const WorkbenchState> m_look;
    std::function<void(const QString&)> m_openStep;
    QList<QLabel*> m_headings;
    QList<QLabel*> m_formulas;
};

} // namespace poslab::ui
