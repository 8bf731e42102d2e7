// The catalog: its root folder and the models, GPU types and authors every recipe refers to.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "catalog/author.h"
#include "catalog/gpu.h"
#include "catalog/model.h"

namespace openrecipes {

/// The shared data of a catalog (models.yaml, gpus.yaml, authors.yaml) and where it lives.
struct Catalog {
  std::filesystem::path root;
  std::vector<Model> models;
  std::vector<Gpu> gpus;
  std::vector<Author> authors;

  /// The model named `name` (exact match), or nullptr.
  const Model* find_model(const std::string& name) const;
  /// The GPU of type `type` (exact match), or nullptr.
  const Gpu* find_gpu(const std::string& type) const;
  /// The author named `name`, or nullptr.
  const Author* find_author(const std::string& name) const;
};

/// The nearest directory at or above `start` that holds `models.yaml` and a `recipes/` folder,
/// or nullopt when there is none up to the filesystem root.
std::optional<std::filesystem::path> find_catalog_root(const std::filesystem::path& start);

/// Every `*.yaml` file under `<root>/recipes`, as paths relative to `root`, sorted. Adds a problem
/// (so that nothing is skipped in silence) for a folder it cannot read, a link that leads nowhere,
/// and a file named like YAML but not `.yaml` (`.yml`, `.YAML`).
std::vector<std::string> list_recipe_files(const std::filesystem::path& root, Problems& problems);

}  // namespace openrecipes
