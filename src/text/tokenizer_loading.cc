// Loading a tokenizer.json: the file, its normalizer, pre-tokenizer and model settings
// (huggingface/tokenizers' tokenizer.json layout). The vocabulary, merges and added tokens are
// read in tokenizer_vocabulary.cc.
#include <fmt/format.h>

#include "base/error.h"
#include "base/yaml_document.h"
#include "text/sha256.h"
#include "text/tokenizer_impl.h"

namespace openrecipes {
namespace {

// GPT-2's pre-tokenizer pattern, used by a ByteLevel pre-tokenizer with use_regex: true
// (huggingface/tokenizers pre_tokenizers/byte_level.rs).
constexpr const char* kGpt2Pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// The largest tokenizer.json read (o200k's is 28 MB); devices and endless files are refused.
constexpr std::size_t kMaxTokenizerBytes = std::size_t{1} << 30;

// The bytes of `path`; IoError naming the file when it cannot be read.
std::string read_tokenizer_file(const std::string& path) {
  Problems problems;
  std::optional<std::string> bytes = read_text_file(path, kMaxTokenizerBytes, problems);
  if (!bytes) throw IoError(path, fmt::format("{}: {}", path, problems.front().message));
  return std::move(*bytes);
}

}  // namespace

std::string json_value_text(const nlohmann::json& value) {
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  const char* kind = value.is_null()      ? "null"
                     : value.is_boolean() ? "a boolean"
                     : value.is_number()  ? "the number"
                     : value.is_string()  ? "the string"
                     : value.is_array()   ? "a list"
                                          : "an object";
  return value.is_null() ? kind : fmt::format("{} {}", kind, text);
}

std::shared_ptr<const Tokenizer> Tokenizer::load(const std::string& path, Problems& problems) {
  return TokenizerLoader(path, problems).load();
}

TokenizerLoader::TokenizerLoader(const std::string& path, Problems& problems)
    : path_(path), problems_(problems) {}

bool TokenizerLoader::fail(const std::string& field, const std::string& message,
                           std::string expected, std::string found) {
  problems_.push_back(
      Problem{path_, {}, field, "tokenizer", message, std::move(expected), std::move(found)});
  return false;
}

std::unique_ptr<SplitRegex> TokenizerLoader::compile(const std::string& pattern,
                                                     const std::string& shown,
                                                     const std::string& field) {
  return SplitRegex::compile(pattern, shown, Problem{path_, {}, field, "tokenizer", "", "", ""},
                             problems_);
}

std::optional<std::string> TokenizerLoader::string_field(const nlohmann::json& object,
                                                         const char* key, const std::string& field,
                                                         const std::string& fallback) {
  if (!object.is_object() || !object.contains(key)) return fallback;
  const nlohmann::json& value = object.at(key);
  if (value.is_string()) return value.get<std::string>();
  fail(field, "wrong type", "a string", json_value_text(value));
  return std::nullopt;
}

std::optional<bool> TokenizerLoader::bool_field(const nlohmann::json& object, const char* key,
                                                const std::string& field, bool fallback) {
  if (!object.is_object() || !object.contains(key)) return fallback;
  const nlohmann::json& value = object.at(key);
  if (value.is_boolean()) return value.get<bool>();
  fail(field, "wrong type", "true or false", json_value_text(value));
  return std::nullopt;
}

std::shared_ptr<const Tokenizer> TokenizerLoader::load() {
  std::string bytes = read_tokenizer_file(path_);
  std::optional<TokenizerJson> parsed = parse_tokenizer_json(bytes, path_, problems_);
  if (!parsed) return nullptr;
  tokenizer_.reset(new Tokenizer());
  impl_ = tokenizer_->impl_.get();
  tokenizer_->path_ = path_;
  tokenizer_->sha256_ = sha256_hex(bytes);
  bytes.clear();
  bytes.shrink_to_fit();
  try {
    return load_parsed(*parsed);
  } catch (const nlohmann::json::exception& error) {
    // Every read above checks its type (string_field, bool_field); this only keeps a read
    // added later without a check from ending as an internal error.
    fail("", fmt::format("a field has the wrong type or is missing: {}", error.what()));
    return nullptr;
  }
}

std::shared_ptr<const Tokenizer> TokenizerLoader::load_parsed(const TokenizerJson& parsed) {
  const nlohmann::json& json = parsed.rest;
  if (!json.is_object() || !json.contains("model") || !json.at("model").is_object()) {
    fail("model", "missing; expected a BPE model");
    return nullptr;
  }
  const nlohmann::json added_tokens =
      json.contains("added_tokens") ? json.at("added_tokens") : nlohmann::json::array();
  bool ok = read_normalizer(json) && read_pre_tokenizer(json) &&
            read_model_options(json.at("model")) && read_vocabulary(parsed, added_tokens) &&
            read_merges(parsed) && read_added_tokens(added_tokens) && compile_added_pattern();
  if (!ok) return nullptr;
  return tokenizer_;
}

// Normalizer: none or NFC.
bool TokenizerLoader::read_normalizer(const nlohmann::json& json) {
  const nlohmann::json normalizer = json.contains("normalizer") ? json.at("normalizer") : nullptr;
  if (normalizer.is_object()) {
    std::optional<std::string> type = string_field(normalizer, "type", "normalizer.type", "");
    if (!type) return false;
    if (*type != "NFC") {
      return fail("normalizer.type",
                  fmt::format("unsupported normalizer '{}' (supported: none, NFC)", *type));
    }
    impl_->nfc = true;
  } else if (!normalizer.is_null()) {
    return fail("normalizer", "expected null or an object");
  }
  return true;
}

// Pre-tokenizer: Split(regex, Isolated)... then ByteLevel without its own regex, or a lone
// ByteLevel with GPT-2's regex.
bool TokenizerLoader::read_pre_tokenizer(const nlohmann::json& json) {
  const nlohmann::json pre = json.contains("pre_tokenizer") ? json.at("pre_tokenizer") : nullptr;
  std::vector<nlohmann::json> steps;
  std::optional<std::string> type = string_field(pre, "type", "pre_tokenizer.type", "");
  if (!type) return false;
  if (pre.is_object() && *type == "Sequence") {
    const nlohmann::json list =
        pre.contains("pretokenizers") ? pre.at("pretokenizers") : nlohmann::json::array();
    if (!list.is_array()) {
      return fail("pre_tokenizer.pretokenizers", "wrong type", "a list of pre-tokenizers",
                  json_value_text(list));
    }
    for (const auto& step : list) steps.push_back(step);
  } else if (pre.is_object()) {
    steps.push_back(pre);
  } else {
    return fail("pre_tokenizer", "missing; expected Split and ByteLevel");
  }
  bool byte_level = false;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (!read_pre_tokenizer_step(steps[i], fmt::format("pre_tokenizer[{}]", i), byte_level))
      return false;
  }
  if (!byte_level)
    return fail("pre_tokenizer", "no ByteLevel step; only byte-level BPE is supported");
  return true;
}

// One Split or ByteLevel step at `where`; sets `byte_level` for a ByteLevel step.
bool TokenizerLoader::read_pre_tokenizer_step(const nlohmann::json& step, const std::string& where,
                                              bool& byte_level) {
  if (!step.is_object()) return fail(where, "wrong type", "an object", json_value_text(step));
  std::optional<std::string> type = string_field(step, "type", where + ".type", "");
  if (!type) return false;
  if (*type == "Split") return read_split_step(step, where);
  if (*type == "ByteLevel") {
    std::optional<bool> prefix_space =
        bool_field(step, "add_prefix_space", where + ".add_prefix_space", false);
    std::optional<bool> use_regex = bool_field(step, "use_regex", where + ".use_regex", true);
    if (!prefix_space || !use_regex) return false;
    if (*prefix_space) return fail(where + ".add_prefix_space", "unsupported: true");
    if (*use_regex) {
      std::unique_ptr<SplitRegex> compiled =
          compile(with_unicode_whitespace(kGpt2Pattern), kGpt2Pattern, where + " (GPT-2 pattern)");
      if (!compiled) return false;
      impl_->splits.push_back(std::move(compiled));
    }
    byte_level = true;
    return true;
  }
  return fail(where + ".type",
              fmt::format("unsupported pre-tokenizer '{}' (supported: Split, ByteLevel)", *type));
}

// A Split step at `where`: Isolated, not inverted, its pattern a Regex or a String.
bool TokenizerLoader::read_split_step(const nlohmann::json& step, const std::string& where) {
  std::optional<std::string> behavior = string_field(step, "behavior", where + ".behavior", "");
  std::optional<bool> invert = bool_field(step, "invert", where + ".invert", false);
  if (!behavior || !invert) return false;
  if (*behavior != "Isolated") {
    return fail(where + ".behavior",
                fmt::format("unsupported Split behavior '{}' (supported: Isolated)", *behavior));
  }
  if (*invert) return fail(where + ".invert", "unsupported: true");
  const nlohmann::json pattern = step.contains("pattern") ? step.at("pattern") : nullptr;
  std::optional<std::string> regex = string_field(pattern, "Regex", where + ".pattern.Regex", "");
  std::optional<std::string> literal =
      string_field(pattern, "String", where + ".pattern.String", "");
  if (!regex || !literal) return false;
  bool is_regex = pattern.is_object() && pattern.contains("Regex");
  if (!is_regex && !(pattern.is_object() && pattern.contains("String"))) {
    return fail(where + ".pattern", "missing or wrong type",
                "an object {\"Regex\": ...} or {\"String\": ...}", json_value_text(pattern));
  }
  std::string source = is_regex ? *regex : escape_for_regex(*literal);
  std::unique_ptr<SplitRegex> compiled =
      compile(with_unicode_whitespace(source), is_regex ? *regex : *literal, where + ".pattern");
  if (!compiled) return false;
  impl_->splits.push_back(std::move(compiled));
  return true;
}

// Model: BPE without dropout, byte fallback or word affixes.
bool TokenizerLoader::read_model_options(const nlohmann::json& model) {
  std::optional<std::string> type = string_field(model, "type", "model.type", "");
  if (!type) return false;
  if (*type != "BPE") {
    return fail("model.type", fmt::format("unsupported model '{}' (supported: BPE)", *type));
  }
  if (model.contains("dropout") && !model.at("dropout").is_null())
    return fail("model.dropout", "unsupported", "null", json_value_text(model.at("dropout")));
  std::optional<bool> byte_fallback =
      bool_field(model, "byte_fallback", "model.byte_fallback", false);
  std::optional<bool> ignore_merges =
      bool_field(model, "ignore_merges", "model.ignore_merges", false);
  if (!byte_fallback || !ignore_merges) return false;
  if (*byte_fallback) return fail("model.byte_fallback", "unsupported: true");
  for (const char* affix : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    nlohmann::json value = model.contains(affix) ? model.at(affix) : nullptr;
    if (!value.is_null() && value != "") {
      return fail(std::string("model.") + affix, "unsupported", "null or \"\"",
                  json_value_text(value));
    }
  }
  impl_->ignore_merges = *ignore_merges;
  return true;
}

}  // namespace openrecipes
