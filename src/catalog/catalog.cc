#include "catalog/catalog.h"

#include <algorithm>

#include "base/ascii.h"

namespace openrecipes {

namespace fs = std::filesystem;

const Model* Catalog::find_model(const std::string& name) const {
  for (const Model& model : models) {
    if (model.name == name) return &model;
  }
  return nullptr;
}

const Gpu* Catalog::find_gpu(const std::string& type) const {
  for (const Gpu& gpu : gpus) {
    if (gpu.type == type) return &gpu;
  }
  return nullptr;
}

const Author* Catalog::find_author(const std::string& name) const {
  for (const Author& author : authors) {
    if (author.name == name) return &author;
  }
  return nullptr;
}

std::optional<fs::path> find_catalog_root(const fs::path& start) {
  std::error_code ec;
  fs::path dir = fs::absolute(start, ec);
  if (ec) return std::nullopt;
  while (true) {
    if (fs::is_regular_file(dir / "models.yaml", ec) && fs::is_directory(dir / "recipes", ec)) {
      return dir;
    }
    if (!dir.has_parent_path() || dir.parent_path() == dir) return std::nullopt;
    dir = dir.parent_path();
  }
}

std::vector<std::string> list_recipe_files(const fs::path& root, Problems& problems) {
  std::vector<std::string> files;
  auto report = [&](const fs::path& path, std::string message) {
    problems.push_back({path.lexically_relative(root).generic_string(),
                        {0, 0},
                        "",
                        "catalog.files",
                        std::move(message),
                        "",
                        ""});
  };
  std::error_code ec;
  fs::recursive_directory_iterator it(root / "recipes", ec), end;
  if (ec) report(root / "recipes", "cannot read the folder: " + ec.message());
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path& path = it->path();
    std::error_code status_ec;
    fs::file_status status = fs::status(path, status_ec);  // follows links
    if (status_ec || !fs::exists(status)) {
      report(path, "a link that leads nowhere" + (status_ec ? ": " + status_ec.message() : ""));
      continue;
    }
    std::string extension = path.extension().string();
    if (!fs::is_regular_file(status)) {
      if (!fs::is_directory(status) && extension == ".yaml") report(path, "not a regular file");
      continue;
    }
    std::string lower = ascii_lowercase(extension);
    if (extension == ".yaml") {
      files.push_back(path.lexically_relative(root).generic_string());
    } else if (lower == ".yaml" || lower == ".yml") {
      report(path, "a recipe file must end in .yaml; this one is not checked");
    }
  }
  if (ec) report(root / "recipes", "cannot read the folder: " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace openrecipes
