#!/usr/bin/env bash
# Installs the dependencies, then configures and builds OpenRecipes into build/ (binary:
# build/openrecipes). `scripts/build.sh --test` also installs what the tests need.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh "$@"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build -j"$(nproc)"
