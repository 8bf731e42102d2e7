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

std::shared_ptr<const Tokenizer> Tokenizer::load(const std::string& path, Problems& problems) {
  return TokenizerLoader(path, problems).load();
}

TokenizerLoader::TokenizerLoader(const std::string& path, Problems& problems)
    : path_(path), problems_(problems) {}

bool TokenizerLoader::fail(const std::string& field, const std::string& message) {
  problems_.push_back(Problem{path_, {}, field, "tokenizer", message, "", ""});
  return false;
}

std::unique_ptr<SplitRegex> TokenizerLoader::compile(const std::string& pattern,
                                                     const std::string& field) {
  return SplitRegex::compile(pattern, Problem{path_, {}, field, "tokenizer", "", "", ""},
                             problems_);
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
    // A field of the wrong type somewhere a step reads a value.
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
  const nlohmann::json added_tokens = json.value("added_tokens", nlohmann::json::array());
  bool ok = read_normalizer(json) && read_pre_tokenizer(json) &&
            read_model_options(json.at("model")) && read_vocabulary(parsed, added_tokens) &&
            read_merges(parsed) && read_added_tokens(added_tokens) && compile_added_pattern();
  if (!ok) return nullptr;
  return tokenizer_;
}

// Normalizer: none or NFC.
bool TokenizerLoader::read_normalizer(const nlohmann::json& json) {
  const nlohmann::json normalizer = json.value("normalizer", nlohmann::json());
  if (normalizer.is_object()) {
    std::string type = normalizer.value("type", "");
    if (type != "NFC") {
      return fail("normalizer.type",
                  fmt::format("unsupported normalizer '{}' (supported: none, NFC)", type));
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
  const nlohmann::json pre = json.value("pre_tokenizer", nlohmann::json());
  std::vector<nlohmann::json> steps;
  if (pre.is_object() && pre.value("type", "") == "Sequence") {
    for (const auto& step : pre.value("pretokenizers", nlohmann::json::array()))
      steps.push_back(step);
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
  std::string type = step.value("type", "");
  if (type == "Split") {
    if (step.value("behavior", "") != "Isolated") {
      return fail(where + ".behavior",
                  fmt::format("unsupported Split behavior '{}' (supported: Isolated)",
                              step.value("behavior", "")));
    }
    if (step.value("invert", false)) return fail(where + ".invert", "unsupported: true");
    const nlohmann::json& pattern = step.at("pattern");
    std::string regex = pattern.contains("Regex") ? pattern.at("Regex").get<std::string>()
                                                  : escape_for_regex(pattern.value("String", ""));
    std::unique_ptr<SplitRegex> compiled =
        compile(with_unicode_whitespace(regex), where + ".pattern");
    if (!compiled) return false;
    impl_->splits.push_back(std::move(compiled));
    return true;
  }
  if (type == "ByteLevel") {
    if (step.value("add_prefix_space", false))
      return fail(where + ".add_prefix_space", "unsupported: true");
    if (step.value("use_regex", true)) {
      std::unique_ptr<SplitRegex> compiled =
          compile(with_unicode_whitespace(kGpt2Pattern), where + " (GPT-2 pattern)");
      if (!compiled) return false;
      impl_->splits.push_back(std::move(compiled));
    }
    byte_level = true;
    return true;
  }
  return fail(where + ".type",
              fmt::format("unsupported pre-tokenizer '{}' (supported: Split, ByteLevel)", type));
}

// Model: BPE without dropout, byte fallback or word affixes.
bool TokenizerLoader::read_model_options(const nlohmann::json& model) {
  if (model.value("type", "") != "BPE") {
    return fail("model.type",
                fmt::format("unsupported model '{}' (supported: BPE)", model.value("type", "")));
  }
  if (!model.value("dropout", nlohmann::json()).is_null())
    return fail("model.dropout", "unsupported");
  if (model.value("byte_fallback", false)) return fail("model.byte_fallback", "unsupported: true");
  for (const char* affix : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    nlohmann::json value = model.value(affix, nlohmann::json());
    if (!value.is_null() && value != "") return fail(std::string("model.") + affix, "unsupported");
  }
  impl_->ignore_merges = model.value("ignore_merges", false);
  return true;
}

}  // namespace openrecipes
