#include "site/site_server.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>

namespace openrecipes {

// cpp-httplib's Server with a listen backlog that fits many clients connecting at once: 0.11.4
// listens with a backlog of 5 (CPPHTTPLIB_LISTEN_BACKLOG, fixed when Debian built the library),
// so in a burst of connections the kernel drops SYNs and each client waits for its retransmit
// (1 s, then twice that, ...) before the accept loop even sees it (200 at once took 19 s). listen()
// on a listening socket only changes its backlog (listen(2)).
class BoundedHttpServer : public httplib::Server {
 public:
  void widen_backlog() { ::listen(svr_sock_, SOMAXCONN); }
};

namespace {

namespace fs = std::filesystem;

bool inside(const fs::path& root, const fs::path& path) {
  auto [root_end, _] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  return root_end == root.end();
}

const char* kNotFound =
    "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>Not found</title>"
    "<h1>Not found</h1><p><a href=\"/index.html\">All models</a></p></html>\n";

// More ranges than this in one request are ignored (the whole file is sent, as RFC 9110 §14.2
// allows): many small ranges cost more to answer than the file.
constexpr std::size_t kMaxRanges = 16;

void add_security_headers(httplib::Response& response) {
  response.set_header("X-Content-Type-Options", "nosniff");
  response.set_header("Content-Security-Policy", "default-src 'self'");
}

// cpp-httplib 0.11.4 applies `request.ranges` to every response a handler makes, whatever its
// status (a 200 or a 404 page sent in part), writes Content-Range without cutting the last
// position to the length (RFC 9110 §14.1.2), and sends 416 without `Content-Range: bytes */N`.
// So the server decides about ranges itself and hands the library only ranges it has resolved,
// through the request. The Request is Server::process_request's own non-const object, which the
// handlers only see as const, so writing to it is well defined.
httplib::Ranges& ranges_of(const httplib::Request& request) {
  return const_cast<httplib::Request&>(request).ranges;
}

std::optional<std::string> read_whole(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return bytes.str();
}

void method_not_allowed(httplib::Response& response) {
  response.status = 405;
  response.set_header("Allow", "GET, HEAD");
  // The body is left unread: the client should not send another request on this connection.
  // (cpp-httplib 0.11.4 still adds its Keep-Alive header and waits out the keep-alive timeout,
  // or the client's close, before it closes; what it reads meanwhile is never answered.)
  response.set_header("Connection", "close");
  response.set_content("Method Not Allowed\n", "text/plain; charset=utf-8");
}

void not_found(httplib::Response& response) {
  response.status = 404;
  response.set_content(kNotFound, "text/html; charset=utf-8");
}

// The file, whole (200) or in the ranges asked for (206 from the library, once resolved here).
void send_file(const httplib::Request& request, httplib::Response& response,
               const std::string& bytes, const std::string& content_type, bool use_ranges) {
  httplib::Ranges asked = ranges_of(request);
  ranges_of(request).clear();
  response.set_header("Accept-Ranges", "bytes");
  response.set_content(bytes, content_type.c_str());
  if (!use_ranges || asked.empty() || asked.size() > kMaxRanges) {
    response.status = 200;
    return;
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs(asked.begin(), asked.end());
  std::vector<ByteRange> ranges = satisfiable_ranges(pairs, bytes.size());
  if (ranges.empty()) {
    response.status = 416;  // RFC 9110 §15.5.17: say the length, send no part of the file
    response.set_header("Content-Range", fmt::format("bytes */{}", bytes.size()));
    response.set_content("Range Not Satisfiable\n", "text/plain; charset=utf-8");
    return;
  }
  for (const ByteRange& range : ranges) {
    ranges_of(request).emplace_back(static_cast<ssize_t>(range.first),
                                    static_cast<ssize_t>(range.last));
  }
  // Status left unset: the library then answers 206 with Content-Range, or multipart/byteranges
  // for several ranges.
}

void append_percent_encoded(std::string& out, unsigned char byte) {
  constexpr std::string_view kPlain = "-._~!$&'()*+,;=:@/";
  bool plain = std::isalnum(byte) || kPlain.find(static_cast<char>(byte)) != kPlain.npos;
  if (plain) {
    out += static_cast<char>(byte);
  } else {
    out += fmt::format("%{:02X}", byte);
  }
}

}  // namespace

std::string content_type_for(const std::string& file_name) {
  static const std::map<std::string, std::string> kTypes = {
      {".html", "text/html; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".yaml", "application/yaml; charset=utf-8"},
      {".json", "application/json"},
      {".txt", "text/plain; charset=utf-8"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".parquet", "application/vnd.apache.parquet"}};
  auto it = kTypes.find(fs::path(file_name).extension().string());
  return it == kTypes.end() ? "application/octet-stream" : it->second;
}

fs::path resolve_site_path(const fs::path& root, const std::string& request_path) {
  if (request_path.empty() || request_path[0] != '/') return {};
  if (request_path.find('\0') != std::string::npos ||
      request_path.find('\\') != std::string::npos) {
    return {};
  }
  fs::path relative;
  std::stringstream segments(request_path.substr(1));
  for (std::string segment; std::getline(segments, segment, '/');) {
    if (segment == ".." || (segment.size() > 1 && segment[0] == '.')) return {};  // no dotfiles
    if (segment.empty() || segment == ".") continue;
    relative /= segment;
  }
  std::error_code ec;
  fs::path canonical_root = fs::canonical(root, ec);
  if (ec) return {};
  fs::path path = fs::weakly_canonical(canonical_root / relative, ec);  // follows symlinks
  if (ec || !inside(canonical_root, path)) return {};
  if (fs::is_directory(path, ec)) path /= "index.html";
  path = fs::weakly_canonical(path, ec);
  if (ec || !inside(canonical_root, path) || !fs::is_regular_file(path, ec)) return {};
  return path;
}

std::string folder_redirect_location(const std::string& request_path) {
  std::string location = "/";
  for (char c : request_path) {
    if (c == '/' && location.back() == '/') continue;
    append_percent_encoded(location, static_cast<unsigned char>(c));
  }
  if (location.back() != '/') location += '/';
  return location;
}

std::vector<ByteRange> satisfiable_ranges(
    const std::vector<std::pair<std::int64_t, std::int64_t>>& asked, std::uint64_t length) {
  std::vector<ByteRange> ranges;
  for (auto [first, last] : asked) {
    if (length == 0) break;  // nothing in an empty file is satisfiable
    if (first < 0 && last < 0) continue;
    if (first < 0) {  // suffix range: the last `last` bytes
      if (last == 0) continue;
      std::uint64_t count = std::min<std::uint64_t>(static_cast<std::uint64_t>(last), length);
      ranges.push_back({length - count, length - 1});
      continue;
    }
    if (static_cast<std::uint64_t>(first) >= length) continue;
    if (last >= 0 && last < first) continue;
    std::uint64_t end = last < 0
                            ? length - 1
                            : std::min<std::uint64_t>(static_cast<std::uint64_t>(last), length - 1);
    ranges.push_back({static_cast<std::uint64_t>(first), end});
  }
  return ranges;
}

std::string access_log_line(const std::string& host, std::int64_t unix_time_s,
                            const std::string& method, const std::string& target,
                            const std::string& version, int status, std::uint64_t body_bytes,
                            bool body_sent) {
  std::string request;
  for (unsigned char c : method + " " + target + " " + version) {
    if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
      request += fmt::format("\\x{:02x}", c);
    } else {
      request += static_cast<char>(c);
    }
  }
  std::tm utc = fmt::gmtime(static_cast<std::time_t>(unix_time_s));
  return fmt::format("{} - - [{:%d/%b/%Y:%H:%M:%S} +0000] \"{}\" {} {}", host, utc, request, status,
                     body_sent ? std::to_string(body_bytes) : "-");
}

SiteServer::SiteServer(fs::path root, SiteServerLimits limits, AccessLog log)
    : root_(std::move(root)), server_(std::make_unique<BoundedHttpServer>()) {
  // SO_REUSEADDR only: cpp-httplib's default also sets SO_REUSEPORT, which lets a second server
  // bind a port already in use and split the requests between the two.
  server_->set_socket_options([](socket_t socket) {
    int yes = 1;
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  // One worker per connection up to the limit: cpp-httplib holds a worker for a connection's
  // whole life, so a stalled client only ever costs one of them, never the others' turn.
  std::size_t workers = static_cast<std::size_t>(std::max(1, limits.max_connections));
  server_->new_task_queue = [workers] { return new httplib::ThreadPool(workers); };
  server_->set_read_timeout(limits.read_timeout_s, 0);
  server_->set_write_timeout(limits.write_timeout_s, 0);
  server_->set_keep_alive_timeout(limits.keep_alive_timeout_s);
  server_->set_keep_alive_max_count(static_cast<std::size_t>(limits.keep_alive_max_requests));

  // Every method but GET and HEAD, whatever its body (which is never read): 405. Before routing,
  // so that cpp-httplib does not first answer 400 to a POST without a body, or 404 to a TRACE.
  server_->set_pre_routing_handler(
      [](const httplib::Request& request, httplib::Response& response) {
        add_security_headers(response);  // once, for every answer that follows
        if (request.method == "GET" || request.method == "HEAD") {
          return httplib::Server::HandlerResponse::Unhandled;
        }
        ranges_of(request).clear();
        method_not_allowed(response);
        return httplib::Server::HandlerResponse::Handled;
      });

  auto answer = [this](const httplib::Request& request, httplib::Response& response,
                       bool use_ranges) {
    fs::path file = resolve_site_path(root_, request.path);
    std::optional<std::string> bytes = file.empty() ? std::nullopt : read_whole(file);
    if (!bytes) {
      ranges_of(request).clear();
      not_found(response);
      return;
    }
    // A folder asked for without its slash: redirect, so that relative links resolve.
    if (file.filename() == "index.html" && !request.path.ends_with("/") &&
        !request.path.ends_with("index.html")) {
      ranges_of(request).clear();
      response.status = 301;
      response.set_header("Location", folder_redirect_location(request.path));
      return;
    }
    send_file(request, response, *bytes, content_type_for(file.filename().string()), use_ranges);
  };
  server_->Get(R"(/.*)", [answer](const httplib::Request& request, httplib::Response& response) {
    answer(request, response, true);
  });
  // cpp-httplib answers 416 itself, before any handler, to a Range header it cannot parse (another
  // unit, `bytes=5-2`, garbage). RFC 9110 §14.2 says to ignore such a header: answer as without it.
  server_->set_error_handler(
      [answer](const httplib::Request& request, httplib::Response& response) {
        bool unparsed_range = response.status == 416 && !response.has_header("Content-Range");
        if (!unparsed_range) return;
        ranges_of(request).clear();
        add_security_headers(response);  // the pre-routing handler did not run
        if (request.method != "GET" && request.method != "HEAD") {
          method_not_allowed(response);
          return;
        }
        response.status = -1;
        answer(request, response, false);
      });
  if (log) {
    server_->set_logger([log](const httplib::Request& request, const httplib::Response& response) {
      auto now = std::chrono::system_clock::now().time_since_epoch();
      bool body_sent = request.method != "HEAD" && !response.body.empty();
      log(access_log_line(request.remote_addr,
                          std::chrono::duration_cast<std::chrono::seconds>(now).count(),
                          request.method, request.target, request.version, response.status,
                          response.body.size(), body_sent));
    });
  }
}

SiteServer::~SiteServer() = default;

int SiteServer::bind(const std::string& host, int port) {
  int bound = -1;
  if (port == 0) {
    bound = server_->bind_to_any_port(host.c_str());
  } else if (server_->bind_to_port(host.c_str(), port)) {
    bound = port;
  }
  if (bound > 0) server_->widen_backlog();
  return bound;
}

bool SiteServer::serve() { return server_->listen_after_bind(); }

void SiteServer::stop() { server_->stop(); }

}  // namespace openrecipes
