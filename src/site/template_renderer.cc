#include "site/template_renderer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <kainjow/mustache.hpp>
#include <mutex>
#include <sstream>

#include "base/error.h"
#include "base/source_text.h"
#include "base/utf8.h"
#include "base/yaml_document.h"

namespace openrecipes {
namespace {

namespace mustache = kainjow::mustache;

// The page's JSON as kainjow's data. Each child is moved into its parent: kainjow's set and
// push_back take a const reference and copy the whole subtree, which made building a page's data
// cost its size times its depth.
mustache::data to_data(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::object: {
      mustache::data object{mustache::data::type::object};
      for (const auto& [key, child] : value.items()) object[key] = to_data(child);
      return object;
    }
    case nlohmann::json::value_t::array: {
      mustache::data list{mustache::data::type::list};
      // kainjow gives no mutable list; the vector itself was made non-const by the constructor
      // above, so casting the const away to move into it is defined.
      auto& items = const_cast<mustache::list&>(list.list_value());
      items.reserve(value.size());
      for (const auto& child : value) items.push_back(to_data(child));
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

// A `{{> name}}` tag in a template's text: where it starts, its length and the name.
struct PartialTag {
  std::size_t at = std::string::npos;
  std::size_t length = 0;
  std::string name;
};

// The first partial tag of `text` at or after `from`; `at` is npos when there is none.
PartialTag next_partial_tag(const std::string& text, std::size_t from) {
  PartialTag tag;
  tag.at = text.find("{{>", from);
  if (tag.at == std::string::npos) return tag;
  std::size_t close = text.find("}}", tag.at);
  tag.name = text.substr(tag.at + 3, close == std::string::npos ? 0 : close - tag.at - 3);
  tag.name.erase(0, tag.name.find_first_not_of(' '));
  tag.name.erase(tag.name.find_last_not_of(' ') + 1);
  tag.length = close == std::string::npos ? 3 : close + 2 - tag.at;
  return tag;
}

// Deeper than any chain of partials a site needs; past it, partials include each other.
constexpr int kMaxPartialDepth = 16;

// The templates' paths in `folder`, sorted.
std::vector<std::filesystem::path> template_paths(const std::filesystem::path& folder) {
  std::error_code ec;
  std::vector<std::filesystem::path> paths;
  for (const std::filesystem::directory_entry& entry :
       std::filesystem::directory_iterator(folder, ec)) {
    if (entry.path().extension() == ".mustache") paths.push_back(entry.path());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

// The text of the template at `path` when it is UTF-8 and parses; else nullopt with a problem
// at the line:column of the fault.
std::optional<std::string> read_template(const std::filesystem::path& path, Problems& problems) {
  std::optional<std::string> text = read_text_file(path.string(), kMaxCatalogFileBytes, problems);
  if (!text) return std::nullopt;
  if (std::optional<std::size_t> bad = first_invalid_utf8(*text)) {
    problems.push_back({path.string(), SourceText(*text).position(*bad), "", "templates",
                        fmt::format("not valid UTF-8 at byte offset {}", *bad), "", ""});
    return std::nullopt;
  }
  mustache::mustache parsed{*text};
  if (parsed.is_valid()) return text;
  // kainjow names a byte offset ("... at 4268"); turn it into line:column.
  std::string message = parsed.error_message();
  SourcePosition position{1, 1};
  std::size_t at = message.rfind(" at ");
  if (at != std::string::npos) {
    std::size_t offset = std::strtoull(message.c_str() + at + 4, nullptr, 10);
    position = SourceText(*text).position(offset);
    message.resize(at);
  }
  problems.push_back({path.string(), position, "", "templates",
                      "the template does not parse: " + message, "", ""});
  return std::nullopt;
}

}  // namespace

struct TemplateRenderer::ParsedPool {
  // A parsed `name` not in use, or a new one parsed from `text`.
  std::unique_ptr<mustache::mustache> take(const std::string& name, const std::string& text) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      std::vector<std::unique_ptr<mustache::mustache>>& views = free[name];
      if (!views.empty()) {
        std::unique_ptr<mustache::mustache> view = std::move(views.back());
        views.pop_back();
        return view;
      }
    }
    return std::make_unique<mustache::mustache>(text);
  }
  void give(const std::string& name, std::unique_ptr<mustache::mustache> view) {
    std::lock_guard<std::mutex> lock(mutex);
    free[name].push_back(std::move(view));
  }

  std::mutex mutex;
  std::map<std::string, std::vector<std::unique_ptr<mustache::mustache>>> free;
};

std::optional<TemplateRenderer> TemplateRenderer::load(const std::filesystem::path& folder,
                                                       Problems& problems) {
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) {
    problems.push_back(
        {folder.string(), {0, 0}, "", "templates", "the templates folder is missing", "", ""});
    return std::nullopt;
  }
  TemplateRenderer renderer;
  renderer.folder_ = folder;
  std::size_t before = problems.size();
  for (const std::filesystem::path& path : template_paths(folder)) {
    if (std::optional<std::string> text = read_template(path, problems))
      renderer.templates_[path.stem().string()] = *text;
  }
  if (problems.size() == before) renderer.check_required(problems);
  renderer.check_partials(problems);
  if (problems.size() == before) renderer.expand_partials(problems);
  if (problems.size() != before) return std::nullopt;
  renderer.parsed_ = std::make_shared<ParsedPool>();
  return renderer;
}

void TemplateRenderer::check_required(Problems& problems) const {
  for (const char* required : kSiteTemplates) {
    if (!templates_.count(required)) {
      problems.push_back({(folder_ / (std::string(required) + ".mustache")).string(),
                          {0, 0},
                          "",
                          "templates",
                          "the site needs this template; it is missing",
                          "",
                          ""});
    }
  }
}

void TemplateRenderer::check_partials(Problems& problems) const {
  // kainjow renders an unknown {{> partial}} as nothing.
  for (const auto& [name, text] : templates_) {
    for (PartialTag tag = next_partial_tag(text, 0); tag.at != std::string::npos;
         tag = next_partial_tag(text, tag.at + 3)) {
      if (!templates_.count(tag.name) || tag.name.rfind('_', 0) != 0) {
        problems.push_back(
            {(folder_ / (name + ".mustache")).string(), SourceText(text).position(tag.at), "",
             "templates",
             fmt::format("includes '{}', which is not a partial template (_name.mustache) here",
                         tag.name),
             "", ""});
      }
    }
  }
}

void TemplateRenderer::expand_partials(Problems& problems) {
  // Mustache renders a partial with the context at its tag, so writing its text in place renders
  // the same page (the site test compares every page with the committed site/).
  std::function<std::optional<std::string>(const std::string&, int)> expand =
      [&](const std::string& text, int depth) -> std::optional<std::string> {
    if (depth > kMaxPartialDepth) return std::nullopt;
    std::string out;
    std::size_t done = 0;
    for (PartialTag tag = next_partial_tag(text, 0); tag.at != std::string::npos;
         tag = next_partial_tag(text, tag.at + tag.length)) {
      std::optional<std::string> partial = expand(templates_.at(tag.name), depth + 1);
      if (!partial) return std::nullopt;
      out.append(text, done, tag.at - done);
      out += *partial;
      done = tag.at + tag.length;
    }
    out.append(text, done);
    return out;
  };
  for (const auto& [name, text] : templates_) {
    if (std::optional<std::string> expanded = expand(text, 0)) {
      expanded_[name] = std::move(*expanded);
    } else {
      problems.push_back({(folder_ / (name + ".mustache")).string(), SourceText(text).position(0),
                          "", "templates",
                          fmt::format("its partials include each other more than {} deep (a loop?)",
                                      kMaxPartialDepth),
                          "", ""});
    }
  }
}

std::optional<std::string> TemplateRenderer::render(const std::string& name,
                                                    const nlohmann::json& context,
                                                    Problems& problems) const {
  auto it = expanded_.find(name);
  if (it == expanded_.end())
    throw BugError("no template " + name + ".mustache (load checks the site's templates)");
  std::unique_ptr<mustache::mustache> view = parsed_->take(name, it->second);
  std::string out = view->render(to_data(context));
  if (!view->is_valid()) {
    problems.push_back({(folder_ / (name + ".mustache")).string(),
                        {0, 0},
                        "",
                        "templates",
                        "the template does not render: " + view->error_message(),
                        "",
                        ""});
    return std::nullopt;  // the view holds the error: it is dropped, not given back
  }
  parsed_->give(name, std::move(view));
  return out;
}

}  // namespace openrecipes
