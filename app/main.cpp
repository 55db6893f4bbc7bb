// SPDX-License-Identifier: MIT
// PosLab entry point: headless subcommands run without a window (bench creates an offscreen QApplication
// for the workbench's frame figures); otherwise the window opens.
#include "app/cli.h"
#include "app/exportcli.h"
#include "app/soak.h"
#include "core/errors.h"
#include "core/spatial.h"
#include "ui/figures/computation.h"
#include "ui/export/exportdialog.h"
#include "ui/export/exportservice.h"
#include "ui/views/view.h"
#include "ui/gpu/tableengine.h"
#include "ui/window/benchmark.h"
#include "ui/window/mainwindow.h"
#include "ui/state/session.h"
#include "ui/teaching/presentation.h"
#include "ui/teaching/presenterview.h"
#include "ui/setup/presets.h"
#include "ui/state/workbenchstate.h"

#include <QApplication>
#include <QBuffer>
#include <QFileInfo>
#include <QGuiApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QDir>
#include <QJsonObject>
#include <QIcon>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QStyleFactory>
#include <QJsonDocument>
#include <QJsonArray>
#include <QTimer>
#include <QUndoStack>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace {

void setUpApplication()
{
    QApplication::setApplicationName("PosLab");
    QApplication::setOrganizationName("PosLab");
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
    // The icon every window shows (compiled in from resources/icons), and the launcher it belongs to: the
    // desktop file's name is the Wayland app id and lets the shell match the window to the installed entry.
    QIcon icon;
    for (int size : {16, 22, 24, 32, 48, 64, 128, 256})
        icon.addFile(QStringLiteral(":/icons/hicolor/%1x%1/apps/io.github.poslab.PosLab.png").arg(size),
                     QSize(size, size));
    QApplication::setWindowIcon(icon);
    QGuiApplication::setDesktopFileName(QStringLiteral("io.github.poslab.PosLab"));
}

/// startup_ms: from starting `poslab --first-frame` to its first painted window frame, median of 3 (the same
/// platform as the bench: the display when there is one, else offscreen).
poslab::core::BenchFigure startupFigure()
{
    std::vector<double> ms;
    QString platform = QGuiApplication::platformName();
    for (int i = 0; i < 3; ++i) {
        QProcess p;
        QElapsedTimer clock;
        clock.start();
        p.start(QCoreApplication::applicationFilePath(), {QStringLiteral("--first-frame")});
        if (!p.waitForStarted(10000))
            break;
        QByteArray out;
        while (!out.contains("painted") && p.waitForReadyRead(30000))
            out += p.readAllStandardOutput();
        if (!out.contains("painted")) {
            p.kill();
            p.waitForFinished(5000);
            break;
        }
        ms.push_back(clock.nsecsElapsed() / 1e6);
        p.waitForFinished(10000);
    }
    std::sort(ms.begin(), ms.end());
    const double median = ms.empty() ? -1.0 : ms[ms.size() / 2];
    return {"startup_ms", median,
            "ms, median of 3: process start to the window's first painted frame (platform " + platform.toStdString()
                + (ms.empty() ? "; the window did not paint: -1" : "") + ")"};
}

/// `poslab bench`: core figures first, then the workbench frame times from a scripted slider sweep.
int runBench(int argc, char** argv, const std::vector<std::string>& args)
{
    if (!std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY") && !std::getenv("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    poslab::app::silenceRuntimeDirWarning();
    QApplication app(argc, argv);
    poslab::app::useCNumbers();
    setUpApplication();
    poslab::app::CliHooks hooks;
    hooks.extraBenchmarks = [](bool large) {
        // The workbench's frame times, then both table paths and the score tiles on the GPU.
        std::vector<poslab::core::BenchFigure> figures = poslab::ui::runWorkbenchBenchmark();
        figures.push_back(startupFigure());
        for (auto& f : poslab::gpu::gpuBenchmarks(large))
            figures.push_back(std::move(f));
        return figures;
    };
    return poslab::app::runCli(args, std::cout, std::cerr, hooks);
}

/// The window sizes --screenshot accepts, a side: 8192 x 8192 is a 256 MiB grab (an 8K screen is 7680 x 4320).
constexpr int minScreenshotSide = 200;
constexpr int maxScreenshotSide = 8192;

// File > Export (Ctrl+E) and Copy figure: the window and the export service meet here, in the app layer,
// so that neither library depends on the other.
void addFileMenu(poslab::ui::MainWindow& window)
{
    auto focusedView = [&window]() -> poslab::ui::View* {
        if (window.maximisedView())
            return window.maximisedView();
        const QWidget* focus = QApplication::focusWidget();
        for (poslab::ui::View* v : window.views())
            if (focus && (v == focus || v->isAncestorOf(focus)))
                return v;
        for (poslab::ui::View* v : window.views())
            if (v->underMouse())
                return v;
        return window.views().empty() ? nullptr : window.views().front();
    };
    QMenu* file = window.fileMenu(); // New, Open, Save ... come from the window; figures are added here
    QAction* exportAction = file->addAction(QObject::tr("&Export figure\u2026"), &window, [&window, focusedView] {
        poslab::exporting::ExportDialog::run(&window, window.state(), window.computation(), focusedView(),
                                             window.views());
    });
    exportAction->setShortcut(Qt::CTRL | Qt::Key_E);
    exportAction->setObjectName(QStringLiteral("actionExport"));
    QAction* copy = file->addAction(QObject::tr("&Copy figure"), &window, [&window, focusedView] {
        if (poslab::ui::View* v = focusedView()) {
            poslab::exporting::ExportOptions options;
            options.size = QSizeF(v->size());
            poslab::exporting::ExportService::copyToClipboard(*v, *window.state(), options);
            window.statusBar()->showMessage(QObject::tr("Copied the %1 view to the clipboard").arg(v->title()), 4000);
        }
    });
    copy->setShortcut(Qt::CTRL | Qt::SHIFT | Qt::Key_C);
    file->addSeparator();
    QAction* quit = file->addAction(QObject::tr("&Quit"), &window, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args[0] == "export")
        return poslab::app::runExportCli(args, std::cout, std::cerr);
    if (!args.empty() && args[0] == "bench")
        return runBench(argc, argv, args);
    if (poslab::app::isHeadless(args))
        return poslab::app::runCli(args, std::cout, std::cerr);
    // The window. Its options are read before Qt starts, so a typo ("poslab comptue") is one line and exit 2
    // even without a display, never Qt's platform plug-in abort. --compute-path auto|cpu|gpu: which path
    // computes sin/cos tables this run (the Settings menu remembers a choice; this option does not). Hidden
    // options for scripts/screenshot.sh: --screenshot FILE [--size WxH] (the other window options of poslab --help
    // apply to a screenshot as to the window); for scripts/soak.sh:
    // --soak SECONDS (app/soak.h). Qt's own options (-platform, -style, ...) pass through to QApplication.
    QString screenshot, size = QStringLiteral("1600x1000"), theme, scheme, computePath, maximise, openPath, stateText,
                        lesson;
    QString openProblem; // a session FILE operand that does not read: shown in a dialog over the window
    int dim = 0, positions = 0, soakSeconds = 0;
    double fontScale = 0.0;
    bool hidePanels = false, firstFrame = false, present = false, presenter = false;
    std::optional<QJsonObject> model; // --preset NAME or --config FILE: a real model's state
    std::vector<std::string> qtWords = {argc > 0 ? argv[0] : "poslab"}; // the program name and Qt's options
    try {
        const poslab::app::WindowArgs w = poslab::app::parseWindowArgs(args);
        if (w.help || w.version) {
            std::cout << (w.help ? poslab::app::usage() : poslab::app::versionText());
            poslab::app::finishOutput(std::cout);
            return poslab::app::exitOk;
        }
        auto text = [](const std::optional<std::string>& v, QString& to) {
            if (v)
                to = QString::fromStdString(*v);
        };
        text(w.screenshot, screenshot);
        if (w.soak)
            soakSeconds = int(poslab::app::parseIntegerOption("--soak", *w.soak, 1, 7 * 24 * 3600));
        text(w.size, size);
        if (w.size) {
            // The window is grabbed whole: a size is checked before Qt allocates its backing store (100000 x
            // 100000 used to take 7.5 GB and flood QPainter warnings).
            if (!w.screenshot)
                throw poslab::core::InputError("--size applies to --screenshot only");
            const QStringList wh = size.split(QLatin1Char('x'));
            bool okW = false, okH = false;
            const qlonglong width = wh.size() == 2 ? wh[0].toLongLong(&okW) : 0;
            const qlonglong height = wh.size() == 2 ? wh[1].toLongLong(&okH) : 0;
            if (!okW || !okH)
                throw poslab::core::InputError("--size '" + *w.size
                                               + "' must be WIDTHxHEIGHT in pixels, e.g. 1366x768");
            if (width < minScreenshotSide || height < minScreenshotSide || width > maxScreenshotSide
                || height > maxScreenshotSide)
                throw poslab::core::InputError("--size " + *w.size
                                               + " is out of range; allowed: " + std::to_string(minScreenshotSide)
                                               + " to " + std::to_string(maxScreenshotSide) + " pixels a side");
        }
        text(w.theme, theme);
        if (!theme.isEmpty() && theme != QLatin1String("light") && theme != QLatin1String("dark"))
            throw poslab::core::InputError("--theme takes light or dark; got '" + theme.toStdString() + "'");
        text(w.scheme, scheme);
        text(w.computePath, computePath);
        text(w.maximise, maximise);
        text(w.open, openPath);
        text(w.state, stateText);
        text(w.lesson, lesson);
        // A session or state is read and checked before the window opens: a bad one is one line and exit 2.
        for (const QString& source : {openPath, stateText}) {
            if (source.isEmpty() || (source == openPath && poslab::ui::Computation::isRunFile(openPath)))
                continue;
            QJsonObject json;
            QString label;
            QString why = poslab::ui::readStateSource(source, QDir::currentPath(), &json, &label);
            // A state naming a table file is not probed for the window: probing would read the file before the
            // window asks (a poslab: link can name any local file); the window checks it once the user agrees.
            // A screenshot is a typed command, which reads it as poslab export --state does.
            if (why.isEmpty() && screenshot.isEmpty() && !poslab::ui::tableFilesNamed(json).isEmpty())
                continue;
            if (why.isEmpty()) {
                poslab::ui::WorkbenchState probe;
                why = probe.fromJson(json);
                if (!why.isEmpty())
                    why = QStringLiteral("state %1: %2").arg(label, why);
            }
            if (why.isEmpty())
                continue;
            if (source == openPath && w.openOperand) {
                // From a file manager: the window opens with the default state and says why in a dialog; the
                // file is neither loaded nor made the session, so nothing is saved over it.
                std::cerr << "poslab: " << poslab::app::messageLine(why.toStdString()) << "\n";
                openProblem = why;
                openPath.clear();
                continue;
            }
            throw poslab::core::InputError((source == openPath ? "--open: " : "--state: ") + why.toStdString());
        }
        if (w.dim)
            dim = int(poslab::app::parseIntegerOption("--dim", *w.dim, poslab::ui::WorkbenchState::minDim,
                                                      poslab::ui::WorkbenchState::maxDim));
        if (w.positions)
            positions = int(poslab::app::parseIntegerOption("--positions", *w.positions, 1,
                                                            poslab::ui::WorkbenchState::maxPositionCount));
        if (w.fontScale)
            fontScale = poslab::app::parseNumberOption("--font-scale", *w.fontScale);
        hidePanels = w.hidePanels;
        present = w.present;
        presenter = w.presenter;
        firstFrame = w.firstFrame;
        // Read before Qt starts, so an unknown preset or a malformed config.json is one line and exit 2.
        model = poslab::ui::modelState(w.preset, w.config);
        if (model && (!openPath.isEmpty() || !stateText.isEmpty()))
            throw poslab::core::InputError(std::string(w.preset ? "--preset" : "--config")
                                           + " sets the whole state; it cannot be combined with a session or --state");
        if (model) {
            std::string id = scheme.toStdString();
            poslab::core::Overrides none;
            poslab::ui::applyModelSetup(poslab::ui::stateSetup(*model), id, !scheme.isEmpty(), none);
            if (poslab::core::findSpatialScheme(id)) // grid and sequence schemes have no view yet
                throw poslab::core::InputError("the model uses scheme " + id
                                               + ", which the window does not show yet; "
                                                 "use poslab compute with "
                                               + (w.preset ? "--preset " + *w.preset : std::string("--config FILE")));
        }
        qtWords.insert(qtWords.end(), w.qtArgs.begin(), w.qtArgs.end());
        if (!computePath.isEmpty() && computePath != "auto" && computePath != "cpu" && computePath != "gpu")
            throw poslab::core::InputError("--compute-path takes auto, cpu or gpu; got '" + computePath.toStdString()
                                           + "'");
        if (const std::string why = poslab::app::noDisplayReason(w.platform, w.display); !why.empty())
            throw poslab::core::InputError(why);
    } catch (const poslab::core::InputError& e) {
        std::cerr << "poslab: " << poslab::app::messageLine(e.what()) << "\n";
        return poslab::app::exitUsage;
    } catch (const poslab::core::RefusedError& e) {
        std::cerr << "poslab: " << poslab::app::messageLine(e.what()) << "\n";
        return poslab::app::exitRefused;
    }
    // QApplication reads Qt's options (-platform, -style, ...), which it keeps a reference to.
    std::vector<char*> qtArgv;
    for (std::string& word : qtWords)
        qtArgv.push_back(word.data());
    qtArgv.push_back(nullptr);
    int qtArgc = int(qtWords.size());
    poslab::app::silenceRuntimeDirWarning();
    QApplication app(qtArgc, qtArgv.data());
    poslab::app::useCNumbers();
    setUpApplication();
    poslab::ui::MainWindow window(nullptr, screenshot.isEmpty());
    addFileMenu(window);
    if (!computePath.isEmpty())
        window.setComputePath(computePath == "cpu"       ? poslab::gpu::ComputePath::Cpu
                                  : computePath == "gpu" ? poslab::gpu::ComputePath::Gpu
                                                         : poslab::gpu::ComputePath::Auto);
    if (model) {
        const QString why = window.state()->fromJson(*model);
        if (!why.isEmpty()) {
            std::cerr << "poslab: " << poslab::app::messageLine(why.toStdString()) << "\n";
            return poslab::app::exitUsage;
        }
        if (dim > 0)
            window.state()->setDim(dim);
        window.state()->undoStack()->clear();
    }
    if (!openPath.isEmpty())
        window.openSession(openPath);
    if (!stateText.isEmpty())
        window.loadStateText(stateText);
    if (!openPath.isEmpty() || !stateText.isEmpty())
        window.state()->undoStack()->setClean();
    if (!lesson.isEmpty()) {
        if (const QString why = window.openLessonStep(lesson); !why.isEmpty()) {
            std::cerr << "poslab: --lesson: " << why.toStdString() << "\n";
            return poslab::app::exitUsage;
        }
    }
    if (!screenshot.isEmpty()) {
        const auto wh = size.split(QLatin1Char('x'));
        if (wh.size() == 2)
            window.resize(wh[0].toInt(), wh[1].toInt());
    }
    // The window options hold in the real window as in a screenshot (--theme dark was once a screenshot's only).
    poslab::ui::StartOptions start;
    start.theme = theme;
    start.fontScale = fontScale;
    start.maximise = maximise;
    start.hidePanels = hidePanels;
    start.scheme = scheme;
    start.dim = model ? 0 : dim; // a model's --dim is applied with it
    start.positions = positions;
    if (const QString why = window.applyStartOptions(start); !why.isEmpty()) {
        std::cerr << "poslab: " << why.toStdString() << "\n";
        return poslab::app::exitUsage;
    }
    if (!openPath.isEmpty() || !stateText.isEmpty())
        window.state()->undoStack()->setClean();
    else if (!scheme.isEmpty() || dim > 0 || positions > 0)
        window.state()->undoStack()->clear(); // how the window opens is not an edit
    if (!screenshot.isEmpty()) {
        // A screenshot of the plain workbench shows the cursor at 37 (a position with something to read); a lesson
        // step, a session or a share string keeps its own.
        if (openPath.isEmpty() && stateText.isEmpty() && lesson.isEmpty())
            window.state()->setCursor(37);
        window.state()->undoStack()->clear();
        QTimer::singleShot(1500, &window, [&] {
            QWidget* shown = window.isPresenting() ? static_cast<QWidget*>(window.presentation()) : &window;
            if (presenter && window.presenterView()) { // --presenter: the lecturer's window is the one to see
                shown = window.presenterView();
                shown->resize(window.size());
                QCoreApplication::processEvents();
            }
            // Encoded here, written by the one writer of every file (links, devices, read-only files refused).
            QByteArray bytes;
            QBuffer buffer(&bytes);
            buffer.open(QIODevice::WriteOnly);
            const QByteArray format = QFileInfo(screenshot).suffix().toLower().toLatin1();
            QString why = shown->grab().save(&buffer, format.isEmpty() ? "png" : format.constData())
                ? poslab::exporting::ExportService::writeFile(screenshot, bytes)
                : QStringLiteral("cannot encode the image as %1").arg(QString::fromLatin1(format));
            bool ok = why.isEmpty();
            std::cerr << (ok ? "saved " : "could not save ") << screenshot.toStdString()
                      << (ok ? std::string() : ": " + why.toStdString()) << "\n";
            if (ok) {
                // FILE.json beside it: each view on screen with its pixel size and what it drew, for layout scripts.
                const QJsonObject report{{QStringLiteral("window"), QJsonArray{shown->width(), shown->height()}},
                                         {QStringLiteral("views"), poslab::ui::View::visibleViewReport(shown)}};
                const QString json = screenshot + QStringLiteral(".json");
                why = poslab::exporting::ExportService::writeFile(json, QJsonDocument(report).toJson());
                ok = why.isEmpty();
                std::cerr << (ok ? "saved " : "could not save ") << json.toStdString()
                          << (ok ? std::string() : ": " + why.toStdString()) << "\n";
            }
            QApplication::exit(ok ? 0 : 1);
        });
    }
    if (firstFrame) {
        // poslab bench's startup_ms: the parent times from starting this process to this line.
        struct FirstPaint : QObject {
            bool eventFilter(QObject* o, QEvent* e) override
            {
                if (e->type() == QEvent::Paint && !done) {
                    done = true;
                    // After this paint event is handled: the frame is on its way to the screen.
                    QTimer::singleShot(0, qApp, [] {
                        std::cout << "painted" << std::endl;
                        QApplication::exit(0);
                    });
                }
                return QObject::eventFilter(o, e);
            }
            bool done = false;
        };
        static FirstPaint probe;
        window.installEventFilter(&probe);
    }
    if (soakSeconds > 0)
        poslab::app::startSoak(window, soakSeconds);
    if (screenshot.isEmpty() && !firstFrame && soakSeconds == 0)
        window.offerFirstRunHint(); // a person's start: where the lessons are, until dismissed
    window.show();
    if (!openProblem.isEmpty()) {
        // Window-modal and opened, not exec'ed: the window paints behind it, and scripts that quit at the first
        // frame still quit.
        auto* box = new QMessageBox(QMessageBox::Warning, QObject::tr("PosLab"),
                                    QObject::tr("The session could not be opened."), QMessageBox::Ok, &window);
        box->setObjectName(QStringLiteral("openProblem"));
        box->setInformativeText(openProblem);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    }
    window.setPresenterWanted(presenter);
    if (present)
        window.setPresenting(true);
    return app.exec();
}
