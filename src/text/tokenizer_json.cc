#include "text/tokenizer_json.h"

#include <fmt/format.h>

#include <stdexcept>

namespace openrecipes {
namespace {

using json = nlohmann::json;

// A SAX handler that builds a DOM for everything but the two big members, which it streams.
class Handler : public nlohmann::json_sax<json> {
 public:
  explicit Handler(TokenizerJson& out) : out_(out) {}

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
      if (space == std::string::npos) throw std::runtime_error(fmt::format("model.merges[{}]: expected \"a b\", found \"{}\"", out_.merges.size(), v));
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
    if (mode_ == Mode::kMerges) throw std::runtime_error("model.merges: expected strings or pairs");
    if (mode_ == Mode::kVocab) throw std::runtime_error("model.vocab: expected integer ids");
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
      if (++merge_depth_ > 1) throw std::runtime_error("model.merges: nested too deep");
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
          throw std::runtime_error(fmt::format("model.merges[{}]: expected a pair", out_.merges.size()));
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

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    // The library's message quotes the bytes it last read, which may be binary: keep its id only.
    throw std::runtime_error(fmt::format("not valid JSON at byte {} (JSON error {})", position, e.id));
  }

 private:
  enum class Mode { kNone, kVocab, kMerges };

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
      if (!v.is_number_integer()) throw std::runtime_error(fmt::format("model.vocab[\"{}\"]: expected an integer id", vocab_key_));
      out_.vocab.emplace_back(std::move(vocab_key_), v.get<std::int64_t>());
      return true;
    }
    if (mode_ == Mode::kMerges) throw std::runtime_error("model.merges: expected strings");
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
  std::vector<json*> stack_;
  std::vector<std::string> keys_;  // path of the open containers below the root
  std::string key_, vocab_key_;
  std::vector<std::string> pending_merge_;
  Mode mode_ = Mode::kNone;
  int depth_ = 0, merge_depth_ = 0;
};

}  // namespace

TokenizerJson parse_tokenizer_json(const std::string& bytes) {
  TokenizerJson out;
  Handler handler(out);
  json::sax_parse(bytes, &handler);
  // model.merges, when present, must have been a list (streamed); anything else stayed in `rest`.
  if (out.rest.is_object() && out.rest.contains("model") && out.rest.at("model").is_object() &&
      out.rest.at("model").contains("merges")) {
    throw std::runtime_error("model.merges: expected a list of \"a b\" strings or [a, b] pairs");
  }
  if (out.rest.is_object() && out.rest.contains("model") && out.rest.at("model").is_object() &&
      out.rest.at("model").contains("vocab")) {
    throw std::runtime_error("model.vocab: expected an object of token -> id");
  }
  return out;
}

}  // namespace openrecipes
