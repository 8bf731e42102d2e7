#include "site/site_files.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <set>
#include <sstream>

#include "base/error.h"
#include "site/site_builder.h"
#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

fs::path fresh_folder(const std::string& name) { return testing::fresh_dir(name); }

std::string read(const fs::path& path) { return testing::read_file(path); }

// The names of the entries beside `out` in its folder.
std::set<std::string> siblings_of(const fs::path& out) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(out.parent_path())) {
    if (entry.path() != out) names.insert(entry.path().filename().string());
  }
  return names;
}

// What write_site_atomically's IoError says, or "" when it wrote the site.
std::string write_error(const fs::path& out, const SiteFiles& files) {
  try {
    write_site_atomically(out, files);
    return "";
  } catch (const IoError& error) {
    return error.what();
  }
}

TEST(WriteSite, CreatesThenSwapsWholeSites) {
  fs::path out = fresh_folder("swap") / "site";
  ASSERT_NO_THROW(write_site_atomically(out, {{"index.html", "one"}, {"a/b.html", "b"}}));
  EXPECT_EQ(read(out / "a/b.html"), "b");
  ASSERT_NO_THROW(write_site_atomically(out, {{"index.html", "two"}}));
  EXPECT_EQ(read(out / "index.html"), "two");
  EXPECT_FALSE(fs::exists(out / "a/b.html"));  // the old site is gone whole
  EXPECT_EQ(siblings_of(out), std::set<std::string>{".site.spare"})
      << "no temporary folder is left behind, only the spare";
  EXPECT_EQ(read(out.parent_path() / ".site.spare/a/b.html"), "b") << "the spare is the old site";
}

// The spare is updated to hold exactly the new site: stale pages replaced, pages and folders the
// new site lacks removed, and whatever else was put in it (a symbolic link, a FIFO) removed
// without being followed or opened.
TEST(WriteSite, RecyclesTheSpareIntoExactlyTheNewSite) {
  fs::path base = fresh_folder("recycle");
  fs::path out = base / "site";
  fs::path spare = base / ".site.spare";
  ASSERT_NO_THROW(write_site_atomically(
      out, {{"index.html", "1"}, {"gone/deep/page.html", "g"}, {"m/kept.html", "k"}}));
  ASSERT_NO_THROW(write_site_atomically(out, {{"index.html", "2"}, {"m/kept.html", "k"}}));
  ASSERT_TRUE(fs::exists(spare / "gone/deep/page.html"));
  fs::create_directory_symlink(base, spare / "m/outside");
  ASSERT_EQ(::mkfifo((spare / "m/pipe").c_str(), 0644), 0);
  std::ofstream(base / "victim.txt") << "untouched";
  fs::create_symlink(base / "victim.txt", spare / "m/new.html");  // where a new page goes

  SiteFiles third = {{"index.html", "3"}, {"m/kept.html", "k"}, {"m/new.html", "n"}};
  ASSERT_NO_THROW(write_site_atomically(out, third));
  EXPECT_TRUE(compare_site(out, third).empty());
  EXPECT_EQ(read(base / "victim.txt"), "untouched");
  EXPECT_TRUE(fs::exists(base / "victim.txt"));
  // The second site is the spare now, unchanged by the third's build.
  EXPECT_TRUE(compare_site(spare, {{"index.html", "2"}, {"m/kept.html", "k"}}).empty());
}

// Unchanged pages are shared with the site they replace (one inode, no copy), and a changed page
// is a new file: the site being read is never written in place.
TEST(WriteSite, LinksUnchangedPagesAndNeverWritesInPlace) {
  fs::path base = fresh_folder("links");
  fs::path out = base / "site";
  ASSERT_NO_THROW(write_site_atomically(out, {{"same.html", "s"}, {"changed.html", "old"}}));
  // A reader holding the old page (here: one more name for its inode) keeps reading old bytes.
  fs::create_hard_link(out / "changed.html", base / "reader.html");
  ASSERT_NO_THROW(write_site_atomically(out, {{"same.html", "s"}, {"changed.html", "new"}}));
  ASSERT_NO_THROW(write_site_atomically(out, {{"same.html", "s"}, {"changed.html", "newer"}}));
  EXPECT_EQ(read(base / "reader.html"), "old");
  EXPECT_EQ(read(out / "changed.html"), "newer");
  EXPECT_EQ(read(base / ".site.spare/changed.html"), "new");
  struct stat site_page {
  }, spare_page{};
  ASSERT_EQ(::stat((out / "same.html").c_str(), &site_page), 0);
  ASSERT_EQ(::stat((base / ".site.spare/same.html").c_str(), &spare_page), 0);
  EXPECT_EQ(site_page.st_ino, spare_page.st_ino);
}

// A folder named like the spare that no build wrote (no marker) is neither used nor removed.
TEST(WriteSite, LeavesAForeignSpareAlone) {
  fs::path base = fresh_folder("foreign_spare");
  fs::path out = base / "site";
  fs::create_directories(base / ".site.spare");
  std::ofstream(base / ".site.spare/notes.txt") << "mine";
  ASSERT_NO_THROW(write_site_atomically(out, {{"index.html", "1"}}));
  ASSERT_NO_THROW(write_site_atomically(out, {{"index.html", "2"}}));
  EXPECT_EQ(read(out / "index.html"), "2");
  EXPECT_EQ(read(base / ".site.spare/notes.txt"), "mine");
  EXPECT_EQ(siblings_of(out), std::set<std::string>{".site.spare"});
}

TEST(WriteSite, RefusesAFolderItDidNotWrite) {
  fs::path out = fresh_folder("foreign");
  std::ofstream(out / "precious.txt") << "keep me";
  std::string error = write_error(out, {{"index.html", "x"}});
  EXPECT_NE(error.find("refusing to replace"), std::string::npos) << error;
  EXPECT_EQ(read(out / "precious.txt"), "keep me");
}

TEST(WriteSite, AFailedWriteLeavesTheOldSite) {
  fs::path out = fresh_folder("failed") / "site";
  ASSERT_NO_THROW(write_site_atomically(out, {{"index.html", "old"}}));
  // A file and a folder of the same name cannot both be written: the build fails midway.
  std::string error = write_error(out, {{"x", "file"}, {"x/y.html", "under a file"}});
  EXPECT_FALSE(error.empty());
  EXPECT_EQ(read(out / "index.html"), "old");
  EXPECT_TRUE(siblings_of(out).empty());
}

TEST(WriteSite, RefusesASymbolicLink) {
  fs::path base = fresh_folder("link");
  fs::create_directories(base / "real");
  fs::create_directory_symlink(base / "real", base / "site");
  std::string error = write_error(base / "site", {{"index.html", "x"}});
  EXPECT_NE(error.find("symbolic link"), std::string::npos) << error;
  EXPECT_TRUE(fs::is_symlink(base / "site"));
}

TEST(CompareSite, ReportsSymlinksAndAFileInPlaceOfTheFolder) {
  fs::path out = fresh_folder("compare_links") / "site";
  ASSERT_NO_THROW(write_site_atomically(out, {{"index.html", "i"}}));
  fs::create_symlink("/etc/hostname", out / "leak.txt");
  std::vector<SiteDifference> differences = compare_site(out, {{"index.html", "i"}});
  ASSERT_EQ(differences.size(), 1u);
  EXPECT_EQ(differences[0].path, "leak.txt");
  EXPECT_EQ(differences[0].reason, "a symbolic link");
  std::ofstream(out.parent_path() / "file") << "x";
  differences = compare_site(out.parent_path() / "file", {{"index.html", "i"}});
  ASSERT_EQ(differences.size(), 1u);
  EXPECT_EQ(differences[0].kind, SiteDifference::Kind::kUnreadable);
}

// A FIFO in place of a page and one elsewhere: named by kind, never opened (which would block).
TEST(CompareSite, NamesFifosWithoutOpeningThem) {
  fs::path out = fresh_folder("compare_fifo") / "site";
  SiteFiles files = {{"index.html", "i"}, {"m/page.html", "p"}};
  ASSERT_NO_THROW(write_site_atomically(out, files));
  fs::remove(out / "m/page.html");
  ASSERT_EQ(::mkfifo((out / "m/page.html").c_str(), 0644), 0);
  ASSERT_EQ(::mkfifo((out / "stray").c_str(), 0644), 0);
  std::vector<SiteDifference> differences = compare_site(out, files);
  ASSERT_EQ(differences.size(), 2u);
  EXPECT_EQ(differences[0].path, "m/page.html");
  EXPECT_EQ(differences[0].kind, SiteDifference::Kind::kStale);
  EXPECT_EQ(differences[0].reason, "a FIFO");
  EXPECT_EQ(differences[1].path, "stray");
  EXPECT_EQ(differences[1].kind, SiteDifference::Kind::kExtra);
  EXPECT_EQ(differences[1].reason, "a FIFO");
}

TEST(CompareSite, ListsStaleMissingAndExtraFiles) {
  fs::path out = fresh_folder("compare") / "site";
  ASSERT_NO_THROW(
      write_site_atomically(out, {{"same.html", "s"}, {"stale.html", "old"}, {"extra.html", "e"}}));
  std::vector<SiteDifference> differences =
      compare_site(out, {{"same.html", "s"}, {"stale.html", "new"}, {"missing.html", "m"}});
  ASSERT_EQ(differences.size(), 3u);
  EXPECT_EQ(differences[0].path, "extra.html");
  EXPECT_EQ(differences[0].kind, SiteDifference::Kind::kExtra);
  EXPECT_EQ(differences[1].path, "missing.html");
  EXPECT_EQ(differences[1].kind, SiteDifference::Kind::kMissing);
  EXPECT_EQ(differences[2].path, "stale.html");
  EXPECT_EQ(differences[2].kind, SiteDifference::Kind::kStale);
  EXPECT_TRUE(
      compare_site(out, {{"same.html", "s"}, {"stale.html", "old"}, {"extra.html", "e"}}).empty());
}

TEST(BuildSite, IsDeterministicAndEscapesRecipeText) {
  CatalogCheck check = check_catalog(testing::source_dir(), {}, testing::source_dir());
  ASSERT_TRUE(check.problems.empty()) << testing::describe(check.problems);
  Problems problems;
  // The planner's suggestions are computed once (seconds); that they come out the same on every
  // run and machine is what the test site_is_current checks against the committed site.
  SitePredictions predictions = predict_unmeasured_pairs(check);
  std::optional<SiteFiles> first = build_site(check, predictions, problems);
  std::optional<SiteFiles> second = build_site(check, predictions, problems);
  ASSERT_TRUE(first && second) << testing::describe(problems);
  EXPECT_EQ(*first, *second);
  for (const char* page : {"index.html", "fields.html", "running.html", "submit.html", "style.css",
                           "qwen3.5-122b-a10b/h200/index.html", "gpt-oss-20b/h200/index.html",
                           "recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml",
                           "gpt-oss-20b/h200/attune-tp1-pp2-ep4.html",
                           "qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-rc2.html"}) {
    EXPECT_TRUE(first->count(page)) << page;
  }
  // The pair page links each recipe's own page and keeps its old anchor; the command and the
  // YAML are on the recipe's page only.
  const std::string& pair = first->at("gpt-oss-20b/h200/index.html");
  EXPECT_NE(pair.find("id=\"attune-tp1-pp2-ep4\""), std::string::npos);
  EXPECT_NE(pair.find("href=\"attune-tp1-pp2-ep4.html\""), std::string::npos);
  EXPECT_EQ(pair.find("slime entry module"), std::string::npos);
  // The run command holds "<slime entry module>": it must reach the page escaped.
  const std::string& page = first->at("gpt-oss-20b/h200/attune-tp1-pp2-ep4.html");
  EXPECT_NE(page.find("python3 -m &lt;slime entry module&gt;"), std::string::npos);
  EXPECT_EQ(page.find("<slime entry module>"), std::string::npos);
  EXPECT_EQ(page.find("http://"), std::string::npos) << "no resource from another host";
}

}  // namespace
}  // namespace openrecipes
