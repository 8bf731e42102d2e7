// A small static file server for a built site, for reading the catalog locally.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace openrecipes {

/// The Content-Type for a file name by its extension (text types with charset=utf-8);
/// application/octet-stream when unknown.
std::string content_type_for(const std::string& file_name);

/// Maps a decoded request path to a file inside `root` (canonical): "/" and folders map to their
/// index.html. Returns "" for anything outside `root` — `..` segments, backslashes, NUL bytes,
/// or a symlink that leads out — and for anything that is not a regular file.
std::filesystem::path resolve_site_path(const std::filesystem::path& root,
                                        const std::string& request_path);

/// Where a folder asked for without its trailing slash is redirected: the decoded `request_path`
/// with every run of slashes collapsed to one (so that `//host/x` never becomes a
/// protocol-relative `Location` that leaves this server), a slash appended, and every byte
/// outside RFC 3986's unreserved characters, sub-delims, ':', '@' and '/' percent-encoded.
std::string folder_redirect_location(const std::string& request_path);

/// One byte range, both ends inclusive, as in a Content-Range header.
struct ByteRange {
  std::uint64_t first = 0;
  std::uint64_t last = 0;
};

/// The ranges of a Range header as cpp-httplib parses them (first, last; -1 where absent:
/// (-1, N) is the suffix range "-N", (F, -1) is "F-") resolved against a representation of
/// `length` bytes as RFC 9110 §14.1.2 says: a last position past the end is cut to length - 1,
/// a suffix range covers the last N bytes (all of them when N > length), and an unsatisfiable
/// range (first position at or past the end, or a suffix of 0) is dropped. Empty when none is
/// satisfiable (the server answers 416).
std::vector<ByteRange> satisfiable_ranges(
    const std::vector<std::pair<std::int64_t, std::int64_t>>& asked, std::uint64_t length);

/// How the server bounds clients that are slow, idle or many. The defaults suit one person
/// reading the site, with room for a few hundred stalled connections (tests/load in
/// site_server_test.cc).
struct SiteServerLimits {
  /// Connections served at once, one worker thread each; more wait, accepted, until one ends.
  int max_connections = 256;
  /// Longest wait for each read or write on a connection, in seconds.
  int read_timeout_s = 5;
  int write_timeout_s = 5;
  /// Longest wait for a request on an open connection, the first one included, in seconds; a
  /// connection that sends nothing is closed after it.
  int keep_alive_timeout_s = 5;
  /// Requests answered on one connection before it is closed.
  int keep_alive_max_requests = 100;
};

/// Receives one access-log line per answered request (no newline), from the server's threads.
using AccessLog = std::function<void(const std::string& line)>;

/// One line of the Common Log Format (https://httpd.apache.org/docs/2.4/logs.html#common):
/// `HOST - - [DD/Mon/YYYY:HH:MM:SS +0000] "METHOD TARGET VERSION" STATUS BYTES`, the time in UTC
/// from `unix_time_s`, BYTES "-" when no body was sent. Control characters, '"' and '\' in the
/// request line are written as \xHH, so a request cannot forge a line of its own.
std::string access_log_line(const std::string& host, std::int64_t unix_time_s,
                            const std::string& method, const std::string& target,
                            const std::string& version, int status, std::uint64_t body_bytes,
                            bool body_sent);

class BoundedHttpServer;

/// Serves the files under one folder over HTTP: GET and HEAD with the right Content-Type, byte
/// ranges (206, or 416 with `Content-Range: bytes */LENGTH`), 404 for missing files and for every
/// path that would leave the folder, 405 with `Allow: GET, HEAD` for every other method.
class SiteServer {
 public:
  /// `log` gets one line per request (access_log_line); empty for none.
  explicit SiteServer(std::filesystem::path root, SiteServerLimits limits = {}, AccessLog log = {});
  ~SiteServer();

  /// Binds `host`:`port` (port 0 picks a free one). Returns the bound port, or -1 on failure.
  int bind(const std::string& host, int port);
  /// Serves until stop() is called. Returns false if the server could not run.
  bool serve();
  /// Stops serve() from another thread.
  void stop();

 private:
  std::filesystem::path root_;
  std::unique_ptr<BoundedHttpServer> server_;
};

}  // namespace openrecipes
