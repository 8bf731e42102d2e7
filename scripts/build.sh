#!/usr/bin/env bash
# Installs the dependencies, then configures and builds OpenRecipes into build/ (binary:
# build/openrecipes). `scripts/build.sh --test` also installs what the tests need and builds as
# CI does: the tests, warnings as errors (-Wall -Wextra -Wshadow -Werror) and the benchmarks.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh "$@"
# The unit-test binary is a third of the build: it is built only for --test. Both set
# BUILD_TESTING, because CMake's cache would keep the other command's value.
options=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPENRECIPES_WERROR=OFF -DOPENRECIPES_BENCH=OFF
  -DBUILD_TESTING=OFF)
if [ "${1:-}" = "--test" ]; then
  options=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DOPENRECIPES_WERROR=ON -DOPENRECIPES_BENCH=ON
    -DBUILD_TESTING=ON)
fi
# ccache, where installed, makes rebuilds after a branch switch cheap; nothing needs it.
if command -v ccache >/dev/null; then options+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B build "${options[@]}"
cmake --build build -j"$(nproc)"
