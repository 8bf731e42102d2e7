// Nothing left behind, nothing unbounded: what a killed `build` or `rows build` leaves is removed
// by the next run, `build --check` names a FIFO without blocking on it, `tokenize` bounds its
// standard input, and `serve` logs each request unless --quiet.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "base/yaml_document.h"
#include "test_support.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

struct BoundedRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs the binary with `arguments` in the repository, stopped after 600 s (a FIFO opened by
// mistake would block it forever), its stderr merged into its stdout.
BoundedRun run_bounded(const std::string& arguments, const std::string& input_file = "/dev/null") {
  std::string command = "cd '" + testing::source_dir() +
                        "' && timeout 600 '" OPENRECIPES_BINARY "' " + arguments + " <'" +
                        input_file + "' 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return {};
  BoundedRun run;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) run.output.append(buffer, n);
  int status = pclose(pipe);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return run;
}

std::string build_into(const fs::path& out) {
  return "--root '" + testing::source_dir() + "' build --out '" + out.string() + "'";
}

TEST(Leftovers, BuildRemovesTheFolderAKilledBuildLeft) {
  fs::path dir = testing::fresh_dir("leftover_build");
  long dead = testing::exited_child_pid();
  fs::path stale = dir / fmt::format(".site.new-{}-0badc0de", dead);
  fs::path concurrent = dir / fmt::format(".site.new-{}-00000001", ::getpid());
  fs::create_directories(stale / "gpt-oss-20b");
  std::ofstream(stale / "gpt-oss-20b/index.html") << "half a site";
  fs::create_directories(concurrent);
  BoundedRun built = run_bounded(build_into(dir / "site"));
  ASSERT_EQ(built.exit_code, 0) << built.output;
  EXPECT_NE(built.output.find(fmt::format(
                "openrecipes build: removed stale temporary folder {} left by process {}\n",
                stale.string(), dead)),
            std::string::npos)
      << built.output;
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(concurrent)) << "a running build's folder is never removed";
  EXPECT_TRUE(fs::exists(dir / "site/index.html"));
  std::vector<std::string> left;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir))
    left.push_back(entry.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{concurrent.filename().string(), "site"}))
      << "the build itself leaves nothing beside the site";
}

TEST(Leftovers, RowsBuildRemovesTheFileAKilledBuildLeft) {
  fs::path dir = testing::fresh_dir("leftover_rows");
  long dead = testing::exited_child_pid();
  fs::path stale = dir / fmt::format(".rows.parquet.tmp-{}", dead);
  fs::path concurrent = dir / fmt::format(".rows.parquet.tmp-{}", ::getpid());
  std::ofstream(stale) << "PAR1 half a file";
  std::ofstream(concurrent) << "PAR1 another run's file";
  BoundedRun built =
      run_bounded("rows build --tokenizer '" + testing::npm_tokenizer_path("tokenizer-gptoss") +
                  "' --loss-mask gpt_oss --rows 8 --row-tokens 64 --name leftover "
                  "tests/fixtures/rows/conversations.jsonl -o '" +
                  (dir / "rows.parquet").string() + "'");
  ASSERT_EQ(built.exit_code, 0) << built.output;
  EXPECT_NE(built.output.find(fmt::format(
                "openrecipes rows build: removed stale temporary file {} left by process {}\n",
                stale.string(), dead)),
            std::string::npos)
      << built.output;
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(concurrent)) << "a running build's file is never removed";
  EXPECT_TRUE(fs::exists(dir / "rows.parquet"));
}

// A FIFO where a page belongs, another and a socket elsewhere: each is named, none is opened
// (opening the FIFO would block until a writer came; run_bounded would end it after 600 s).
TEST(Leftovers, BuildCheckNamesFifosAndSocketsWithoutOpeningThem) {
  fs::path dir = testing::fresh_dir("leftover_check");
  fs::path site = dir / "site";
  ASSERT_EQ(run_bounded(build_into(site)).exit_code, 0);
  fs::remove(site / "fields.html");
  ASSERT_EQ(::mkfifo((site / "fields.html").c_str(), 0644), 0);
  ASSERT_EQ(::mkfifo((site / "pipe").c_str(), 0644), 0);
  int unix_socket = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::string socket_path = (site / "sock").string();
  ASSERT_LT(socket_path.size(), sizeof address.sun_path);
  std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
  ASSERT_EQ(::bind(unix_socket, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ::close(unix_socket);

  auto start = std::chrono::steady_clock::now();
  BoundedRun check = run_bounded(build_into(site) + " --check");
  double took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(check.exit_code, 1) << check.output;
  EXPECT_LT(took_s, 50) << "build --check blocked on a FIFO";
  std::string shown = site.lexically_relative(testing::source_dir()).string();
  if (shown.starts_with("..")) shown = site.string();
  EXPECT_NE(check.output.find("stale: " + shown + "/fields.html (a FIFO)"), std::string::npos)
      << check.output;
  EXPECT_NE(check.output.find("extra: " + shown + "/pipe (a FIFO)"), std::string::npos)
      << check.output;
  EXPECT_NE(check.output.find("extra: " + shown + "/sock (a socket)"), std::string::npos)
      << check.output;
  EXPECT_EQ(check.output.find("missing: "), std::string::npos) << check.output;
}

TEST(Leftovers, TokenizeBoundsStandardInputAsFiles) {
  fs::path dir = testing::fresh_dir("leftover_tokenize");
  std::string tokenizer = testing::npm_tokenizer_path("tokenizer-gptoss");
  fs::path over = dir / "over.txt";
  std::ofstream(over) << std::string(kMaxCatalogFileBytes + 1, 'a');
  BoundedRun refused = run_bounded("tokenize --tokenizer '" + tokenizer + "' -", over.string());
  EXPECT_EQ(refused.exit_code, 1) << refused.output;
  EXPECT_EQ(refused.output,
            fmt::format("standard input: too long to tokenize at once; split the text "
                        "(expected at most {0} bytes, found more than {0} bytes)\n",
                        kMaxCatalogFileBytes));
  fs::path short_text = dir / "short.txt";
  std::ofstream(short_text) << "Hello world";
  BoundedRun counted = run_bounded("tokenize --tokenizer '" + tokenizer + "'", short_text.string());
  EXPECT_EQ(counted.exit_code, 0) << counted.output;
  EXPECT_TRUE(std::regex_search(counted.output, std::regex(R"(\ncount: [1-9][0-9]*\n)")))
      << counted.output;
}

// `serve` as a user starts it: the port it prints answers, each request is one line on stderr,
// and --quiet leaves stderr empty.
TEST(Leftovers, ServeLogsEachRequestUnlessQuiet) {
  fs::path dir = testing::fresh_dir("leftover_serve");
  ASSERT_EQ(run_bounded(build_into(dir / "site")).exit_code, 0);
  for (bool quiet : {false, true}) {
    fs::path log = dir / (quiet ? "quiet.log" : "serve.log");
    std::string command =
        "echo $$; exec timeout 60 '" OPENRECIPES_BINARY "' serve --port 0 --dir '" +
        (dir / "site").string() + "'" + (quiet ? " --quiet" : "") + " 2>'" + log.string() + "'";
    FILE* pipe = popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    char line[512] = {};
    ASSERT_NE(std::fgets(line, sizeof line, pipe), nullptr);
    pid_t server = static_cast<pid_t>(std::stol(line));  // timeout's, which passes SIGTERM on
    ASSERT_NE(std::fgets(line, sizeof line, pipe), nullptr);
    std::smatch port;
    std::string first(line);
    ASSERT_TRUE(std::regex_search(first, port, std::regex("http://127\\.0\\.0\\.1:(\\d+)/")))
        << first;
    httplib::Client client("127.0.0.1", std::stoi(port[1]));
    auto page = client.Get("/index.html");
    ASSERT_TRUE(page);
    EXPECT_EQ(page->status, 200);
    EXPECT_EQ(client.Get("/nothing")->status, 404);
    client.stop();
    ::kill(server, SIGTERM);
    EXPECT_EQ(pclose(pipe), 0) << "serve ends cleanly on SIGTERM";
    std::ifstream in(log);
    std::string logged((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (quiet) {
      EXPECT_EQ(logged, "");
    } else {
      EXPECT_TRUE(std::regex_search(logged, std::regex("\"GET /index\\.html HTTP/1\\.1\" 200 ")))
          << logged;
      EXPECT_TRUE(std::regex_search(logged, std::regex("\"GET /nothing HTTP/1\\.1\" 404 ")))
          << logged;
    }
  }
}

}  // namespace
}  // namespace openrecipes
