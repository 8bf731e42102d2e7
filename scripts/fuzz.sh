#!/usr/bin/env bash
# The libFuzzer targets of fuzz/ (fuzz/README.md), built with clang, ASan and UBSan into
# build-fuzz/ (configured once; later calls rebuild only what changed).
#   scripts/fuzz.sh TARGET SECONDS   build TARGET (e.g. yaml, or yaml_fuzz) and fuzz it for SECONDS,
#                                    starting from fuzz/corpus/TARGET; new inputs and crashes go to
#                                    a scratch folder ($FUZZ_SCRATCH, default /tmp/openrecipes-fuzz),
#                                    never into the tree
#   scripts/fuzz.sh all SECONDS      every target in turn, SECONDS each (.ci/run)
#   scripts/fuzz.sh --build          configure and build in build-fuzz/ the unit tests, the binary and
#                                    every target, for ctest -L 'unit|fuzz' under the sanitizers (the
#                                    end-to-end tests, tests/, run in build/: .ci/run says why)
# FUZZ_RUNS=N stops each run after N inputs (SECONDS stays the cap) and FUZZ_SEED=S fixes
# libFuzzer's seed: with both, and a fresh FUZZ_SCRATCH, a commit fuzzes the same inputs every
# time (.ci/run), so CI is red for the commit, not for the draw.
# A crash prints the input's path; copy it into fuzz/corpus/TARGET/ once fixed (ctest's fuzz_TARGET
# replays the corpus). Runs at nice 19, one target at a time, within -rss_limit_mb=2048.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-fuzz
jobs=${FUZZ_JOBS:-$(nproc)}
scratch=${FUZZ_SCRATCH:-/tmp/openrecipes-fuzz}

usage() {
  echo "usage: scripts/fuzz.sh TARGET SECONDS | all SECONDS | --build" >&2
  echo "targets: $(targets | tr '\n' ' ')" >&2
  exit 2
}
# The targets, as fuzz/CMakeLists.txt lists them.
targets() { sed -nE 's/^openrecipes_fuzz\(([a-z0-9_]+) .*/\1/p' fuzz/CMakeLists.txt; }

configure() {
  [ -f "$build/CMakeCache.txt" ] && return 0
  if ! command -v clang++ >/dev/null; then
    echo "fuzz.sh: clang++ not found: run scripts/install-deps.sh --test" >&2
    exit 1
  fi
  # Line tables are all a sanitizer's stack trace needs (full -g: 8% more compile time).
  local options=(-DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug
    "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -gline-tables-only"
    -DOPENRECIPES_FUZZ=ON -DOPENRECIPES_BENCH=OFF -DOPENRECIPES_WERROR=OFF)
  if command -v ccache >/dev/null; then options+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
  cmake -S . -B "$build" "${options[@]}" >/dev/null
}

# fuzz TARGET SECONDS: one bounded run; exits non-zero (libFuzzer's status) on a crash.
fuzz() {
  local name=${1%_fuzz} seconds=$2
  local corpus=fuzz/corpus/$name work=$scratch/$name
  [ -d "$corpus" ] || { echo "fuzz.sh: no target $name (no $corpus)" >&2; usage; }
  nice cmake --build "$build" --target "${name}_fuzz" -j"$jobs" >/dev/null
  mkdir -p "$work/corpus" "$work/crashes"
  echo "fuzz.sh: $name for ${seconds}s${FUZZ_RUNS:+ or $FUZZ_RUNS inputs} (new inputs: $work/corpus, crashes: $work/crashes)" >&2
  # The first folder receives new inputs; the tree's corpus is only read.
  local limits=(-max_total_time="$seconds")
  if [ -n "${FUZZ_RUNS:-}" ]; then limits+=(-runs="$FUZZ_RUNS"); fi
  if [ -n "${FUZZ_SEED:-}" ]; then limits+=(-seed="$FUZZ_SEED"); fi
  nice -n 19 "$build/fuzz/${name}_fuzz" "${limits[@]}" -rss_limit_mb=2048 -timeout=60 \
    -print_final_stats=1 -artifact_prefix="$work/crashes/" "$work/corpus" "$corpus"
}

[ $# -ge 1 ] || usage
configure
case "$1" in
  --build)
    nice cmake --build "$build" -j"$jobs" --target openrecipes_unit_tests openrecipes \
      $(targets | sed 's/$/_fuzz/')
    ;;
  all)
    [ $# -eq 2 ] || usage
    for name in $(targets); do fuzz "$name" "$2"; done
    ;;
  *)
    [ $# -eq 2 ] || usage
    fuzz "$1" "$2"
    ;;
esac
