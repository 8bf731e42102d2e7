#include "site/template_renderer.h"

#include <fmt/format.h>
#include <kainjow/mustache.hpp>

#include "base/source_text.h"
#include "base/yaml_document.h"
#include "base/utf8.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace openrecipes {
namespace {

namespace mustache = kainjow::mustache;

mustache::data to_data(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object: {
      mustache::data object{mustache::data::type::object};
      for (const auto& [key, child] : value.items()) object.set(key, to_data(child));
      return object;
    }
    case nlohmann::json::value_t::array: {
      mustache::data list{mustache::data::type::list};
      for (const auto& child : value) list.push_back(to_data(child));
      return list;
    }
    case nlohmann::json::value_t::string:
      return mustache::data{value.get<std::string>()};
    case nlohmann::json::value_t::boolean:
      return mustache::data{value.get<bool>()};
    case nlohmann::json::value_t::null:
      return mustache::data{false};
    default:
      return mustache::data{value.dump()};  // numbers: already the text to show
  }
}

}  // namespace

std::optional<TemplateRenderer> TemplateRenderer::load(const std::filesystem::path& folder,
                                                       Problems& problems) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    problems.push_back({folder.string(), {0, 0}, "", "templates", "the templates folder is missing", "", ""});
    return std::nullopt;
  }
  TemplateRenderer renderer;
  std::size_t before = problems.size();
  std::vector<fs::path> paths;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec)) {
    if (entry.path().extension() == ".mustache") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  for (const fs::path& path : paths) {
    std::optional<std::string> text = read_text_file(path.string(), kMaxCatalogFileBytes, problems);
    if (!text) continue;
    if (std::optional<std::size_t> bad = first_invalid_utf8(*text)) {
      problems.push_back({path.string(), SourceText(*text).position(*bad), "", "templates",
                          fmt::format("not valid UTF-8 at byte offset {}", *bad), "", ""});
      continue;
    }
    mustache::mustache parsed{*text};
    if (!parsed.is_valid()) {
      // kainjow names a byte offset ("... at 4268"); turn it into line:column.
      std::string message = parsed.error_message();
      SourcePosition position{1, 1};
      std::size_t at = message.rfind(" at ");
      if (at != std::string::npos) {
        std::size_t offset = std::strtoull(message.c_str() + at + 4, nullptr, 10);
        position = SourceText(*text).position(offset);
        message.resize(at);
      }
      problems.push_back({path.string(), position, "", "templates", "the template does not parse: " + message, "", ""});
      continue;
    }
    renderer.templates_[path.stem().string()] = *text;
  }
  for (const char* required : {"_head", "_foot", "index", "pair", "fields", "running", "submit"}) {
    if (problems.size() == before && !renderer.templates_.count(required)) {
      problems.push_back({(folder / (std::string(required) + ".mustache")).string(), {0, 0}, "", "templates",
                          "the site needs this template; it is missing", "", ""});
    }
  }
  // Every {{> partial}} must exist: kainjow renders an unknown one as nothing.
  for (const auto& [name, text] : renderer.templates_) {
    for (std::size_t at = text.find("{{>"); at != std::string::npos; at = text.find("{{>", at + 3)) {
      std::size_t close = text.find("}}", at);
      std::string partial = text.substr(at + 3, close == std::string::npos ? 0 : close - at - 3);
      partial.erase(0, partial.find_first_not_of(' '));
      partial.erase(partial.find_last_not_of(' ') + 1);
      if (!renderer.templates_.count(partial) || partial.rfind('_', 0) != 0) {
        problems.push_back({(folder / (name + ".mustache")).string(), SourceText(text).position(at), "", "templates",
                            fmt::format("includes '{}', which is not a partial template (_name.mustache) here", partial),
                            "", ""});
      }
    }
  }
  if (problems.size() != before) return std::nullopt;
  return renderer;
}

std::string TemplateRenderer::render(const std::string& name, const nlohmann::json& context) const {
  auto it = templates_.find(name);
  if (it == templates_.end()) throw std::runtime_error("no template " + name + ".mustache");
  mustache::data data = to_data(context);
  for (const auto& [partial_name, text] : templates_) {
    if (partial_name.rfind('_', 0) != 0) continue;  // only _name templates are partials
    std::string partial_text = text;
    data.set(partial_name, mustache::partial{[partial_text] { return partial_text; }});
  }
  mustache::mustache view{it->second};
  std::string out = view.render(data);
  if (!view.is_valid()) {
    throw std::runtime_error(fmt::format("{}.mustache: {}", name, view.error_message()));
  }
  return out;
}

}  // namespace openrecipes
