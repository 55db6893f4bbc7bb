#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The fuzz targets (tests/fuzz/): builds them with clang, libFuzzer, AddressSanitizer and UBSan in
# build-fuzz/ (incremental), then runs each over its seed corpus for a bounded time.
#
#   scripts/fuzz.sh                   every target for 4 seconds (what scripts/test.sh runs)
#   scripts/fuzz.sh --minutes 10      every target for 10 minutes (the long run)
#   scripts/fuzz.sh --seconds 60 npy  one target for a minute
#
# Targets: json npy safetensors modelconfig preset state batch runfile sequence. Seeds are
# tests/fuzz/corpus/TARGET/ (never written); what a run finds goes to build-fuzz/corpus/TARGET/ and the next run
# starts from there too. A crash, hang (10 s for one input) or leak stops with the input in
# build-fuzz/artifacts/TARGET/ and exit status 1.
# Without clang or libFuzzer it says so in one line and exits 0 (scripts/setup.sh installs both).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=4
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --minutes) seconds=$(( $2 * 60 )); shift 2 ;;
    -h|--help) sed -n '3,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
all=(json npy safetensors modelconfig preset state batch runfile sequence)
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
for t in "${targets[@]}"; do
  [[ " ${all[*]} " == *" $t "* ]] || { echo "fuzz.sh: unknown target $t; targets: ${all[*]}" >&2; exit 2; }
done

cxx=$(command -v clang++ || true)
if [ -z "$cxx" ]; then
  echo "PosLab: fuzzing skipped: clang++ is not installed (Debian package clang; scripts/setup.sh installs it)"
  exit 0
fi
if [ ! -f "$("$cxx" -print-resource-dir)/lib/linux/libclang_rt.fuzzer-x86_64.a" ] \
   && ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' \
        | "$cxx" -x c++ -fsanitize=fuzzer -o /dev/null - 2>/dev/null; then
  echo "PosLab: fuzzing skipped: $cxx has no libFuzzer (Debian package libclang-rt-14-dev; scripts/setup.sh installs it)"
  exit 0
fi

dir=build-fuzz
if [ ! -f "$dir/CMakeCache.txt" ]; then
  launcher=()
  if command -v ccache >/dev/null 2>&1; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  CXX="$cxx" cmake -S tests/fuzz -B "$dir" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1" \
        "${launcher[@]}" >"$dir.configure.log" 2>&1 || { cat "$dir.configure.log" >&2; exit 1; }
  mv "$dir.configure.log" "$dir/configure.log"
fi
jobs=$(nproc 2>/dev/null || echo 2)
if ! cmake --build "$dir" -j"$jobs" >"$dir/build.log" 2>&1; then
  tail -n 60 "$dir/build.log" >&2
  echo "PosLab: the fuzz build failed; the whole log is $dir/build.log" >&2
  exit 1
fi

export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
status=0
for t in "${targets[@]}"; do
  mkdir -p "$dir/corpus/$t" "$dir/artifacts/$t" "$dir/logs"
  log="$dir/logs/$t.log"
  if "$dir/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
       -artifact_prefix="$dir/artifacts/$t/" "$dir/corpus/$t" "tests/fuzz/corpus/$t" >"$log" 2>&1; then
    stats=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -n 1 | sed 's/^#\([0-9]*\)[[:space:]]*[A-Z]*[[:space:]]*/\1 runs, /')
    echo "PosLab: fuzz_$t: ${seconds} s clean (${stats:-no stats})"
  else
    status=1
    tail -n 40 "$log" >&2
    echo "PosLab: fuzz_$t FAILED; the input is in $dir/artifacts/$t/, the whole log is $log" >&2
  fi
done
exit $status
