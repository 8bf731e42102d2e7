#include "site/site_server.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <mutex>
#include <regex>
#include <thread>
#include <vector>

#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

// A TCP connection to 127.0.0.1:`port`, or -1.
int connect_to(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Reads from `fd` until the peer closes it or `timeout_ms` passes; what arrived.
std::string read_until_closed(int fd, int timeout_ms, bool* closed = nullptr) {
  std::string received;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  if (closed) *closed = false;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return received;
    pollfd one{fd, POLLIN, 0};
    if (::poll(&one, 1, static_cast<int>(left.count())) <= 0) return received;
    char buffer[4096];
    ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) {
      if (closed) *closed = true;
      return received;
    }
    received.append(buffer, static_cast<std::size_t>(n));
  }
}

// Sends `request` as it is on a new connection; the answer's bytes: its header and its
// Content-Length of body (8 s at most).
std::string raw_exchange(int port, const std::string& request) {
  int fd = connect_to(port);
  if (fd < 0) return "";
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string answer;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(8);
  while (std::chrono::steady_clock::now() < deadline) {
    std::size_t header_end = answer.find("\r\n\r\n");
    if (header_end != std::string::npos) {
      std::smatch length;
      std::string header = answer.substr(0, header_end);
      std::size_t body = std::regex_search(header, length, std::regex("Content-Length: (\\d+)"))
                             ? std::stoul(length[1])
                             : 0;
      if (answer.size() >= header_end + 4 + body) break;
    }
    bool closed = false;
    answer += read_until_closed(fd, 100, &closed);
    if (closed) break;
  }
  ::close(fd);
  return answer;
}

// A server on a free loopback port, serving in its own thread until destroyed.
struct RunningServer {
  RunningServer(const fs::path& site, SiteServerLimits limits = {}, AccessLog log = {})
      : server(site, limits, std::move(log)), port(server.bind("127.0.0.1", 0)) {
    serving = std::thread([this] { server.serve(); });
  }
  ~RunningServer() {
    server.stop();
    serving.join();
  }
  SiteServer server;
  int port;
  std::thread serving;
};

class SiteServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = testing::fresh_dir("serve");
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
  EXPECT_EQ(page->get_header_value_count("Content-Security-Policy"), 1u);
  EXPECT_EQ(page->get_header_value_count("X-Content-Type-Options"), 1u);
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
  auto doubled = client.Get("//m/g");
  ASSERT_TRUE(doubled);
  EXPECT_EQ(doubled->status, 301);
  EXPECT_EQ(doubled->get_header_value("Location"), "/m/g/") << "never //host/...: another host";
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

TEST(FolderRedirect, StaysOnThisHost) {
  EXPECT_EQ(folder_redirect_location("/m/g"), "/m/g/");
  EXPECT_EQ(folder_redirect_location("//gpt-oss-20b/h200"), "/gpt-oss-20b/h200/");
  EXPECT_EQ(folder_redirect_location("///evil.example//x"), "/evil.example/x/");
  EXPECT_EQ(folder_redirect_location("/a b/?\r\n"), "/a%20b/%3F%0D%0A/") << "no header injection";
}

TEST(SatisfiableRanges, FollowRfc9110) {
  auto one = [](std::int64_t first, std::int64_t last, std::uint64_t length) {
    std::vector<ByteRange> ranges = satisfiable_ranges({{first, last}}, length);
    return ranges.empty() ? std::string("none")
                          : std::to_string(ranges[0].first) + "-" + std::to_string(ranges[0].last);
  };
  EXPECT_EQ(one(2, 4, 10), "2-4");
  EXPECT_EQ(one(8, 100, 10), "8-9") << "a last position past the end is cut";
  EXPECT_EQ(one(3, -1, 10), "3-9") << "an open range runs to the end";
  EXPECT_EQ(one(-1, 3, 10), "7-9") << "a suffix is the last bytes";
  EXPECT_EQ(one(-1, 30, 10), "0-9") << "a suffix longer than the file is all of it";
  EXPECT_EQ(one(-1, 0, 10), "none") << "an empty suffix";
  EXPECT_EQ(one(10, 20, 10), "none") << "starting at the end";
  EXPECT_EQ(one(0, 0, 0), "none") << "an empty file";
  EXPECT_EQ(satisfiable_ranges({{0, 1}, {50, 60}, {4, 5}}, 10).size(), 2u);
}

TEST(AccessLog, IsCommonLogFormatAndEscapesTheRequest) {
  EXPECT_EQ(access_log_line("127.0.0.1", 1764619200, "GET", "/m/g/", "HTTP/1.1", 200, 1234, true),
            "127.0.0.1 - - [01/Dec/2025:20:00:00 +0000] \"GET /m/g/ HTTP/1.1\" 200 1234");
  EXPECT_EQ(access_log_line("::1", 0, "HEAD", "/a\"b\n", "HTTP/1.0", 404, 99, false),
            "::1 - - [01/Jan/1970:00:00:00 +0000] \"HEAD /a\\x22b\\x0a HTTP/1.0\" 404 -");
}

TEST_F(SiteServerTest, AnswersRangesWith206And416) {
  std::ofstream(site_ / "ten.txt") << "0123456789";
  RunningServer running(site_);
  ASSERT_GT(running.port, 0);
  httplib::Client client("127.0.0.1", running.port);
  auto part = client.Get("/ten.txt", {{"Range", "bytes=2-4"}});
  ASSERT_TRUE(part);
  EXPECT_EQ(part->status, 206);
  EXPECT_EQ(part->body, "234");
  EXPECT_EQ(part->get_header_value("Content-Range"), "bytes 2-4/10");
  auto cut = client.Get("/ten.txt", {{"Range", "bytes=8-100"}});
  ASSERT_TRUE(cut);
  EXPECT_EQ(cut->status, 206);
  EXPECT_EQ(cut->body, "89");
  EXPECT_EQ(cut->get_header_value("Content-Range"), "bytes 8-9/10");
  auto suffix = client.Get("/ten.txt", {{"Range", "bytes=-3"}});
  ASSERT_TRUE(suffix);
  EXPECT_EQ(suffix->body, "789");
  auto past = client.Get("/ten.txt", {{"Range", "bytes=10-20"}});
  ASSERT_TRUE(past);
  EXPECT_EQ(past->status, 416);
  EXPECT_EQ(past->get_header_value("Content-Range"), "bytes */10");
  auto several = client.Get("/ten.txt", {{"Range", "bytes=0-1,4-5"}});
  ASSERT_TRUE(several);
  EXPECT_EQ(several->status, 206);
  EXPECT_EQ(several->get_header_value("Content-Type").rfind("multipart/byteranges", 0), 0u);
  EXPECT_NE(several->body.find("Content-Range: bytes 4-5/10"), std::string::npos);
  for (const char* ignored : {"items=0-1", "bytes=5-2", "garbage"}) {
    auto whole = client.Get("/ten.txt", {{"Range", ignored}});
    ASSERT_TRUE(whole) << ignored;
    EXPECT_EQ(whole->get_header_value_count("Content-Security-Policy"), 1u) << ignored;
    EXPECT_EQ(whole->status, 200) << ignored << ": a Range header not understood is ignored";
    EXPECT_EQ(whole->body, "0123456789") << ignored;
  }
  auto plain = client.Get("/ten.txt");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->status, 200);
  EXPECT_EQ(plain->get_header_value("Accept-Ranges"), "bytes");
  auto missing = client.Get("/nothing", {{"Range", "bytes=0-3"}});
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_NE(missing->body.find("Not found"), std::string::npos) << "an error page is sent whole";
}

TEST_F(SiteServerTest, EveryOtherMethodIs405WhateverTheBody) {
  RunningServer running(site_);
  ASSERT_GT(running.port, 0);
  for (const char* method : {"POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT"}) {
    for (const char* body : {"", "Content-Length: 3\r\n\r\nabc"}) {
      std::string request =
          std::string(method) + " /index.html HTTP/1.1\r\nHost: x\r\n" + (*body ? body : "\r\n");
      std::string answer = raw_exchange(running.port, request);
      EXPECT_EQ(answer.rfind("HTTP/1.1 405 ", 0), 0u) << method << " " << body << ": " << answer;
      EXPECT_NE(answer.find("Allow: GET, HEAD\r\n"), std::string::npos) << method;
    }
  }
  std::string bad_range =
      raw_exchange(running.port, "POST /index.html HTTP/1.1\r\nHost: x\r\nRange: nonsense\r\n\r\n");
  EXPECT_EQ(bad_range.rfind("HTTP/1.1 405 ", 0), 0u) << bad_range;
  httplib::Client client("127.0.0.1", running.port);
  auto head = client.Head("/index.html");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
}

TEST_F(SiteServerTest, LogsOneLinePerRequest) {
  std::mutex mutex;
  std::vector<std::string> lines;
  {
    RunningServer running(site_, {}, [&](const std::string& line) {
      std::lock_guard<std::mutex> lock(mutex);
      lines.push_back(line);
    });
    httplib::Client client("127.0.0.1", running.port);
    ASSERT_TRUE(client.Get("/style.css"));
    ASSERT_TRUE(client.Get("/nothing"));
    ASSERT_TRUE(client.Head("/index.html"));
  }
  ASSERT_EQ(lines.size(), 3u);
  // Each request may come on its own connection and so its own worker: the lines are written as
  // each answer ends, in any order.
  auto line_of = [&](const std::string& request) {
    for (const std::string& line : lines) {
      if (line.find(request) != std::string::npos) return line;
    }
    return std::string("(no line for " + request + ")");
  };
  std::regex common(
      R"(127\.0\.0\.1 - - \[\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d \+0000\] "GET /style\.css HTTP/1\.1" 200 6)");
  EXPECT_TRUE(std::regex_match(line_of("/style.css"), common)) << line_of("/style.css");
  EXPECT_NE(line_of("/nothing").find("\"GET /nothing HTTP/1.1\" 404 "), std::string::npos)
      << line_of("/nothing");
  EXPECT_TRUE(line_of("/index.html").ends_with("\"HEAD /index.html HTTP/1.1\" 200 -"))
      << line_of("/index.html");
}

// The load test: 200 connections that stall (half of them silent, half stopped in the middle of
// their headers) do not delay a normal request, and the server drops them after its timeouts.
TEST_F(SiteServerTest, ServesPromptlyUnder200SlowConnections) {
  SiteServerLimits limits;
  limits.read_timeout_s = 2;
  limits.keep_alive_timeout_s = 2;
  RunningServer running(site_, limits);
  ASSERT_GT(running.port, 0);
  std::vector<int> slow;
  auto connecting = std::chrono::steady_clock::now();
  for (int i = 0; i < 200; ++i) {
    int fd = connect_to(running.port);
    ASSERT_GE(fd, 0) << "connection " << i;
    if (i % 2) {
      std::string partial = "GET /index.html HTTP/1.1\r\nHost: x\r\nX-Slow: ";
      ::send(fd, partial.data(), partial.size(), MSG_NOSIGNAL);
    }
    slow.push_back(fd);
  }
  auto start = std::chrono::steady_clock::now();
  double connect_s = std::chrono::duration<double>(start - connecting).count();
  // A backlog of 5, cpp-httplib's, drops SYNs in such a burst, and each retry waits 1 s or more.
  EXPECT_LT(connect_s, 1.0) << "200 clients connecting at once waited for SYN retries";
  httplib::Client client("127.0.0.1", running.port);
  auto page = client.Get("/m/g/");
  double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  // Under the 2 s timeouts: it did not wait for a stalled connection to be dropped.
  EXPECT_LT(took_s, 1.5) << "a normal request waited behind the stalled ones";
  RecordProperty("connect_200_ms", std::to_string(static_cast<int>(connect_s * 1000)));
  RecordProperty("normal_request_ms", std::to_string(static_cast<int>(took_s * 1000)));
  int closed_by_server = 0;
  for (int fd : slow) {
    bool closed = false;
    read_until_closed(fd, 6000, &closed);  // past both timeouts, from when they connected
    closed_by_server += closed;
    ::close(fd);
  }
  EXPECT_EQ(closed_by_server, 200) << "every stalled connection is dropped after the timeouts";
}

// Past the connection limit, a new client waits only until a stalled one times out.
TEST_F(SiteServerTest, ConnectionLimitOnlyDelaysUntilATimeout) {
  SiteServerLimits limits;
  limits.max_connections = 4;
  limits.read_timeout_s = 1;
  limits.keep_alive_timeout_s = 1;
  RunningServer running(site_, limits);
  ASSERT_GT(running.port, 0);
  std::vector<int> silent;
  for (int i = 0; i < 4; ++i) silent.push_back(connect_to(running.port));
  auto start = std::chrono::steady_clock::now();
  httplib::Client client("127.0.0.1", running.port);
  client.set_read_timeout(10, 0);
  auto page = client.Get("/m/g/");
  double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_GT(took_s, 0.5) << "the limit held: the fifth connection waited for a slot";
  EXPECT_LT(took_s, 3.0) << "but only as long as the keep-alive timeout";
  for (int fd : silent) ::close(fd);
}

}  // namespace
}  // namespace openrecipes
