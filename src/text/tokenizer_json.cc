#include "text/tokenizer_json.h"

#include <fmt/format.h>

#include <algorithm>

namespace openrecipes {
namespace {

using json = nlohmann::json;

// A SAX handler that builds a DOM for everything but the two big members, which it streams.
class Handler : public nlohmann::json_sax<json> {
 public:
  Handler(TokenizerJson& out, const std::string& bytes, const std::string& file, Problems& problems)
      : out_(out), bytes_(bytes), file_(file), problems_(problems) {}

  bool null() override { return value(json()); }
  bool boolean(bool v) override { return value(v); }
  bool number_integer(number_integer_t v) override { return value(v); }
  bool number_unsigned(number_unsigned_t v) override { return value(v); }
  bool number_float(number_float_t v, const string_t&) override { return value(v); }
  bool binary(binary_t&) override { return false; }

  bool string(string_t& v) override {
    if (mode_ == Mode::kMerges) {
      if (merge_depth_ == 1) {
        pending_merge_.push_back(std::move(v));
        return true;
      }
      std::size_t space = v.find(' ');
      if (space == std::string::npos)
        return fail(fmt::format("model.merges[{}]", out_.merges.size()),
                    fmt::format("expected \"a b\", found \"{}\"", v));
      out_.merges.emplace_back(v.substr(0, space), v.substr(space + 1));
      return true;
    }
    return value(std::move(v));
  }

  bool key(string_t& k) override {
    if (mode_ == Mode::kVocab) {
      vocab_key_ = std::move(k);
      return true;
    }
    key_ = std::move(k);
    return true;
  }

  bool start_object(std::size_t) override {
    if (mode_ == Mode::kMerges) return fail("model.merges", "expected strings or pairs");
    if (mode_ == Mode::kVocab) return fail("model.vocab", "expected integer ids");
    if (path_is({"model"}) && key_ == "vocab" && depth_ == 2) {
      mode_ = Mode::kVocab;
      ++depth_;
      return true;
    }
    open(json::object());
    return true;
  }

  bool end_object() override {
    if (mode_ == Mode::kVocab) {
      mode_ = Mode::kNone;
      --depth_;
      return true;
    }
    close();
    return true;
  }

  bool start_array(std::size_t) override {
    if (mode_ == Mode::kMerges) {
      if (++merge_depth_ > 1) return fail("model.merges", "nested too deep");
      pending_merge_.clear();
      return true;
    }
    if (path_is({"model"}) && key_ == "merges" && depth_ == 2) {
      mode_ = Mode::kMerges;
      merge_depth_ = 0;
      ++depth_;
      return true;
    }
    open(json::array());
    return true;
  }

  bool end_array() override {
    if (mode_ == Mode::kMerges) {
      if (merge_depth_ == 1) {
        if (pending_merge_.size() != 2) {
          return fail(fmt::format("model.merges[{}]", out_.merges.size()), "expected a pair");
        }
        out_.merges.emplace_back(std::move(pending_merge_[0]), std::move(pending_merge_[1]));
        --merge_depth_;
        return true;
      }
      mode_ = Mode::kNone;
      --depth_;
      return true;
    }
    close();
    return true;
  }

  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& e) override {
    failed_ = true;
    // The library's message quotes the bytes it last read, which may be binary: keep its id only.
    Problem problem{file_,
                    position_of(position),
                    "",
                    "tokenizer.json",
                    fmt::format("not valid JSON at byte {} (JSON error {})", position, e.id),
                    "",
                    ""};
    problems_.push_back(std::move(problem));
    return false;
  }

  /// Whether the document was rejected (a problem was appended).
  bool failed() const { return failed_; }

 private:
  enum class Mode { kNone, kVocab, kMerges };

  // Appends a problem with `field` and returns false, which stops the parse.
  bool fail(const std::string& field, const std::string& message) {
    failed_ = true;
    problems_.push_back(Problem{file_, {}, field, "tokenizer.json", message, "", ""});
    return false;
  }

  // The 1-based line and column of byte `offset` (nlohmann counts from 1 past the bad byte).
  SourcePosition position_of(std::size_t offset) const {
    SourcePosition at{1, 1};
    std::size_t end = std::min(offset > 0 ? offset - 1 : 0, bytes_.size());
    for (std::size_t i = 0; i < end; ++i) {
      if (bytes_[i] == '\n') {
        at.line += 1;
        at.column = 1;
      } else if ((static_cast<unsigned char>(bytes_[i]) & 0xC0) != 0x80) {
        at.column += 1;
      }
    }
    return at;
  }

  bool path_is(std::initializer_list<const char*> keys) const {
    if (keys_.size() != keys.size()) return false;
    std::size_t i = 0;
    for (const char* k : keys) {
      if (keys_[i++] != k) return false;
    }
    return true;
  }

  bool value(json v) {
    if (mode_ == Mode::kVocab) {
      if (!v.is_number_integer())
        return fail(fmt::format("model.vocab[\"{}\"]", vocab_key_), "expected an integer id");
      out_.vocab.emplace_back(std::move(vocab_key_), v.get<std::int64_t>());
      return true;
    }
    if (mode_ == Mode::kMerges) return fail("model.merges", "expected strings");
    if (stack_.empty()) {
      out_.rest = std::move(v);
      return true;
    }
    json& parent = *stack_.back();
    if (parent.is_object()) {
      parent[key_] = std::move(v);
    } else {
      parent.push_back(std::move(v));
    }
    return true;
  }

  void open(json container) {
    ++depth_;
    if (stack_.empty()) {
      out_.rest = std::move(container);
      stack_.push_back(&out_.rest);
      return;
    }
    json& parent = *stack_.back();
    json* child;
    if (parent.is_object()) {
      keys_.push_back(key_);
      child = &(parent[key_] = std::move(container));
    } else {
      keys_.push_back("[]");
      parent.push_back(std::move(container));
      child = &parent.back();
    }
    stack_.push_back(child);
  }

  void close() {
    --depth_;
    stack_.pop_back();
    if (!keys_.empty()) keys_.pop_back();
  }

  TokenizerJson& out_;
  const std::string& bytes_;  // the document, for positions
  const std::string& file_;
  Problems& problems_;
  bool failed_ = false;
  std::vector<json*> stack_;
  std::vector<std::string> keys_;  // path of the open containers below the root
  std::string key_, vocab_key_;
  std::vector<std::string> pending_merge_;
  Mode mode_ = Mode::kNone;
  int depth_ = 0, merge_depth_ = 0;
};

}  // namespace

std::optional<TokenizerJson> parse_tokenizer_json(const std::string& bytes, const std::string& file,
                                                  Problems& problems) {
  TokenizerJson out;
  Handler handler(out, bytes, file, problems);
  json::sax_parse(bytes, &handler);
  if (handler.failed()) return std::nullopt;
  // model.merges, when present, must have been a list (streamed); anything else stayed in `rest`.
  auto model_has = [&](const char* key) {
    return out.rest.is_object() && out.rest.contains("model") && out.rest.at("model").is_object() &&
           out.rest.at("model").contains(key);
  };
  if (model_has("merges")) {
    problems.push_back(Problem{file,
                               {},
                               "model.merges",
                               "tokenizer.json",
                               "expected a list of \"a b\" strings or [a, b] pairs",
                               "",
                               ""});
    return std::nullopt;
  }
  if (model_has("vocab")) {
    problems.push_back(Problem{
        file, {}, "model.vocab", "tokenizer.json", "expected an object of token -> id", "", ""});
    return std::nullopt;
  }
  return out;
}

}  // namespace openrecipes
