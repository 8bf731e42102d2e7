// The server's request path → file mapping (site/site_server.h resolve_site_path) on any bytes
// as a decoded request path, over a small site made once in the scratch folder: index.html,
// style.css, a folder with its index.html, a dotfile, and symlinks that stay inside and that lead
// out. Checks what it promises: "" or a regular file inside the (canonical) root.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "fuzz_support.h"
#include "site/site_server.h"

namespace {

namespace fs = std::filesystem;

fs::path root, outside;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  using openrecipes::fuzz::write_scratch_file;
  outside = fs::path(write_scratch_file("secret.txt", "outside the site")).parent_path();
  root = outside / "site";
  fs::create_directories(root / "m" / "g");
  write_scratch_file("site/index.html", "<p>home</p>");
  write_scratch_file("site/style.css", "p {}");
  write_scratch_file("site/.hidden", "dotfile");
  write_scratch_file("site/m/g/index.html", "<p>g</p>");
  fs::create_symlink(root / "style.css", root / "inside-link.css");
  fs::create_symlink(outside / "secret.txt", root / "outside-link.txt");
  fs::create_directory_symlink(outside, root / "outside-dir");
  root = fs::canonical(root);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  fs::path file = resolve_site_path(root, std::string(fuzz::as_text(data, size)));
  if (file.empty()) return 0;
  std::error_code ec;
  fuzz::check(fs::is_regular_file(file, ec), "resolve_site_path: a regular file");
  auto [end, unused] = std::mismatch(root.begin(), root.end(), file.begin(), file.end());
  fuzz::check(end == root.end(), "resolve_site_path: inside the root");
  fuzz::check(file.filename().string().front() != '.', "resolve_site_path: no dotfile");
  (void)content_type_for(file.filename().string());
  return 0;
}
