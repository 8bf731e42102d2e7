// The hygiene rules: `run`, `env` values, `stack` values, `notes` and the patch files a recipe
// names hold nothing the submission guide asks to leave out (validate/hygiene_scan.h says what
// counts and what is allowed). Each finding is one problem at its own line and column.
#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>

#include "base/source_text.h"
#include "validate/hygiene_scan.h"
#include "validate/recipe_rules.h"

namespace openrecipes {
namespace {

// Largest patch file read, in bytes (as for catalog files).
constexpr std::size_t kMaxPatchBytes = kMaxCatalogFileBytes;

// The byte offset of `position` in `source`'s text (columns count code points).
std::size_t offset_of(const SourceText& source, std::string_view text, SourcePosition position) {
  std::string_view line = source.line(position.line);
  std::size_t at = static_cast<std::size_t>(line.data() - text.data());
  for (int column = 1; column < position.column && at < text.size(); ++column) {
    ++at;
    while (at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) ++at;
  }
  return at;
}

Problem problem_of(const HygieneFinding& finding, std::string_view found, std::string file,
                   SourcePosition position, std::string field) {
  return {std::move(file),
          position,
          std::move(field),
          std::string(hygiene_rule_id(finding.kind)),
          finding.what + " (the submission guide asks to leave it out)",
          finding.replace_with,
          std::string(found)};
}

// The findings in a patch file's text. Every recipe of a model tends to name the same patch, so a
// catalog of thousands would scan one file thousands of times: the scan is remembered by the
// file's bytes (so an edited file is scanned afresh), for a few dozen distinct texts per process.
std::vector<HygieneFinding> scan_patch(const std::string& text) {
  constexpr std::size_t kRemembered = 64;
  static std::mutex mutex;
  static std::map<std::string, std::vector<HygieneFinding>> scans;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = scans.find(text); it != scans.end()) return it->second;
  }
  std::vector<HygieneFinding> findings = scan_hygiene(text, HygieneText::kCode);
  std::lock_guard<std::mutex> lock(mutex);
  if (scans.size() < kRemembered) scans.emplace(text, findings);
  return findings;
}

class HygieneChecker {
 public:
  explicit HygieneChecker(const RuleContext& c)
      : c_(c), text_(c.file.document.text), source_(text_) {}

  // A scalar of the recipe: each finding is placed where its text stands in the file. Where the
  // scalar's text maps onto the file's bytes (mapped_offset) the finding's own offset is used;
  // else (a folded or escaped scalar) its text is searched from the scalar's start, and when not
  // found there the scalar's own position stands.
  void scalar(const YamlNode* node, const std::string& field, std::string_view value,
              const std::vector<HygieneFinding>& findings) {
    if (!node) return;
    std::size_t start = offset_of(source_, text_, node->position);
    std::size_t cursor = start;
    std::size_t limit = next_field_offset(node->position);
    for (const HygieneFinding& finding : findings) {
      std::string_view found = value.substr(finding.begin, finding.end - finding.begin);
      std::optional<std::size_t> at =
          mapped_offset(*node, start, limit, value, finding.begin, found);
      if (!at) {
        std::size_t searched = text_.find(found, cursor);
        if (searched != std::string_view::npos && searched + found.size() <= limit) at = searched;
      }
      SourcePosition position = node->position;
      if (at) {
        position = source_.position(*at);
        cursor = *at + found.size();
      }
      c_.add(problem_of(finding, found, c_.file.display_path, position, field));
    }
  }

  // The file offset of the value's byte `begin`, for a scalar whose text is the file's own bytes:
  // a literal block (`|`), whose k-th line is the file's k-th line after the indicator less the
  // block's indentation (YAML 1.2, sec. 8.1.2), or a plain or quoted scalar on one line (after the
  // quote). The text there must be `found`; nullopt otherwise (an escape or a fold before it, an
  // explicit indentation indicator), and the caller searches instead. A search alone took an
  // earlier occurrence of the same text: `node17` in `echo node17` for `MASTER_ADDR=node17` on
  // the next line.
  std::optional<std::size_t> mapped_offset(const YamlNode& node, std::size_t start,
                                           std::size_t limit, std::string_view value,
                                           std::size_t begin, std::string_view found) const {
    std::size_t at = std::string_view::npos;
    if (node.style == '|') {
      std::size_t line = text_.find('\n', start);
      if (line == std::string_view::npos) return std::nullopt;
      ++line;
      std::size_t indent = block_indent(line, limit);
      std::size_t value_line = 0;  // where the value's line holding `begin` starts
      for (std::size_t k = 0; k < begin; ++k) {
        if (value[k] != '\n') continue;
        value_line = k + 1;
        line = text_.find('\n', line);
        if (line == std::string_view::npos) return std::nullopt;
        ++line;
      }
      at = line + indent + (begin - value_line);
    } else if (node.style == 0 || node.style == '"' || node.style == '\'') {
      at = start + (node.style == 0 ? 0 : 1) + begin;
    }
    if (at == std::string_view::npos || at > limit || found.size() > limit - at ||
        text_.substr(at, found.size()) != found) {
      return std::nullopt;
    }
    return at;
  }

  // The indentation of a block scalar whose content starts at offset `line`: the leading spaces
  // of its first line that holds more than spaces (YAML 1.2, sec. 8.1.1.1, auto-detection).
  std::size_t block_indent(std::size_t line, std::size_t limit) const {
    while (line < limit) {
      std::size_t spaces = 0;
      while (line + spaces < limit && text_[line + spaces] == ' ') ++spaces;
      if (line + spaces < limit && text_[line + spaces] != '\n' && text_[line + spaces] != '\r') {
        return spaces;
      }
      std::size_t next = text_.find('\n', line);
      if (next == std::string_view::npos) break;
      line = next + 1;
    }
    return 0;
  }

  // Where the first field after `position` starts (the end of the scalar there), or the end.
  std::size_t next_field_offset(SourcePosition position) const {
    auto after = [](SourcePosition a, SourcePosition b) {
      return a.line > b.line || (a.line == b.line && a.column > b.column);
    };
    std::optional<SourcePosition> next;
    for (const auto& [field, at] : c_.file.document.positions) {
      if (after(at, position) && (!next || after(*next, at))) next = at;
    }
    return next ? offset_of(source_, text_, *next) : text_.size();
  }

  // A patch file under the catalog root: problems name the file (`patches/x.py`) and its line.
  // A missing or unreadable file is the patches rule's to report.
  void patch(const std::string& path, const std::string& field) {
    std::error_code ec;
    std::filesystem::path full = c_.catalog.root / path;
    if (path.find("..") != std::string::npos || !std::filesystem::is_regular_file(full, ec)) return;
    Problems ignored;
    std::optional<std::string> text = read_text_file(full.string(), kMaxPatchBytes, ignored);
    if (!text || text->find('\0') != std::string::npos) return;
    SourceText source(*text);
    for (const HygieneFinding& finding : scan_patch(*text)) {
      std::string_view found =
          std::string_view(*text).substr(finding.begin, finding.end - finding.begin);
      c_.add(problem_of(finding, found, path, source.position(finding.begin), field));
    }
  }

 private:
  const RuleContext& c_;
  std::string_view text_;
  SourceText source_;
};

}  // namespace

void check_hygiene_rules(const RuleContext& context) {
  const Recipe& r = context.recipe;
  const YamlNode& root = context.file.document.root;
  HygieneChecker check(context);
  check.scalar(root.find("run"), "run", r.run, scan_hygiene(r.run, HygieneText::kCommand));
  check.scalar(root.find("notes"), "notes", r.notes, scan_hygiene(r.notes, HygieneText::kProse));
  const YamlNode* stack = root.find("stack");
  for (const auto& [name, value] : r.stack) {
    check.scalar(stack ? stack->find(name) : nullptr, "stack." + name, value,
                 scan_hygiene(value, HygieneText::kVersions));
  }
  const YamlNode* env = root.find("env");
  for (const auto& [name, value] : r.env) {
    check.scalar(env ? env->find(name) : nullptr, "env." + name, value,
                 scan_hygiene_env(name, value));
  }
  for (std::size_t i = 0; i < r.patches.size(); ++i) {
    check.patch(r.patches[i], fmt::format("patches[{}]", i));
  }
}

}  // namespace openrecipes
