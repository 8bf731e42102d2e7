// Encoding any valid UTF-8 text (text/tokenizer.h) with the two real tokenizers the tests use
// (gpt-oss and Qwen3 from deps/npm, loaded once). The first byte picks the tokenizer and whether
// added tokens are matched; the rest is the text. Checks what encode promises: ids inside the
// vocabulary, and decode giving back the text (gpt-oss has no normalizer; Qwen3's is NFC, so
// without added tokens the text comes back normalized).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "base/utf8.h"
#include "fuzz_support.h"
#include "text/tokenizer.h"

namespace {

std::shared_ptr<const openrecipes::Tokenizer> gpt_oss, qwen3;

std::shared_ptr<const openrecipes::Tokenizer> load(const std::string& package) {
  openrecipes::Problems problems;
  auto tokenizer =
      openrecipes::Tokenizer::load(openrecipes::fuzz::npm_tokenizer_path(package), problems);
  openrecipes::fuzz::check(tokenizer != nullptr, "a real tokenizer loads", problems);
  return tokenizer;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  gpt_oss = load("tokenizer-gptoss");
  qwen3 = load("tokenizer-qwen3");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace openrecipes;
  if (size == 0) return 0;
  const bool use_qwen3 = data[0] & 1;
  const bool match_added = data[0] & 2;
  std::string_view text = fuzz::as_text(data + 1, size - 1);
  if (first_invalid_utf8(text)) return 0;  // callers check first (tokenizer.h)
  const Tokenizer& tokenizer = use_qwen3 ? *qwen3 : *gpt_oss;
  std::vector<std::int32_t> ids = tokenizer.encode(text, match_added);
  for (std::int32_t id : ids) {
    fuzz::check(id >= 0 && static_cast<std::size_t>(id) < tokenizer.vocab_size(),
                "encode: ids inside the vocabulary");
  }
  std::string decoded = tokenizer.decode(ids);
  if (!use_qwen3) {
    fuzz::check(decoded == text, "gpt-oss: decode(encode(text)) == text");
  } else if (!match_added) {
    fuzz::check(decoded == tokenizer.normalize(text), "Qwen3: decode(encode(text)) == NFC(text)");
  }
  return 0;
}
