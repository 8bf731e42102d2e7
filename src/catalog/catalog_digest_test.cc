#include "catalog/catalog_digest.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

// A copy of the bundled catalog's inputs (and one file that is not an input) under `name`.
fs::path copy_of_catalog(const std::string& name) {
  fs::path root = testing::fresh_dir(name);
  for (const char* input : kCatalogInputs) {
    fs::path from = fs::path(testing::source_dir()) / input;
    if (fs::exists(from)) fs::copy(from, root / input, fs::copy_options::recursive);
  }
  fs::create_directories(root / "site");
  std::ofstream(root / "site/index.html") << "output, not input";
  return root;
}

TEST(CatalogDigest, DependsOnEveryInputAndNothingElse) {
  fs::path root = copy_of_catalog("digest");
  std::optional<std::string> digest = catalog_inputs_digest(root);
  ASSERT_TRUE(digest);
  EXPECT_EQ(digest->size(), 64u);
  EXPECT_EQ(catalog_inputs_digest(copy_of_catalog("digest_copy")), digest)
      << "where the catalog lies is not an input";
  EXPECT_EQ(catalog_inputs_digest(testing::source_dir()), digest);

  std::ofstream(root / "site/index.html") << "changed";
  fs::create_directories(root / "build");
  std::ofstream(root / "build/openrecipes") << "binary";
  EXPECT_EQ(catalog_inputs_digest(root), digest) << "site/ and build/ are not inputs";

  std::string recipe = (root / testing::kBundledRecipes[0]).string();
  std::ofstream(recipe, std::ios::app) << "# one more byte\n";
  std::optional<std::string> edited = catalog_inputs_digest(root);
  EXPECT_NE(edited, digest) << "a recipe's bytes";

  std::ofstream(root / "data/measurements/new.yaml") << "";
  std::optional<std::string> added = catalog_inputs_digest(root);
  EXPECT_NE(added, edited) << "an empty file is still a file";

  fs::rename(root / "data/measurements/new.yaml", root / "data/measurements/renamed.yaml");
  EXPECT_NE(catalog_inputs_digest(root), added) << "a file's name";
}

TEST(CatalogDigest, NamesAFifoWithoutOpeningIt) {
  fs::path root = copy_of_catalog("digest_fifo");
  std::optional<std::string> before = catalog_inputs_digest(root);
  ASSERT_EQ(::mkfifo((root / "recipes/pipe.yaml").c_str(), 0644), 0);
  std::optional<std::string> with_fifo = catalog_inputs_digest(root);  // would block if opened
  ASSERT_TRUE(with_fifo);
  EXPECT_NE(with_fifo, before);
}

TEST(CatalogDigest, FollowsLinksAndGivesUpOnALoop) {
  fs::path root = copy_of_catalog("digest_links");
  fs::path elsewhere = testing::fresh_dir("digest_links_target");
  std::ofstream(elsewhere / "config.json") << "{}";
  fs::create_directory_symlink(elsewhere, root / "models/linked");
  std::optional<std::string> linked = catalog_inputs_digest(root);
  ASSERT_TRUE(linked);
  std::ofstream(elsewhere / "config.json") << "{\"hidden_size\": 1}";
  EXPECT_NE(catalog_inputs_digest(root), linked) << "a linked folder's files are inputs";
  // A recipe folder swapped for a link to the same files: the loader no longer reads them.
  std::optional<std::string> real = catalog_inputs_digest(root);
  fs::rename(root / "recipes/gpt-oss-20b", elsewhere / "gpt-oss-20b");
  fs::create_directory_symlink(elsewhere / "gpt-oss-20b", root / "recipes/gpt-oss-20b");
  EXPECT_NE(catalog_inputs_digest(root), real);
  fs::create_directory_symlink(root / "models", root / "models/loop");
  EXPECT_EQ(catalog_inputs_digest(root), std::nullopt);
}

}  // namespace
}  // namespace openrecipes
