// Encode throughput of the gpt-oss tokenizer on one core, for bench/tokenize_speed.mjs, which runs
// tiktoken on the same text in the same run and compares ids. Prints one JSON line:
//   {"load_s", "load_max_rss_mb", "bytes", "tokens", "encode_s", "mb_per_s", "ids_sha256"}
// ids_sha256 is the SHA-256 of the ids as little-endian uint32, so both sides can be compared
// without printing millions of numbers.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "text/sha256.h"
#include "text/tokenizer.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: tokenize_bench TOKENIZER.json TEXT_FILE\n");
    return 2;
  }
  using Clock = std::chrono::steady_clock;
  auto t0 = Clock::now();
  openrecipes::Problems problems;
  std::shared_ptr<const openrecipes::Tokenizer> tokenizer =
      openrecipes::Tokenizer::load(argv[1], problems);
  if (!tokenizer) {
    std::fputs(openrecipes::render_problems(problems, openrecipes::OutputFormat::kText).c_str(),
               stderr);
    return 1;
  }
  double load_s = std::chrono::duration<double>(Clock::now() - t0).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  double load_rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;

  std::ifstream in(argv[2], std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string text = buffer.str();

  openrecipes::EncodeCache cache;
  auto t1 = Clock::now();
  std::vector<std::int32_t> ids = tokenizer->encode(text, cache, /*match_added_tokens=*/false);
  double encode_s = std::chrono::duration<double>(Clock::now() - t1).count();

  std::string packed(ids.size() * 4, '\0');
  for (std::size_t i = 0; i < ids.size(); ++i) {
    auto v = static_cast<std::uint32_t>(ids[i]);
    for (int b = 0; b < 4; ++b)
      packed[i * 4 + static_cast<std::size_t>(b)] = static_cast<char>((v >> (8 * b)) & 0xFF);
  }
  std::printf(
      "{\"load_s\": %.4f, \"load_max_rss_mb\": %.1f, \"bytes\": %zu, \"tokens\": %zu, "
      "\"encode_s\": %.4f, "
      "\"mb_per_s\": %.3f, \"ids_sha256\": \"%s\"}\n",
      load_s, load_rss_mb, text.size(), ids.size(), encode_s,
      static_cast<double>(text.size()) / 1e6 / encode_s, openrecipes::sha256_hex(packed).c_str());
  return 0;
}
