#include "base/json_syntax.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <vector>

namespace openrecipes {
namespace {

// Accepts every value and records the first parse error: its position, its token and whether it
// was a number too large for a double (nlohmann::json's out_of_range 406).
class ErrorFinder : public nlohmann::json_sax<nlohmann::json> {
 public:
  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override {
    value();
    open_.push_back({false, -1, ""});
    return true;
  }
  bool key(string_t& k) override {
    open_.back().key = k;
    return true;
  }
  bool end_object() override {
    open_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    value();
    open_.push_back({true, -1, ""});
    return true;
  }
  bool end_array() override {
    open_.pop_back();
    return true;
  }
  bool parse_error(std::size_t position, const std::string& last_token,
                   const nlohmann::detail::exception& e) override {
    error = JsonSyntaxError{};
    error->byte = position;
    if (e.id == 406) {
      // nlohmann reports the position after the number; name the number's first byte.
      value();
      error->byte = position > last_token.size() ? position - last_token.size() + 1 : 1;
      error->field = path();
      error->message = "number out of range";
      error->expected = "a number a 64-bit float can hold, at most about 1.8e308 in magnitude";
      error->found = last_token;
    } else {
      error->message = fmt::format("not valid JSON at byte {}", position);
    }
    return false;
  }

  std::optional<JsonSyntaxError> error;

 private:
  struct Open {
    bool array;
    long index;       // of the array's current element
    std::string key;  // of the object's current member
  };

  // A value starts: it is the next element of an open array.
  bool value() {
    if (!open_.empty() && open_.back().array) ++open_.back().index;
    return true;
  }

  // `model.layers[2].size`: the keys and indexes down to the current value.
  std::string path() const {
    std::string out;
    for (const Open& o : open_) {
      if (o.array) {
        out += fmt::format("[{}]", o.index);
      } else {
        out += (out.empty() ? "" : ".") + o.key;
      }
    }
    return out;
  }

  std::vector<Open> open_;
};

// The 1-based line and column of 1-based byte `byte` of `text`; columns count UTF-8 characters.
SourcePosition position_of(std::string_view text, std::size_t byte) {
  SourcePosition at{1, 1};
  for (std::size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++at.line;
      at.column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++at.column;
    }
  }
  return at;
}

}  // namespace

std::optional<JsonSyntaxError> json_syntax_error(std::string_view text) {
  ErrorFinder finder;
  nlohmann::json::sax_parse(text, &finder);
  if (finder.error) finder.error->position = position_of(text, finder.error->byte);
  return finder.error;
}

Problem json_syntax_problem(const JsonSyntaxError& error, const std::string& file,
                            const std::string& rule) {
  return {file, error.position, error.field, rule, error.message, error.expected, error.found};
}

}  // namespace openrecipes
