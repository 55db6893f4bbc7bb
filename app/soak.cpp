// SPDX-License-Identifier: MIT
#include "app/soak.h"

#include "ui/window/mainwindow.h"
#include "ui/state/workbenchstate.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

namespace poslab::app {

namespace {

/// VmRSS in MiB, or -1 when /proc/self/status cannot be read.
double residentMiB()
{
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray& line : f.readAll().split('\n')) {
        if (line.startsWith("VmRSS:")) {
            const QByteArray kb = line.mid(6).trimmed().split(' ').value(0);
            bool ok = false;
            const double v = kb.toDouble(&ok);
            return ok ? v / 1024.0 : -1;
        }
    }
    return -1;
}

struct Soak {
    int seconds = 0;
    int warmup = 0;
    QElapsedTimer clock;
    std::vector<double> samples; ///< one a second, MiB
    double baseline = 0;
    int step = 0;
};

} // namespace

void startSoak(ui::MainWindow& window, int seconds)
{
    auto soak = std::make_shared<Soak>();
    soak->seconds = seconds;
    soak->warmup = std::max(10, seconds / 5);
    ui::WorkbenchState* state = window.state();
    const QString why = state->setScheme(QStringLiteral("rope"));
    if (!why.isEmpty()) {
        std::fprintf(stderr, "soak: cannot choose RoPE: %s\n", qPrintable(why));
        QTimer::singleShot(0, qApp, [] { QApplication::exit(1); });
        return;
    }
    state->setPlaying(true);
    std::printf("soak: %d s, animation playing, rope_theta swept 100 to 1e6 every 50 ms; warm-up %d s; "
                "fails past %.0f MiB above the warm-up's highest sample\n",
                seconds, soak->warmup, soakGrowthLimitMiB);
    std::fflush(stdout);
    soak->clock.start();

    auto* sweep = new QTimer(&window);
    sweep->setInterval(50);
    QObject::connect(sweep, &QTimer::timeout, &window, [state, soak] {
        // A triangle wave in log10(theta) between 2 and 6, 200 steps each way (20 s a round trip).
        const int phase = soak->step++ % 400;
        const double u = phase < 200 ? phase / 200.0 : (400 - phase) / 200.0;
        const double theta = std::round(std::pow(10.0, 2.0 + 4.0 * u));
        const QString why = state->setParamText(QStringLiteral("rope_theta"), QString::number(theta, 'f', 0), true);
        if (!why.isEmpty()) {
            std::fprintf(stderr, "soak: rope_theta %.0f refused: %s\n", theta, qPrintable(why));
            QApplication::exit(1);
        }
    });
    sweep->start();

    auto* sampler = new QTimer(&window);
    sampler->setInterval(1000);
    QObject::connect(sampler, &QTimer::timeout, &window, [soak] {
        const double rss = residentMiB();
        if (rss < 0) {
            std::fprintf(stderr, "soak: cannot read VmRSS from /proc/self/status\n");
            QApplication::exit(1);
            return;
        }
        soak->samples.push_back(rss);
        const int t = int(soak->samples.size());
        if (t <= soak->warmup)
            soak->baseline = std::max(soak->baseline, rss);
        std::printf("soak: t=%d s rss=%.1f MiB%s\n", t, rss, t <= soak->warmup ? " (warm-up)" : "");
        std::fflush(stdout);
        if (t > soak->warmup && rss > soak->baseline + soakGrowthLimitMiB) {
            std::printf(
                "soak: FAILED: resident memory %.1f MiB is %.1f MiB above the warm-up's %.1f MiB (limit %.0f)\n", rss,
                rss - soak->baseline, soak->baseline, soakGrowthLimitMiB);
            std::fflush(stdout);
            QApplication::exit(1);
            return;
        }
        if (t >= soak->seconds) {
            // Least-squares slope of the samples after the warm-up, in MiB per minute (for the record).
            double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
            for (int i = soak->warmup; i < t; ++i) {
                const double x = i, y = soak->samples[std::size_t(i)];
                n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y;
            }
            const double slope = n > 1 && n * sxx - sx * sx > 0 ? (n * sxy - sx * sy) / (n * sxx - sx * sx) * 60 : 0;
            std::printf("soak: passed: %d s, %d sweep steps; warm-up peak %.1f MiB, last %.1f MiB, highest %.1f MiB, "
                        "trend after warm-up %+.2f MiB/min\n",
                        t, soak->step, soak->baseline, rss,
                        *std::max_element(soak->samples.begin(), soak->samples.end()), slope);
            std::fflush(stdout);
            QApplication::exit(0);
        }
    });
    sampler->start();
}

} // namespace poslab::app
