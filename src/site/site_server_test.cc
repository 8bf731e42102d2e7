#include "site/site_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <fstream>
#include <thread>

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

class SiteServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::path(::testing::TempDir()) / "serve";
    fs::remove_all(base_);
    site_ = base_ / "site";
    fs::create_directories(site_ / "m/g");
    std::ofstream(site_ / "index.html") << "<h1>index</h1>";
    std::ofstream(site_ / "m/g/index.html") << "page";
    std::ofstream(site_ / "style.css") << "body{}";
    std::ofstream(site_ / "r.yaml") << "a: 1\n";
    std::ofstream(base_ / "secret.txt") << "secret";
    fs::create_symlink(base_ / "secret.txt", site_ / "leak.txt");
    fs::create_directory_symlink(base_, site_ / "up");
  }
  fs::path base_, site_;
};

TEST_F(SiteServerTest, ResolvesFilesAndFolders) {
  fs::path root = fs::canonical(site_);
  EXPECT_EQ(resolve_site_path(site_, "/"), root / "index.html");
  EXPECT_EQ(resolve_site_path(site_, "/m/g/"), root / "m/g/index.html");
  EXPECT_EQ(resolve_site_path(site_, "/m/g"), root / "m/g/index.html");
  EXPECT_EQ(resolve_site_path(site_, "/style.css"), root / "style.css");
  EXPECT_EQ(resolve_site_path(site_, "/missing.html"), fs::path());
}

TEST_F(SiteServerTest, NeverLeavesTheSite) {
  for (const char* path : {"/../secret.txt", "/m/../../secret.txt", "/leak.txt", "/up/secret.txt",
                           "/..\\secret.txt", "relative", ""}) {
    EXPECT_EQ(resolve_site_path(site_, path), fs::path()) << path;
  }
  EXPECT_EQ(resolve_site_path(site_, std::string("/index.html\0x", 13)), fs::path());
  std::ofstream(site_ / ".openrecipes-site") << "";
  EXPECT_EQ(resolve_site_path(site_, "/.openrecipes-site"), fs::path()) << "dotfiles stay private";
}

TEST_F(SiteServerTest, ServesOverHttpWithTypesAnd404s) {
  SiteServer server(site_);
  int port = server.bind("127.0.0.1", 0);
  ASSERT_GT(port, 0);
  std::thread serving([&] { server.serve(); });
  httplib::Client client("127.0.0.1", port);
  auto page = client.Get("/m/g/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->body, "page");
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  auto yaml = client.Get("/r.yaml");
  ASSERT_TRUE(yaml);
  EXPECT_EQ(yaml->get_header_value("Content-Type"), "application/yaml; charset=utf-8");
  EXPECT_EQ(client.Get("/style.css")->get_header_value("Content-Type"), "text/css; charset=utf-8");
  EXPECT_EQ(client.Get("/nothing")->status, 404);
  EXPECT_EQ(client.Get("/%2e%2e/secret.txt")->status, 404);  // encoded ..
  EXPECT_EQ(client.Get("/up/secret.txt")->status, 404);      // symlink out
  auto folder = client.Get("/m/g");
  ASSERT_TRUE(folder);
  EXPECT_EQ(folder->status, 301);
  EXPECT_EQ(folder->get_header_value("Location"), "/m/g/");
  auto post = client.Post("/index.html", "x", "text/plain");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
  EXPECT_EQ(post->get_header_value("Content-Security-Policy"), "default-src 'self'");
  SiteServer second(site_);
  EXPECT_EQ(second.bind("127.0.0.1", port), -1) << "a port in use is refused, not shared";
  server.stop();
  serving.join();
}

TEST(ContentType, ByExtension) {
  EXPECT_EQ(content_type_for("a.html"), "text/html; charset=utf-8");
  EXPECT_EQ(content_type_for("a.js"), "text/javascript; charset=utf-8");
  EXPECT_EQ(content_type_for("a.bin"), "application/octet-stream");
}

}  // namespace
}  // namespace openrecipes
