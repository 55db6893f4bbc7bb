// SPDX-License-Identifier: MIT
// PosLab entry point: headless subcommands run without creating a QApplication; otherwise the window opens.
#include "app/cli.h"
#include "ui/mainwindow.h"

#include <QApplication>

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    if (poslab::app::isHeadless(args))
        return poslab::app::runCli(args, std::cout, std::cerr);
    if (!args.empty() && args[0].rfind("-", 0) != 0) {
        std::cerr << "poslab: unknown command '" << args[0] << "'; commands: schemes, compute, bench (see poslab --help)\n";
        return poslab::app::exitUsage;
    }
    QApplication app(argc, argv);
    QApplication::setApplicationName("PosLab");
    QApplication::setOrganizationName("PosLab");
    poslab::ui::MainWindow window;
    window.show();
    return app.exec();
}
