#include "catalog/catalog.h"

#include <algorithm>

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

std::vector<std::string> list_recipe_files(const fs::path& root) {
  std::vector<std::string> files;
  std::error_code ec;
  fs::recursive_directory_iterator it(root / "recipes", ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec) && it->path().extension() == ".yaml") {
      files.push_back(fs::relative(it->path(), root, ec).generic_string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace openrecipes
