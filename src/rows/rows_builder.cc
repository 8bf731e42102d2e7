#include "rows/rows_builder.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <limits>
#include <mutex>
#include <thread>

#include "base/error.h"
#include "base/json_syntax.h"
#include "base/number_format.h"
#include "base/utf8.h"
#include "base/yaml_document.h"
#include "rows/conversation_inputs.h"
#include "rows/duckdb_session.h"
#include "rows/duckdb_stream.h"
#include "rows/row_packer.h"
#include "rows/rows_file.h"
#include "rows/rows_hash.h"
#include "rows/seeded_shuffle.h"
#include "text/loss_mask.h"
#include "text/sha256.h"
#include "text/tokenizer.h"

namespace openrecipes {
namespace {

namespace fs = std::filesystem;

// Conversations tokenized together before packing: enough to keep every core busy, few enough
// that little work is wasted past the last row.
constexpr std::size_t kConversationsPerChunk = 1024;

// What stops a build, thrown from its steps and caught by build_rows, which returns it as a
// Problem; it never leaves this file.
struct BuildFault {
  Problem problem;
};

// A build problem with `file` (a path the build reads or writes, or an option such as `--rows`),
// rule `rows.build`.
[[noreturn]] void build_fault(const std::string& file, std::string message,
                              std::string field = "") {
  throw BuildFault{{file, {}, std::move(field), "rows.build", std::move(message), "", ""}};
}

// Problems a step returned: the first stops the build.
void stop_on(Problems& problems) {
  if (!problems.empty()) throw BuildFault{problems.front()};
}

// The EOS token: --eos, else tokenizer_config.json's eos_token beside the tokenizer.json.
std::pair<std::string, std::int32_t> resolve_eos(const Tokenizer& tokenizer,
                                                 const RowsBuildOptions& options) {
  std::string token = options.eos_token;
  if (token.empty()) {
    fs::path config = fs::path(options.tokenizer_path).parent_path() / "tokenizer_config.json";
    Problems problems;
    std::optional<std::string> text =
        fs::exists(config) ? read_text_file(config.string(), 64u << 20, problems) : std::nullopt;
    if (!text) {
      build_fault(
          config.string(),
          "no EOS token: the file is missing or unreadable; pass --eos TOKEN, the tokenizer's "
          "end-of-sequence token (it changes the rows)");
    }
    if (std::optional<JsonSyntaxError> error = json_syntax_error(*text)) {
      build_fault(config.string(), format_problem_line(json_syntax_problem(*error, "", "json")));
    }
    nlohmann::json value = nlohmann::json::parse(*text);
    if (!value.is_object()) {
      build_fault(config.string(),
                  fmt::format("expected an object with eos_token, found {}", value.type_name()));
    }
    value = value.value("eos_token", nlohmann::json());
    if (value.is_object()) value = value.value("content", nlohmann::json());
    if (!value.is_string() || value.get<std::string>().empty()) {
      build_fault(config.string(),
                  fmt::format("expected a token, found {}; pass --eos TOKEN", value.dump()),
                  "eos_token");
    }
    token = value.get<std::string>();
  }
  std::optional<std::int32_t> id = tokenizer.added_token_id(token);
  if (!id) {
    build_fault(options.tokenizer_path,
                fmt::format("EOS token '{}' is not an added token of this tokenizer", token));
  }
  return {token, *id};
}

// Refuses a path that is not UTF-8 (DuckDB and the rows' metadata need UTF-8), naming the option.
void check_utf8(const std::string& what, const std::string& text) {
  if (std::optional<std::size_t> at = first_invalid_utf8(text)) {
    build_fault(
        what, fmt::format("not valid UTF-8 at byte {} (DuckDB and the rows file need UTF-8)", *at));
  }
}

// The output must be a new or regular file, and none of the files the build reads.
void check_output(const RowsBuildOptions& options) {
  const std::string& output = options.output;
  std::error_code ec;
  fs::path parent = fs::path(output).parent_path();
  if (!parent.empty() && !fs::is_directory(parent, ec)) {
    build_fault(output, fmt::format("the directory {} does not exist", parent.string()));
  }
  fs::file_status status = fs::symlink_status(output, ec);
  if (!fs::exists(status)) return;
  if (fs::is_directory(status)) build_fault(output, "is a directory");
  if (fs::is_symlink(status)) {
    build_fault(output, "is a symbolic link; name the file itself (the build replaces the path)");
  }
  if (!fs::is_regular_file(status)) build_fault(output, "exists and is not a regular file");
  std::vector<std::string> read = options.inputs;
  read.push_back(options.tokenizer_path);
  read.push_back(
      (fs::path(options.tokenizer_path).parent_path() / "tokenizer_config.json").string());
  for (const std::string& path : read) {
    if (fs::equivalent(path, output, ec)) {
      build_fault(
          output,
          fmt::format("is also a file the build reads ({}); write the rows to another file", path));
    }
  }
}

void check_options(const RowsBuildOptions& options) {
  if (options.rows < 1)
    build_fault("--rows", fmt::format("expected at least 1, found {}", options.rows));
  if (options.row_tokens < 1 || options.row_tokens > (1 << 24)) {
    build_fault("--row-tokens",
                fmt::format("expected 1 to 16,777,216, found {}", options.row_tokens));
  }
  if (options.rows > std::numeric_limits<std::int32_t>::max()) {
    build_fault("--rows", fmt::format("expected at most 2,147,483,647, found {}", options.rows));
  }
  if (options.name.empty()) build_fault("--name", "expected the row set's name, found nothing");
  if (options.output.empty()) build_fault("-o", "expected the rows file to write");
  check_utf8("--name", options.name);
  check_utf8("--tokenizer-name", options.tokenizer_label);
  check_utf8("--eos", options.eos_token);
  check_utf8("-o " + options.output, options.output);
  std::error_code ec;
  for (std::size_t i = 0; i < options.inputs.size(); ++i) {
    check_utf8(options.inputs[i], options.inputs[i]);
    for (std::size_t k = 0; k < i; ++k) {
      if (options.inputs[k] == options.inputs[i] ||
          fs::equivalent(options.inputs[k], options.inputs[i], ec)) {
        build_fault(options.inputs[i],
                    "given twice as an input (its conversations would be taken twice)");
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
  Problem failure;
  auto work = [&](EncodeCache& cache) {
    for (std::size_t i = next++; i < end; i = next++) {
      SourceConversation& source = slots[i];
      Problems problems;
      try {
        if (parse_source_conversation(source, problems)) {
          Problems chat_problems;
          std::optional<MaskedTokens> masked =
              tokenize_chat(tokenizer, source.messages, type, cache, chat_problems);
          if (masked) {
            masked->text.clear();
            masked->text.shrink_to_fit();
            out[i - begin] = std::move(*masked);
          } else {
            // The chat format refuses the conversation (text/chat_format.h).
            const Problem& refused = chat_problems.front();
            problems.push_back(conversation_problem(
                source, "",
                fmt::format("(id {}): {}{}", source.id,
                            refused.field.empty() ? "" : refused.field + ": ", refused.message)));
          }
        }
      } catch (const std::exception& error) {
        // The chat format refuses the conversation (text/chat_format.h).
        problems.push_back(
            conversation_problem(source, "", fmt::format("(id {}): {}", source.id, error.what())));
      }
      if (!problems.empty()) {
        std::lock_guard lock(failure_mutex);
        if (i < failed_at) failed_at = i, failure = problems.front();
      }
      source.messages.clear();
      source.messages.shrink_to_fit();
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < caches.size(); ++t) threads.emplace_back(work, std::ref(caches[t]));
  work(caches[0]);
  for (std::thread& thread : threads) thread.join();
  if (failed_at < end) throw BuildFault{failure};
}

}  // namespace

std::string packing_description(std::int64_t row_tokens) {
  return fmt::format(
      "source conversations in a seeded global permutation, concatenated with an EOS token between "
      "them and cut "
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

namespace {

// The tokenizer, with every special token the chat format writes.
std::shared_ptr<const Tokenizer> load_build_tokenizer(const RowsBuildOptions& options) {
  Problems load_problems;
  std::shared_ptr<const Tokenizer> tokenizer =
      Tokenizer::load(options.tokenizer_path, load_problems);
  if (!tokenizer) {
    const Problem& refused = load_problems.front();
    build_fault(options.tokenizer_path,
                (refused.field.empty() ? "" : refused.field + ": ") + refused.message);
  }
  for (const std::string& special : required_special_tokens(options.loss_mask)) {
    if (!tokenizer->added_token_id(special)) {
      build_fault(
          options.tokenizer_path,
          fmt::format("has no token {}, which the {} chat format writes: wrong tokenizer for "
                      "this --loss-mask?",
                      special, loss_mask_name(options.loss_mask)));
    }
  }
  return tokenizer;
}

// The result's fields the options and tokenizer fix before any row is packed.
RowsBuildResult describe_build(const RowsBuildOptions& options, const Tokenizer& tokenizer) {
  RowsBuildResult result;
  std::tie(result.eos_token, result.eos_id) = resolve_eos(tokenizer, options);
  result.name = options.name;
  result.tokenizer_sha256 = tokenizer.sha256();
  result.tokenizer_label = options.tokenizer_label.empty()
                               ? fmt::format("tokenizer.json sha256 {}", tokenizer.sha256())
                               : fmt::format("{}; tokenizer.json sha256 {}",
                                             options.tokenizer_label, tokenizer.sha256());
  result.loss_mask = loss_mask_name(options.loss_mask);
  result.row_tokens = options.row_tokens;
  result.seed = options.seed;
  result.packing = packing_description(options.row_tokens);
  result.output = options.output;
  return result;
}

// Everything packing needs: the inputs, the permutation and where the rows go.
struct PackingRun {
  const RowsBuildOptions& options;
  const Tokenizer& tokenizer;
  DuckDbSession& duckdb;
  const ConversationIndex& index;
  unsigned threads;
  std::function<void(const char*, std::int64_t, std::int64_t)> report;
};

// Packs conversations in the seeded permutation's order, a batch of batch_bytes at a time, into
// `packer` until it has its rows or the inputs run out.
void pack_in_order(const PackingRun& run, RowPacker& packer) {
  std::uint32_t count = static_cast<std::uint32_t>(run.index.size());
  std::vector<std::uint32_t> order = seeded_permutation(count, run.options.seed);
  std::vector<std::uint32_t> rank_of(count);
  for (std::uint32_t k = 0; k < count; ++k) rank_of[order[k]] = k;
  std::vector<EncodeCache> caches(run.threads);
  std::vector<MaskedTokens> tokens;
  std::uint64_t lo = 0;
  while (!packer.done() && lo < count) {
    // The next batch of the permutation: as many conversations as fit in batch_bytes.
    std::uint64_t hi = lo, bytes = 0;
    while (hi < count &&
           (hi == lo || bytes + run.index.text_bytes[order[hi]] <= run.options.batch_bytes)) {
      bytes += run.index.text_bytes[order[hi++]];
    }
    std::vector<SourceConversation> slots(hi - lo);
    Problems problems;
    read_conversations(
        run.index, run.duckdb,
        [&](std::uint64_t global) -> SourceConversation* {
          std::uint32_t rank = rank_of[global];
          return rank >= lo && rank < hi ? &slots[rank - lo] : nullptr;
        },
        problems);
    stop_on(problems);
    for (std::size_t begin = 0; begin < slots.size() && !packer.done();
         begin += kConversationsPerChunk) {
      std::size_t end = std::min(slots.size(), begin + kConversationsPerChunk);
      tokenize_chunk(slots, begin, end, run.tokenizer, run.options.loss_mask, caches, tokens);
      for (std::size_t i = begin; i < end && !packer.done(); ++i) {
        packer.add(slots[i].id, tokens[i - begin].ids, tokens[i - begin].mask);
      }
      run.report("packing", packer.stats().rows, packer.stats().conversations);
    }
    lo = hi;
  }
}

// Scans, packs and writes the rows (build_rows' steps after the options are checked).
RowsBuildResult build_checked(const RowsBuildOptions& options,
                              const std::function<void(const RowsBuildProgress&)>& progress) {
  auto report = [&](const char* stage, std::int64_t rows, std::int64_t conversations) {
    if (progress) progress({stage, rows, options.rows, conversations});
  };
  std::shared_ptr<const Tokenizer> tokenizer = load_build_tokenizer(options);
  RowsBuildResult result = describe_build(options, *tokenizer);
  unsigned threads =
      options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  DuckDbSession duckdb(threads);
  report("scanning", 0, 0);
  Problems problems;
  std::optional<ConversationIndex> index = scan_inputs(options.inputs, duckdb, problems);
  stop_on(problems);
  result.conversations_available = index->size();
  if (index->size() == 0) build_fault(options.inputs.front(), "the inputs hold no conversations");
  if (index->size() > std::numeric_limits<std::uint32_t>::max()) {
    build_fault(options.inputs.front(), "more than 4,294,967,295 conversations: split the build");
  }
  RowsFileWriter writer(duckdb);
  RowsHasher hasher;
  RowPacker packer(options.row_tokens, result.eos_id, options.rows, [&](PackedRow&& row) {
    hasher.add(row.input_ids, row.loss_mask);
    writer.add(row);
  });
  pack_in_order({options, *tokenizer, duckdb, *index, threads, report}, packer);
  if (!packer.done()) {
    build_fault(
        options.inputs.front(),
        fmt::format("the inputs ran out: all {} conversations gave {} of the {} rows asked for "
                    "({} rows skipped "
                    "without supervised tokens); add inputs or ask for fewer --rows",
                    format_count(static_cast<std::int64_t>(index->size())),
                    format_count(packer.stats().rows), format_count(options.rows),
                    format_count(packer.stats().skipped_rows)));
  }
  result.rows = packer.stats().rows;
  result.skipped_rows = packer.stats().skipped_rows;
  result.conversations_used = packer.stats().conversations;
  result.supervised_tokens = packer.stats().supervised_tokens;
  result.supervised_token_ratio = static_cast<double>(result.supervised_tokens) /
                                  static_cast<double>(result.rows * result.row_tokens);
  result.rows_sha256 = hasher.hex_digest();
  result.builder = fmt::format(
      "openrecipes rows build --loss-mask {} --eos {} --rows {} --row-tokens {} --seed {} "
      "(DuckDB {}; data/README.md)",
      result.loss_mask, result.eos_token, result.rows, result.row_tokens, result.seed,
      duckdb_version());
  report("writing", result.rows, result.conversations_used);
  writer.finish(options.output, result.metadata());
  try {
    std::tie(result.parquet_sha256, result.parquet_bytes) = sha256_file(options.output);
  } catch (const std::runtime_error& error) {
    throw IoError(options.output, error.what());
  }
  return result;
}

}  // namespace

std::optional<RowsBuildResult> build_rows(
    const RowsBuildOptions& options, Problems& problems,
    const std::function<void(const RowsBuildProgress&)>& progress) {
  try {
    check_options(options);
    return build_checked(options, progress);
  } catch (const BuildFault& fault) {
    problems.push_back(fault.problem);
    return std::nullopt;
  }
}

}  // namespace openrecipes
