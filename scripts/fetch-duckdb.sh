#!/usr/bin/env bash
# Fetches DuckDB (Parquet reading and writing; Debian has no Parquet library) from npm into
# deps/duckdb/ (ignored): lib/libduckdb.so from @duckdb/node-bindings-linux-x64 and
# include/duckdb.h from the `duckdb` package of the same DuckDB release. Both tarballs are pinned
# by version and checked against their npm sha512 integrity. CMake looks in deps/duckdb first,
# then wherever a user's own libduckdb is installed. Called by scripts/install-deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

duckdb_version=1.4.4
bindings_version=1.4.4-r.4   # @duckdb/node-bindings-linux-x64 built from DuckDB 1.4.4
bindings_integrity=sha512-jBTL/WvfwxLToFa/pVHfT6elMtltJGnc3wSuxZD9OfMltit9YUdVFS37vBFQzXMT1Z8OWjtSjMh+zPKxOwHLHA==
header_integrity=sha512-hEJJ5hyVF0VLj3dmOLpsWrQR0b3d4Ykqtygm6iUXjHJDDnSqg/USKxcb5qvNrOhFYPgktayU6dXCtgPqcmmpog==

target=deps/duckdb
stamp="$target/VERSION"
want="duckdb $duckdb_version (bindings $bindings_version)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -f "$target/lib/libduckdb.so" ] &&
   [ -f "$target/include/duckdb.h" ]; then
  exit 0
fi
if [ "$(uname -m)" != x86_64 ]; then
  echo "fetch-duckdb.sh: npm ships libduckdb for x86_64 here; on $(uname -m) install libduckdb" \
       "(lib and duckdb.h) yourself and CMake will find it" >&2
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fetch() {  # fetch PACKAGE@VERSION EXPECTED_INTEGRITY -> tarball path on stdout
  local spec=$1 expected=$2 integrity file
  # npm's --json report lists every file of the package; read only its first entry's fields.
  read -r integrity file < <(cd "$work" && npm pack "$spec" --json --silent |
    node -e 'let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
      const p = JSON.parse(s)[0]; console.log(p.integrity, p.filename); })')
  if [ "$integrity" != "$expected" ]; then
    echo "fetch-duckdb.sh: $spec has integrity $integrity, expected $expected" >&2
    exit 1
  fi
  echo "$work/$file"
}
bindings=$(fetch "@duckdb/node-bindings-linux-x64@$bindings_version" "$bindings_integrity")
header=$(fetch "duckdb@$duckdb_version" "$header_integrity")

staging="$work/staging"
mkdir -p "$staging/lib" "$staging/include"
tar -xzf "$bindings" -C "$work" package/libduckdb.so package/LICENSE
mv "$work/package/libduckdb.so" "$staging/lib/"
mv "$work/package/LICENSE" "$staging/LICENSE"
tar -xzf "$header" -C "$work" package/src/duckdb/src/include/duckdb.h
mv "$work/package/src/duckdb/src/include/duckdb.h" "$staging/include/"
echo "$want" >"$staging/VERSION"
rm -rf "$target"
mkdir -p "$(dirname "$target")"
mv "$staging" "$target"
echo "fetch-duckdb.sh: $want in $target"
