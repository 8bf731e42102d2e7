// A Hugging Face config.json, read with positions so that a bad field is named with its line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/problem.h"
#include "base/yaml_document.h"

namespace openrecipes {

/// The text part of a model's config: the document itself, or its `text_config` (or `llm_config`,
/// InternVL's and Nemotron Nano VL's spelling) when the model is multimodal (Qwen3.5 nests the
/// language model beside a `vision_config`). Reads record a
/// problem, with the field's position, for a missing field, a wrong type or a size below its
/// minimum, and return a harmless value so that every problem is found in one pass.
class HfConfig {
 public:
  /// Parses `text` (the contents of `file`). Returns nullopt with problems on bad JSON.
  static std::optional<HfConfig> parse(const std::string& text, const std::string& file,
                                       Problems& problems);
  /// Reads and parses `path`: a config.json, or a folder holding one. A missing, unreadable or
  /// oversized file (over 1 MiB) is a problem, as is bad JSON.
  static std::optional<HfConfig> read_file(const std::string& path, Problems& problems);

  /// `model_type` of the text part (falls back to the top level's).
  std::string model_type() const;
  /// `model_type` when it is a string, else empty; records no problem (for a second look).
  std::string model_type_if_valid() const;

  /// Sizes multiply into parameter counts: each stays at most 2^20 (heads, head and kernel sizes
  /// far less; see active_params.cc) so that every per-layer product fits in int64.
  static constexpr std::int64_t kLargestSize = 1 << 20;

  /// A required integer in [minimum, maximum].
  std::int64_t integer(const std::string& key, std::int64_t minimum = 1,
                       std::int64_t maximum = kLargestSize) const;
  /// An optional integer in [minimum, maximum]; `fallback` when absent or null.
  std::int64_t integer_or(const std::string& key, std::int64_t fallback, std::int64_t minimum = 0,
                          std::int64_t maximum = kLargestSize) const;
  /// True when `key` is present and not null.
  bool has(const std::string& key) const;
  /// "text_config" or "llm_config" when the document has that key set to null (a multimodal
  /// config whose language model is missing), else empty.
  std::string null_text_part() const;
  /// An optional boolean; `fallback` when absent.
  bool boolean_or(const std::string& key, bool fallback) const;
  /// An optional list of strings (e.g. `layer_types`); empty when absent.
  std::vector<std::string> strings(const std::string& key) const;
  /// An optional list of integers (e.g. `mlp_only_layers`); empty when absent.
  std::vector<std::int64_t> integers(const std::string& key) const;
  /// An optional string (e.g. nemotron_h's `hybrid_override_pattern`); `fallback` when absent or
  /// null, and a problem when it is not a string.
  std::string string_or(const std::string& key, const std::string& fallback) const;
  /// Records a problem at `key` (its line, or the file when it is absent): for sizes that are
  /// each valid but contradict each other, found by a family reader.
  void report(const std::string& key, std::string message, std::string expected,
              std::string found) const;

  /// A problem at `key` (its line, or line 1 when it is absent; an index such as
  /// "layer_types[3]" is allowed), named by its path as reads name theirs
  /// ("text_config.layer_types[3]" in a multimodal config), returned rather than recorded: for a
  /// family reader that keeps its own list of relations between valid sizes.
  Problem problem_at(const std::string& key, std::string message, std::string expected,
                     std::string found) const;

  /// The problems found by reads so far.
  const Problems& problems() const { return problems_; }
  /// The file name, for messages.
  const std::string& file() const { return document_.file; }

 private:
  const YamlNode* find(const std::string& key) const;
  std::string path(const std::string& key) const;

  YamlDocument document_;
  std::string part_;    ///< "text_config" or "llm_config" when the text part is nested
  std::string prefix_;  ///< part_ and a dot when the text part is nested
  mutable Problems problems_;
};

}  // namespace openrecipes
