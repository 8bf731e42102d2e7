#include "site/site_server.h"

#include <httplib.h>

#include <fstream>
#include <map>
#include <sstream>

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

bool inside(const fs::path& root, const fs::path& path) {
  auto [root_end, _] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  return root_end == root.end();
}

const char* kNotFound =
    "<!doctype html><html lang=\"en\"><meta charset=\"utf-8\"><title>Not found</title>"
    "<h1>Not found</h1><p><a href=\"/index.html\">All models</a></p></html>\n";

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

SiteServer::SiteServer(fs::path root)
    : root_(std::move(root)), server_(std::make_unique<httplib::Server>()) {
  // SO_REUSEADDR only: cpp-httplib's default also sets SO_REUSEPORT, which lets a second server
  // bind a port already in use and split the requests between the two.
  server_->set_socket_options([](socket_t socket) {
    int yes = 1;
    setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  server_->set_read_timeout(5, 0);
  server_->set_write_timeout(5, 0);
  auto secure = [](httplib::Response& response) {
    response.set_header("X-Content-Type-Options", "nosniff");
    response.set_header("Content-Security-Policy", "default-src 'self'");
  };
  auto handler = [this, secure](const httplib::Request& request, httplib::Response& response) {
    secure(response);
    fs::path file = resolve_site_path(root_, request.path);
    if (file.empty()) {
      response.status = 404;
      response.set_content(kNotFound, "text/html; charset=utf-8");
      return;
    }
    // A folder asked for without its slash: redirect, so that relative links resolve.
    if (file.filename() == "index.html" && !request.path.ends_with("/") &&
        !request.path.ends_with("index.html")) {
      response.status = 301;
      response.set_header("Location", request.path + "/");
      return;
    }
    std::ifstream in(file, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    response.status = 200;
    response.set_content(bytes.str(), content_type_for(file.filename().string()).c_str());
  };
  auto not_allowed = [secure](const httplib::Request&, httplib::Response& response) {
    secure(response);
    response.status = 405;
    response.set_header("Allow", "GET, HEAD");
    response.set_content("Method Not Allowed\n", "text/plain; charset=utf-8");
  };
  server_->Get(R"(/.*)", handler);
  server_->Post(R"(/.*)", not_allowed);
  server_->Put(R"(/.*)", not_allowed);
  server_->Delete(R"(/.*)", not_allowed);
  server_->Patch(R"(/.*)", not_allowed);
  server_->Options(R"(/.*)", not_allowed);
}

SiteServer::~SiteServer() = default;

int SiteServer::bind(const std::string& host, int port) {
  if (port == 0) return server_->bind_to_any_port(host.c_str());
  return server_->bind_to_port(host.c_str(), port) ? port : -1;
}

bool SiteServer::serve() { return server_->listen_after_bind(); }

void SiteServer::stop() { server_->stop(); }

}  // namespace openrecipes
