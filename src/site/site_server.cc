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
      {".html", "text/html; charset=utf-8"},   {".css", "text/css; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"}, {".yaml", "application/yaml; charset=utf-8"},
      {".json", "application/json"},            {".txt", "text/plain; charset=utf-8"},
      {".svg", "image/svg+xml"},                {".png", "image/png"},
      {".parquet", "application/vnd.apache.parquet"}};
  auto it = kTypes.find(fs::path(file_name).extension().string());
  return it == kTypes.end() ? "application/octet-stream" : it->second;
}

fs::path resolve_site_path(const fs::path& root, const std::string& request_path) {
  if (request_path.empty() || request_path[0] != '/') return {};
  if (request_path.find('\0') != std::string::npos || request_path.find('\\') != std::string::npos) {
    return {};
  }
  fs::path relative;
  std::stringstream segments(request_path.substr(1));
  for (std::string segment; std::getline(segments, segment, '/');) {
    if (segment == "..") return {};
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

SiteServer::SiteServer(fs::path root) : root_(std::move(root)), server_(std::make_unique<httplib::Server>()) {
  auto handler = [this](const httplib::Request& request, httplib::Response& response) {
    response.set_header("X-Content-Type-Options", "nosniff");
    response.set_header("Content-Security-Policy", "default-src 'self'");
    fs::path file = resolve_site_path(root_, request.path);
    if (file.empty()) {
      response.status = 404;
      response.set_content(kNotFound, "text/html; charset=utf-8");
      return;
    }
    std::ifstream in(file, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    response.status = 200;
    response.set_content(bytes.str(), content_type_for(file.filename().string()).c_str());
  };
  server_->Get(R"(/.*)", handler);
}

SiteServer::~SiteServer() = default;

int SiteServer::bind(const std::string& host, int port) {
  if (port == 0) return server_->bind_to_any_port(host.c_str());
  return server_->bind_to_port(host.c_str(), port) ? port : -1;
}

bool SiteServer::serve() { return server_->listen_after_bind(); }

void SiteServer::stop() { server_->stop(); }

}  // namespace openrecipes
