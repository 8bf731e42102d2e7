// Loading a tokenizer.json (text/tokenizer_json.h, text/tokenizer.h) from any bytes, then, for a
// tokenizer that loads, encoding and decoding a fixed text with it.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "fuzz_support.h"
#include "text/tokenizer.h"
#include "text/tokenizer_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  std::string bytes(fuzz::as_text(data, size));
  Problems parse_problems;
  std::optional<TokenizerJson> parsed =
      parse_tokenizer_json(bytes, "tokenizer.json", parse_problems);
  fuzz::check(parsed.has_value() || !parse_problems.empty(),
              "parse_tokenizer_json: nullopt has a problem", parse_problems);

  Problems problems;
  std::shared_ptr<const Tokenizer> tokenizer =
      Tokenizer::load(fuzz::write_scratch_file("tokenizer.json", bytes), problems);
  fuzz::check(tokenizer != nullptr || !problems.empty(), "Tokenizer::load: null has a problem",
              problems);
  if (!tokenizer) return 0;
  const std::string text = "Hello, world! 123 don't\n\t\u00e9\u4e2d\u6587 <|im_start|>user\n";
  std::vector<std::int32_t> ids = tokenizer->encode(text);
  for (std::int32_t id : ids) {
    fuzz::check(id >= 0 && static_cast<std::size_t>(id) < tokenizer->vocab_size(),
                "encode: ids inside the vocabulary");
  }
  (void)tokenizer->decode(ids);
  (void)tokenizer->normalize(text);
  return 0;
}
