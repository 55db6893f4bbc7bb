#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what is missing, builds, and runs every test (CTest sets QT_QPA_PLATFORM=offscreen itself; the
# soak check, label soak, runs the window for a minute under Xvfb), then each fuzz target for 4 seconds
# (scripts/fuzz.sh, built in build-fuzz/ with clang). Extra arguments go to ctest, and then no fuzzing runs.
#
# scripts/test.sh --sanitize: the same suite built with AddressSanitizer and UndefinedBehaviorSanitizer in
# build-sanitize/ (-O1 -g, frame pointers kept); the first error of either ends the test that hit it, with
# its stack, and leaks are reported at exit. Extra arguments go to ctest (e.g. -R tst_cli to run a few).
# Leaks inside system libraries with no PosLab or Qt frame are listed in scripts/lsan.supp (libdbus's bus buffer).
# Shared libraries are never unloaded in this run (scripts/sanitize-keep-libraries.c, preloaded): Mesa's GL
# driver otherwise leaves blocks that only its unmapped static data referred to, which LeakSanitizer reports
# without a module name. Every suite, the GL ones included, runs with leak detection.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
if [ "${1:-}" != --sanitize ]; then
  scripts/setup.sh
  status=0
  (cd build && ctest --output-on-failure -j"$jobs" "$@") || status=1
  # Then every fuzz target for 4 seconds over its corpus (scripts/fuzz.sh; skipped with one line without
  # clang or libFuzzer). Not when arguments pick some tests.
  if [ $# -eq 0 ]; then
    scripts/fuzz.sh --seconds 4 || status=1
  fi
  exit $status
fi
shift
scripts/setup.sh --no-build
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
dir=build-sanitize
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
        -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags" \
        -DPOSLAB_TEST_TIMEOUT=1500 >/dev/null
fi
echo "PosLab: building with AddressSanitizer and UndefinedBehaviorSanitizer in $dir/ (log: $dir/build.log)"
if ! cmake --build "$dir" -j"$jobs" >"$dir/build.log" 2>&1; then
  tail -n 60 "$dir/build.log" >&2
  echo "PosLab: the sanitizer build failed; the whole log is $dir/build.log" >&2
  exit 1
fi
cc -shared -fPIC -O1 -o "$dir/libkeep-libraries.so" scripts/sanitize-keep-libraries.c
# verify_asan_link_order=0: the preloaded library comes before the ASan runtime in the initial list. It defines
# dlclose only; ASan's wrapper of dlclose is then never called, and as nothing is unloaded it has nothing to note.
export LD_PRELOAD="$PWD/$dir/libkeep-libraries.so${LD_PRELOAD:+:$LD_PRELOAD}"
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:check_initialization_order=1:verify_asan_link_order=0"
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
cd "$dir"
exec ctest --output-on-failure -j"$jobs" "$@"
