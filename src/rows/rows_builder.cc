#include "rows/rows_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <limits>
#include <mutex>
#include <thread>

#include "base/utf8.h"
#include "base/yaml_document.h"
#include "rows/conversation_inputs.h"
#include "rows/duckdb_session.h"
#include "rows/row_packer.h"
#include "rows/rows_file.h"
#include "rows/rows_hash.h"
#include "rows/seeded_shuffle.h"
#include "rows/duckdb_stream.h"
#include "base/number_format.h"
#include "text/loss_mask.h"
#include "text/sha256.h"
#include "text/tokenizer.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

// Conversations tokenized together before packing: enough to keep every core busy, few enough
// that little work is wasted past the last row.
constexpr std::size_t kConversationsPerChunk = 1024;

// The EOS token: --eos, else tokenizer_config.json's eos_token beside the tokenizer.json.
std::pair<std::string, std::int32_t> resolve_eos(const Tokenizer& tokenizer, const RowsBuildOptions& options) {
  std::string token = options.eos_token;
  if (token.empty()) {
    fs::path config = fs::path(options.tokenizer_path).parent_path() / "tokenizer_config.json";
    Problems problems;
    std::optional<std::string> text = fs::exists(config) ? read_text_file(config.string(), 64u << 20, problems)
                                                          : std::nullopt;
    if (!text) {
      throw RowsBuildError(fmt::format("no EOS token: {} is missing or unreadable; pass --eos TOKEN, the "
                                       "tokenizer's end-of-sequence token (it changes the rows)",
                                       config.string()));
    }
    nlohmann::json value;
    try {
      value = nlohmann::json::parse(*text);
    } catch (const nlohmann::json::parse_error& error) {
      throw RowsBuildError(fmt::format("{}: not valid JSON at byte {}", config.string(), error.byte));
    }
    if (!value.is_object()) {
      throw RowsBuildError(fmt::format("{}: expected an object with eos_token, found {}", config.string(),
                                       value.type_name()));
    }
    value = value.value("eos_token", nlohmann::json());
    if (value.is_object()) value = value.value("content", nlohmann::json());
    if (!value.is_string() || value.get<std::string>().empty()) {
      throw RowsBuildError(fmt::format("{}: eos_token: expected a token, found {}; pass --eos TOKEN",
                                       config.string(), value.dump()));
    }
    token = value.get<std::string>();
  }
  std::optional<std::int32_t> id = tokenizer.added_token_id(token);
  if (!id) {
    throw RowsBuildError(fmt::format("{}: EOS token '{}' is not an added token of this tokenizer",
                                     options.tokenizer_path, token));
  }
  return {token, *id};
}

// Refuses a path that is not UTF-8 (DuckDB and the rows' metadata need UTF-8), naming the option.
void check_utf8(const std::string& what, const std::string& text) {
  if (std::optional<std::size_t> at = first_invalid_utf8(text)) {
    throw RowsBuildError(fmt::format("{}: not valid UTF-8 at byte {} (DuckDB and the rows file need UTF-8)", what, *at));
  }
}

// The output must be a new or regular file, and none of the files the build reads.
void check_output(const RowsBuildOptions& options) {
  const std::string& output = options.output;
  std::error_code ec;
  fs::path parent = fs::path(output).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec)) {
    throw RowsBuildError(fmt::format("{}: the directory {} does not exist", output, parent.string()));
  }
  fs::file_status status = fs::symlink_status(output, ec);
  if (!fs::exists(status)) return;
  if (fs::is_directory(status)) throw RowsBuildError(output + ": is a directory");
  if (fs::is_symlink(status)) {
    throw RowsBuildError(output + ": is a symbolic link; name the file itself (the build replaces the path)");
  }
  if (!fs::is_regular_file(status)) throw RowsBuildError(output + ": exists and is not a regular file");
  std::vector<std::string> read = options.inputs;
  read.push_back(options.tokenizer_path);
  read.push_back((fs::path(options.tokenizer_path).parent_path() / "tokenizer_config.json").string());
  for (const std::string& path : read) {
    if (fs::equivalent(path, output, ec)) {
      throw RowsBuildError(fmt::format("{}: is also a file the build reads ({}); write the rows to another file",
                                       output, path));
    }
  }
}

void check_options(const RowsBuildOptions& options) {
  if (options.rows < 1) throw RowsBuildError(fmt::format("--rows: expected at least 1, found {}", options.rows));
  if (options.row_tokens < 1 || options.row_tokens > (1 << 24)) {
    throw RowsBuildError(fmt::format("--row-tokens: expected 1 to 16,777,216, found {}", options.row_tokens));
  }
  if (options.rows > std::numeric_limits<std::int32_t>::max()) {
    throw RowsBuildError(fmt::format("--rows: expected at most 2,147,483,647, found {}", options.rows));
  }
  if (options.name.empty()) throw RowsBuildError("--name: expected the row set's name, found nothing");
  if (options.output.empty()) throw RowsBuildError("-o: expected the rows file to write");
  check_utf8("--name", options.name);
  check_utf8("--tokenizer-name", options.tokenizer_label);
  check_utf8("--eos", options.eos_token);
  check_utf8("-o " + options.output, options.output);
  std::error_code ec;
  for (std::size_t i = 0; i < options.inputs.size(); ++i) {
    check_utf8(options.inputs[i], options.inputs[i]);
    for (std::size_t k = 0; k < i; ++k) {
      if (options.inputs[k] == options.inputs[i] || fs::equivalent(options.inputs[k], options.inputs[i], ec)) {
        throw RowsBuildError(fmt::format("{}: given twice as an input (its conversations would be taken twice)",
                                         options.inputs[i]));
      }
    }
  }
  check_output(options);
}

// Parses and tokenizes `slots[begin, end)` on `threads` threads into `out` (same indices).
// Rethrows the failure of the lowest-numbered conversation, so errors do not depend on timing.
void tokenize_chunk(std::vector<SourceConversation>& slots, std::size_t begin, std::size_t end,
                    const Tokenizer& tokenizer, LossMaskType type, std::vector<EncodeCache>& caches,
                    std::vector<MaskedTokens>& out) {
  out.assign(end - begin, MaskedTokens{});
  std::atomic<std::size_t> next{begin};
  std::mutex failure_mutex;
  std::size_t failed_at = end;
  std::string failure;
  auto work = [&](EncodeCache& cache) {
    for (std::size_t i = next++; i < end; i = next++) {
      SourceConversation& source = slots[i];
      try {
        parse_source_conversation(source);
        Problems problems;
        std::optional<MaskedTokens> masked = tokenize_chat(tokenizer, source.messages, type, cache, problems);
        if (!masked) {
          const Problem& p = problems.front();
          throw InputError(fmt::format("{} (id {}): {}{}{}", source.where, source.id, p.file.empty() ? "" : p.file + ": ",
                                       p.field.empty() ? "" : p.field + ": ", p.message));
        }
        MaskedTokens& tokens = *masked;
        tokens.text.clear();
        tokens.text.shrink_to_fit();
        out[i - begin] = std::move(tokens);
      } catch (const InputError& error) {
        std::lock_guard lock(failure_mutex);
        if (i < failed_at) failed_at = i, failure = error.what();
      } catch (const std::exception& error) {
        std::lock_guard lock(failure_mutex);
        if (i < failed_at) failed_at = i, failure = fmt::format("{} (id {}): {}", source.where, source.id, error.what());
      }
      source.messages.clear();
      source.messages.shrink_to_fit();
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < caches.size(); ++t) threads.emplace_back(work, std::ref(caches[t]));
  work(caches[0]);
  for (std::thread& thread : threads) thread.join();
  if (failed_at < end) throw RowsBuildError(failure);
}

}  // namespace

std::string packing_description(std::int64_t row_tokens) {
  return fmt::format(
      "source conversations in a seeded global permutation, concatenated with an EOS token between them and cut "
      "into consecutive {}-token rows; rows without supervised targets are skipped",
      format_count(row_tokens));
}

nlohmann::json RowsBuildResult::metadata() const {
  return nlohmann::json{{"format", 1},
                        {"name", name},
                        {"tokenizer", tokenizer_label},
                        {"tokenizer_sha256", tokenizer_sha256},
                        {"loss_mask", loss_mask},
                        {"rows", rows},
                        {"row_tokens", row_tokens},
                        {"padding_tokens", padding_tokens},
                        {"seed", seed},
                        {"eos_token", eos_token},
                        {"eos_id", eos_id},
                        {"packing", packing},
                        {"supervised_tokens", supervised_tokens},
                        {"rows_sha256", rows_sha256},
                        {"skipped_rows", skipped_rows},
                        {"conversations_used", conversations_used},
                        {"conversations_available", conversations_available},
                        {"builder", builder}};
}

RowsBuildResult build_rows(const RowsBuildOptions& options,
                           const std::function<void(const RowsBuildProgress&)>& progress) {
  check_options(options);
  auto report = [&](const char* stage, std::int64_t rows, std::int64_t conversations) {
    if (progress) progress({stage, rows, options.rows, conversations});
  };
  Problems load_problems;
  std::shared_ptr<const Tokenizer> tokenizer = Tokenizer::load(options.tokenizer_path, load_problems);
  if (!tokenizer) {
    const Problem& p = load_problems.front();
    throw RowsBuildError(fmt::format("{}: {}{}", p.file, p.field.empty() ? "" : p.field + ": ", p.message));
  }
  for (const std::string& special : required_special_tokens(options.loss_mask)) {
    if (!tokenizer->added_token_id(special)) {
      throw RowsBuildError(fmt::format("{}: has no token {}, which the {} chat format writes: wrong tokenizer for "
                                       "this --loss-mask?",
                                       options.tokenizer_path, special, loss_mask_name(options.loss_mask)));
    }
  }
  RowsBuildResult result;
  std::tie(result.eos_token, result.eos_id) = resolve_eos(*tokenizer, options);
  result.name = options.name;
  result.tokenizer_sha256 = tokenizer->sha256();
  result.tokenizer_label = options.tokenizer_label.empty()
                               ? fmt::format("tokenizer.json sha256 {}", tokenizer->sha256())
                               : fmt::format("{}; tokenizer.json sha256 {}", options.tokenizer_label, tokenizer->sha256());
  result.loss_mask = loss_mask_name(options.loss_mask);
  result.row_tokens = options.row_tokens;
  result.seed = options.seed;
  result.packing = packing_description(options.row_tokens);
  result.output = options.output;
  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());

  std::unique_ptr<DuckDbSession> duckdb;
  try {
    duckdb = std::make_unique<DuckDbSession>(threads);
  } catch (const DuckDbError& error) {
    throw RowsBuildError(std::string("DuckDB: ") + error.what());
  }
  report("scanning", 0, 0);
  ConversationIndex index;
  try {
    index = scan_inputs(options.inputs, *duckdb);
  } catch (const InputError& error) {
    throw RowsBuildError(error.what());
  }
  result.conversations_available = index.size();
  if (index.size() == 0) throw RowsBuildError("the inputs hold no conversations");
  if (index.size() > std::numeric_limits<std::uint32_t>::max()) {
    throw RowsBuildError("more than 4,294,967,295 conversations: split the build");
  }
  std::uint32_t count = static_cast<std::uint32_t>(index.size());
  std::vector<std::uint32_t> order = seeded_permutation(count, options.seed);
  std::vector<std::uint32_t> rank_of(count);
  for (std::uint32_t k = 0; k < count; ++k) rank_of[order[k]] = k;

  RowsFileWriter writer(*duckdb);
  RowsHasher hasher;
  RowPacker packer(options.row_tokens, result.eos_id, options.rows, [&](PackedRow&& row) {
    hasher.add(row.input_ids, row.loss_mask);
    writer.add(row);
  });
  std::vector<EncodeCache> caches(threads);
  std::vector<MaskedTokens> tokens;
  std::uint64_t lo = 0;
  while (!packer.done() && lo < count) {
    // The next batch of the permutation: as many conversations as fit in batch_bytes.
    std::uint64_t hi = lo, bytes = 0;
    while (hi < count && (hi == lo || bytes + index.text_bytes[order[hi]] <= options.batch_bytes)) {
      bytes += index.text_bytes[order[hi++]];
    }
    std::vector<SourceConversation> slots(hi - lo);
    try {
      read_conversations(index, *duckdb, [&](std::uint64_t global) -> SourceConversation* {
        std::uint32_t rank = rank_of[global];
        return rank >= lo && rank < hi ? &slots[rank - lo] : nullptr;
      });
    } catch (const InputError& error) {
      throw RowsBuildError(error.what());
    }
    for (std::size_t begin = 0; begin < slots.size() && !packer.done(); begin += kConversationsPerChunk) {
      std::size_t end = std::min(slots.size(), begin + kConversationsPerChunk);
      tokenize_chunk(slots, begin, end, *tokenizer, options.loss_mask, caches, tokens);
      for (std::size_t i = begin; i < end && !packer.done(); ++i) {
        packer.add(slots[i].id, tokens[i - begin].ids, tokens[i - begin].mask);
      }
      report("packing", packer.stats().rows, packer.stats().conversations);
    }
    lo = hi;
  }
  if (!packer.done()) {
    throw RowsBuildError(fmt::format(
        "the inputs ran out: all {} conversations gave {} of the {} rows asked for ({} rows skipped without "
        "supervised tokens); add inputs or ask for fewer --rows",
        format_count(count), format_count(packer.stats().rows), format_count(options.rows),
        format_count(packer.stats().skipped_rows)));
  }
  result.rows = packer.stats().rows;
  result.skipped_rows = packer.stats().skipped_rows;
  result.conversations_used = packer.stats().conversations;
  result.supervised_tokens = packer.stats().supervised_tokens;
  result.supervised_token_ratio =
      static_cast<double>(result.supervised_tokens) / static_cast<double>(result.rows * result.row_tokens);
  result.rows_sha256 = hasher.hex_digest();
  result.builder = fmt::format("openrecipes rows build --loss-mask {} --eos {} --rows {} --row-tokens {} --seed {} "
                               "(DuckDB {}; data/README.md)",
                               result.loss_mask, result.eos_token, result.rows, result.row_tokens, result.seed,
                               duckdb_version());
  report("writing", result.rows, result.conversations_used);
  try {
    writer.finish(options.output, result.metadata());
    std::tie(result.parquet_sha256, result.parquet_bytes) = sha256_file(options.output);
  } catch (const RowsFileError& error) {
    throw RowsBuildError(error.what());
  } catch (const std::runtime_error& error) {
    throw RowsBuildError(error.what());
  }
  return result;
}

}  // namespace openrecipes
