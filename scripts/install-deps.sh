#!/usr/bin/env bash
# Installs the Debian 12 (bookworm) packages OpenRecipes builds and tests with. Run as root.
# Every third-party library comes from here; nothing is vendored in the repository.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git ca-certificates
  libyaml-cpp-dev       # YAML with line:column marks
  nlohmann-json3-dev    # JSON values and output
  libvalijson-dev       # JSON Schema (draft-07) validation of recipes
  libcli11-dev          # command line
  libfmt-dev            # formatting
  libutf8proc-dev       # UTF-8 validation
  libgtest-dev libgmock-dev googletest
)

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps.sh: run as root (it calls apt-get install)" >&2
  exit 1
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
fi
