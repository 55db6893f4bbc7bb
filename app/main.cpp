// SPDX-License-Identifier: MIT
// PosLab entry point: headless subcommands run without a window (bench creates an offscreen QApplication
// for the workbench's frame figures); otherwise the window opens.
#include "app/cli.h"
#include "app/exportcli.h"
#include "ui/gpu/tableengine.h"
#include "ui/benchmark.h"
#include "ui/mainwindow.h"
#include "ui/workbenchstate.h"

#include <QApplication>
#include <QStyleFactory>
#include <QTimer>
#include <QUndoStack>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace {

void setUpApplication()
{
    QApplication::setApplicationName("PosLab");
    QApplication::setOrganizationName("PosLab");
    QApplication::setStyle(QStyleFactory::create(QStringLiteral("Fusion")));
}

/// `poslab bench`: core figures first, then the workbench frame times from a scripted slider sweep.
int runBench(int argc, char** argv, const std::vector<std::string>& args)
{
    if (!std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY") && !std::getenv("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    setUpApplication();
    poslab::app::CliHooks hooks;
    hooks.extraBenchmarks = [] {
        // The workbench's frame times, then both table paths and the score tiles on the GPU.
        std::vector<poslab::core::BenchFigure> figures = poslab::ui::runWorkbenchBenchmark();
        for (auto& f : poslab::gpu::gpuBenchmarks())
            figures.push_back(std::move(f));
        return figures;
    };
    return poslab::app::runCli(args, std::cout, std::cerr, hooks);
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
    // Hidden option for scripts/screenshot.sh: --screenshot FILE [--size WxH] [--theme dark] [--scheme ID]
    QString screenshot, size = QStringLiteral("1600x1000"), theme, scheme;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        const bool hasValue = i + 1 < args.size();
        if (a == "--screenshot" && hasValue)
            screenshot = QString::fromStdString(args[++i]);
        else if (a == "--size" && hasValue)
            size = QString::fromStdString(args[++i]);
        else if (a == "--theme" && hasValue)
            theme = QString::fromStdString(args[++i]);
        else if (a == "--scheme" && hasValue)
            scheme = QString::fromStdString(args[++i]);
        else if (a.rfind("-", 0) != 0) {
            std::cerr << "poslab: unknown command '" << a << "'; commands: schemes, compute, export, bench (see poslab --help)\n";
            return poslab::app::exitUsage;
        }
    }
    QApplication app(argc, argv);
    setUpApplication();
    poslab::ui::MainWindow window(nullptr, screenshot.isEmpty());
    if (!screenshot.isEmpty()) {
        const auto wh = size.split(QLatin1Char('x'));
        if (wh.size() == 2)
            window.resize(wh[0].toInt(), wh[1].toInt());
        if (!scheme.isEmpty())
            window.state()->setScheme(scheme);
        if (theme == QLatin1String("dark")) {
            auto o = window.state()->viewOptions();
            o.theme = poslab::ui::ThemeKind::Dark;
            window.state()->setViewOptions(o);
        }
        window.state()->setCursor(37);
        window.state()->undoStack()->clear();
        QTimer::singleShot(1500, &window, [&] {
            const bool ok = window.grab().save(screenshot);
            std::cerr << (ok ? "saved " : "could not save ") << screenshot.toStdString() << "\n";
            QApplication::exit(ok ? 0 : 1);
        });
    }
    window.show();
    return app.exec();
}
