// A small static file server for a built site, for reading the catalog locally.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

namespace httplib {
class Server;
}

namespace openrecipes {

/// The Content-Type for a file name by its extension (text types with charset=utf-8);
/// application/octet-stream when unknown.
std::string content_type_for(const std::string& file_name);

/// Maps a decoded request path to a file inside `root` (canonical): "/" and folders map to their
/// index.html. Returns "" for anything outside `root` — `..` segments, backslashes, NUL bytes,
/// or a symlink that leads out — and for anything that is not a regular file.
std::filesystem::path resolve_site_path(const std::filesystem::path& root,
                                        const std::string& request_path);

/// Serves the files under one folder over HTTP: GET and HEAD, the right Content-Type,
/// 404 for missing files and for every path that would leave the folder.
class SiteServer {
 public:
  explicit SiteServer(std::filesystem::path root);
  ~SiteServer();

  /// Binds `host`:`port` (port 0 picks a free one). Returns the bound port, or -1 on failure.
  int bind(const std::string& host, int port);
  /// Serves until stop() is called. Returns false if the server could not run.
  bool serve();
  /// Stops serve() from another thread.
  void stop();

 private:
  std::filesystem::path root_;
  std::unique_ptr<httplib::Server> server_;
};

}  // namespace openrecipes
