// SPDX-License-Identifier: MIT
#pragma once
/// @file trainpanel.h
/// The lengthlab view's Train controls: the schemes (checkable entries of core::train::trainableSchemes()), task,
/// trained length, steps, seeds and evaluation sequences; Train, Cancel and Save. Train runs core::train::trainRun
/// for every scheme and seed side by side, one worker thread per run up to the number of cores (QThreadPool); core's
/// progress callback is marshalled to the GUI thread with queued calls and the runs are published to the state
/// (WorkbenchState::setTrainedRuns) at most ten times a second, so the view draws them like a run file's. Cancel sets
/// core's cancel flag: every run stops at its next step. Nothing is computed on the GUI thread.

#include "core/train/trainer.h"
#include "ui/state/workbenchstate.h"

#include <QThreadPool>
#include <QTimer>
#include <QWidget>

#include <atomic>
#include <vector>

class QAction;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QToolButton;
class QHBoxLayout;

namespace poslab::ui {

class TrainPanel : public QWidget {
    Q_OBJECT
public:
    /// Schemes checked at first: the ones Kazemnejad et al. 2023 (figure 1) and Press et al. 2022 compare.
    static QStringList teachingSchemes();

    explicit TrainPanel(WorkbenchState* state, QWidget* parent = nullptr);
    /// Cancels every run and waits for the workers.
    ~TrainPanel() override;

    /// The runs Train starts, from the controls: one per checked scheme and seed (scheme-major), in order.
    std::vector<core::train::TrainConfig> configs() const;
    bool isRunning() const { return m_running; }
    /// Workers run at most this many runs at once (default: the number of cores).
    void setMaxParallel(int n);

public slots:
    /// Starts training (refused with a message while running or with no scheme checked).
    void train();
    /// Stops every run at its next step; the runs keep their curves so far.
    void cancel();
    /// Asks for a file and writes the window's runs to it (core::train::writeRuns).
    void save();
    /// Writes the window's runs to @p path; the view then names the file (run_file). Returns an error or "".
    QString saveTo(const QString& path);

signals:
    /// Every run has ended (done, cancelled, diverged or failed).
    void finished();

protected:
    void changeEvent(QEvent* e) override;

private:
    // The constructor's parts: the schemes' menu (the teaching schemes checked), the task and its settings
    // (TrainConfig's defaults), and the plotted measure kept in step with the view option length_metric.
    void buildSchemeMenu();
    void buildSettings();
    void buildMeasure();
    void onProgress(quint64 generation, int run, const core::train::Progress& p);
    void onDone(quint64 generation, int run, const core::train::RunResult& r);
    void onFailed(quint64 generation, int run, const QString& message);
    void runEnded();
    void publish();
    void schedulePublish();
    void syncControls();
    QString runName(int run) const;

    WorkbenchState* m_state;
    QToolButton* m_schemes = nullptr;
    std::vector<QAction*> m_schemeActions;
    QComboBox* m_task = nullptr;
    QSpinBox* m_trainLen = nullptr;
    QSpinBox* m_steps = nullptr;
    QSpinBox* m_seed = nullptr;
    QSpinBox* m_seeds = nullptr;
    QSpinBox* m_samples = nullptr;
    QComboBox* m_measure = nullptr; ///< the view option length_metric: exact match, token accuracy or loss
    QPushButton* m_start = nullptr;
    QPushButton* m_stop = nullptr;
    QPushButton* m_saveButton = nullptr;
    QWidget* m_progressBox = nullptr;
    QHBoxLayout* m_progressLayout = nullptr;
    std::vector<QProgressBar*> m_bars;
    QLabel* m_status = nullptr;

    QThreadPool m_pool;
    std::atomic<bool> m_cancel{false};
    quint64 m_generation = 0;
    bool m_running = false;
    int m_pending = 0;
    TrainedRuns m_live; ///< the GUI thread's copy; published to the state by publish()
    QTimer m_publish;   ///< at most ten publications a second
};

} // namespace poslab::ui
