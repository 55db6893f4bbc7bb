// SPDX-License-Identifier: MIT
#pragma once
/// @file exportdialog.h
/// File > Export: the focused view or all views as SVG, PNG, PDF, animated GIF or data, with size (pixels
/// or centimetres), DPI, theme (light, dark, transparent background), font scale for slides, a live preview
/// of the exact layout, and "Copy to clipboard". Everything goes through ExportService. When the figure's
/// theme or font scale differs from the window's, or for an animation, the dialog draws in a private
/// ExportScene, so the window never changes under the user.

#include "ui/export/exportservice.h"

#include <QDialog>
#include <QPointer>

#include <memory>
#include <vector>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QTimer;
class QToolButton;
class QWidget;

namespace poslab::ui {
class Computation;
class View;
class WorkbenchState;
} // namespace poslab::ui

namespace poslab::exporting {

class ExportScene;

class ExportDialog : public QDialog {
    Q_OBJECT
public:
    /// @p focused may be null (then the first view); @p all are the window's views in grid order.
    ExportDialog(ui::WorkbenchState* state, ui::Computation* computation, ui::View* focused, std::vector<ui::View*> all,
                 QWidget* parent = nullptr);
    ~ExportDialog() override;

    /// Opens the dialog modally (File > Export, Ctrl+E).
    static void run(QWidget* parent, ui::WorkbenchState* state, ui::Computation* computation, ui::View* focused,
                    const std::vector<ui::View*>& all);

    /// The options the controls describe.
    ExportOptions options() const;
    /// Sets the output file (the format follows its extension).
    void setPath(const QString& path);
    /// Exports all views instead of the focused one (files get "-VIEW" before the extension).
    void setAllViews(bool all);
    /// Exports with the current settings; returns one message per failed figure (empty on success). After a
    /// file is written its folder is remembered (QSettings "export/folder") for the next export.
    QStringList exportNow();
    /// The folder a new dialog's file starts in, always one that exists: the last folder exported to, else
    /// the Pictures folder, else the home folder.
    static QString startFolder();
    /// The QSettings key of the last export folder.
    static constexpr const char* lastFolderKey = "export/folder";
    /// Copies the focused view to the clipboard with the current settings.
    void copyToClipboard();
    /// The last preview (tests).
    QImage preview() const { return m_previewImage; }
    /// Renders the preview now instead of after the debounce.
    void updatePreview();

protected:
    /// The preview follows the dialog's size.
    void resizeEvent(QResizeEvent* event) override;

private:
    /// The view to draw for @p live with the options: the window's own view, or the same view in a scene.
    struct Target {
        ui::View* view = nullptr;
        ui::WorkbenchState* state = nullptr;
        ui::Computation* computation = nullptr;
    };
    Target targetFor(ui::View* live, const ExportOptions& o, bool mutating);
    ui::View* currentView() const;
    QString pathFor(ui::View* view, bool many) const;
    void formatChanged();
    void unitChanged();
    void schedulePreview();
    void browse();
    void populateAnimation();
    // The constructor's parts, in the order the controls are made (which is their tab order).
    /// The view, format and size preset rows.
    void addViewRows(QFormLayout* form);
    /// Size, resolution, theme and font scale.
    void addSizeRows(QFormLayout* form);
    /// The animation rows (shown for GIF).
    void addAnimationRows(QFormLayout* form);
    /// The file row; returns its Browse button.
    QToolButton* addFileRow(QFormLayout* form);
    /// The form beside the preview, and the buttons below.
    void layOut(QFormLayout* form);
    /// A size preset chosen: its unit, DPI, size and font scale (Custom changes nothing).
    void applyPreset(int i);
    /// Another animation target: sensible ends for its sweep.
    void animationTargetChanged();

    ui::WorkbenchState* m_state;
    ui::Computation* m_computation;
    ui::View* m_focused;
    std::vector<ui::View*> m_views;
    std::unique_ptr<ExportScene> m_scene;

    QComboBox* m_what = nullptr;
    QComboBox* m_format = nullptr;
    QComboBox* m_preset = nullptr;
    QDoubleSpinBox* m_width = nullptr;
    QDoubleSpinBox* m_height = nullptr;
    QComboBox* m_unit = nullptr;
    QSpinBox* m_dpi = nullptr;
    QComboBox* m_theme = nullptr;
    QDoubleSpinBox* m_fontScale = nullptr;
    QWidget* m_animationBox = nullptr;
    QComboBox* m_animate = nullptr;
    QDoubleSpinBox* m_from = nullptr;
    QDoubleSpinBox* m_to = nullptr;
    QSpinBox* m_frames = nullptr;
    QDoubleSpinBox* m_fps = nullptr;
    QSpinBox* m_loop = nullptr;
    QLineEdit* m_path = nullptr;
    QLabel* m_preview = nullptr;
    QLabel* m_info = nullptr;
    QPushButton* m_export = nullptr;
    QTimer* m_previewTimer = nullptr;
    QImage m_previewImage;
    SizeUnit m_lastUnit = SizeUnit::Pixels;
};

} // namespace poslab::exporting
