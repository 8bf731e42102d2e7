#include "cli/serve_command.h"

#include <fmt/format.h>
#include <signal.h>

#include <memory>
#include <thread>

#include "base/error.h"
#include "cli/number_options.h"
#include "site/site_files.h"
#include "site/site_server.h"

namespace openrecipes::cli {
namespace {

namespace fs = std::filesystem;

struct ServeOptions {
  int port = 8000;
  std::string host = "127.0.0.1";
  std::string dir;
  bool quiet = false;
};

int run_serve(const GlobalOptions& global, const ServeOptions& options) {
  fs::path dir;
  if (!options.dir.empty()) {
    dir = fs::absolute(options.dir);
  } else {
    std::optional<fs::path> root = resolve_root(global);
    if (!root) return kExitUsage;
    dir = *root / "site";
  }
  std::error_code ec;
  if (!fs::is_regular_file(dir / "index.html", ec)) {
    fmt::print(stderr,
               "openrecipes serve: no site in {} (no index.html); run openrecipes build first\n",
               dir.string());
    return kExitUsage;
  }
  // Signals go to one waiting thread, which stops the server cleanly.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  if (options.host.empty()) {
    fmt::print(stderr, "openrecipes serve: --host is empty; give an address such as 127.0.0.1\n");
    return kExitUsage;
  }
  // One Common Log Format line per request on stderr; stdio writes each line whole.
  AccessLog log;
  if (!options.quiet) {
    log = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
  }
  SiteServer server(dir, SiteServerLimits{}, log);
  int port = server.bind(options.host, options.port);
  if (port < 0) {
    throw IoError(fmt::format("{}:{}", options.host, options.port),
                  fmt::format("cannot listen on {}:{} (in use, or not an address here)",
                              options.host, options.port));
  }
  std::string shown_host =
      options.host.find(':') != std::string::npos ? "[" + options.host + "]" : options.host;
  fmt::print("Serving {} at http://{}:{}/ (Ctrl-C to stop)\n", dir.string(), shown_host, port);
  std::fflush(stdout);
  std::thread waiter([&] {
    int received = 0;
    sigwait(&signals, &received);
    server.stop();
  });
  bool served = server.serve();
  pthread_kill(waiter.native_handle(), SIGTERM);  // wake the waiter if serve() ended by itself
  waiter.join();
  return served ? kExitOk : kExitProblems;
}

}  // namespace

void add_serve_command(CLI::App& app, const GlobalOptions& global, int& exit_code) {
  auto options = std::make_shared<ServeOptions>();
  CLI::App* command = app.add_subcommand("serve", "Serve the built site locally");
  command->add_option("--port", options->port, "Port (0 picks a free one)")
      ->check(whole_number(0, 65535));
  command->add_option(
      "--host", options->host,
      "Address to listen on (default 127.0.0.1; 0.0.0.0 exposes the site to your network)");
  command->add_option("--dir", options->dir, "Site folder (default: <root>/site)");
  command->add_flag("--quiet", options->quiet,
                    "No access log (one line per request on standard error otherwise)");
  command->callback([&global, &exit_code, options] { exit_code = run_serve(global, *options); });
}

}  // namespace openrecipes::cli
