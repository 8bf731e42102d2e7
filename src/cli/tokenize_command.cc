#include "cli/tokenize_command.h"

#include <fmt/format.h>

#include <cstdio>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "base/utf8.h"
#include "base/yaml_document.h"
#include "cli/problem_output.h"
#include "cli/version.h"
#include "text/tokenizer.h"

namespace openrecipes::cli {
namespace {

struct TokenizeOptions {
  std::string tokenizer;
  std::string format = "text";
  std::string text = "-";
  bool plain = false;
};

// Standard input, in blocks, up to kMaxCatalogFileBytes: the limit the catalog's text files are
// read with (read_text_file), so that input cannot grow the encoding's memory without bound (a
// 1 MiB text peaks at the ~107 MB the gpt-oss tokenizer itself takes). A problem naming standard
// input past it, or on a read error.
std::optional<std::string> read_standard_input(const std::string& source, Problems& problems) {
  std::string text;
  char chunk[1 << 16];
  while (text.size() <= kMaxCatalogFileBytes) {
    std::size_t got = std::fread(chunk, 1, sizeof chunk, stdin);
    text.append(chunk, got);
    if (got < sizeof chunk) break;
  }
  if (std::ferror(stdin)) {
    problems.push_back({source, {0, 0}, "", "file", "read error", "", ""});
    return std::nullopt;
  }
  if (text.size() > kMaxCatalogFileBytes) {
    problems.push_back({source,
                        {0, 0},
                        "",
                        "file",
                        "too long to tokenize at once; split the text",
                        fmt::format("at most {} bytes", kMaxCatalogFileBytes),
                        fmt::format("more than {} bytes", kMaxCatalogFileBytes)});
    return std::nullopt;
  }
  return text;
}

int run_tokenize(const TokenizeOptions& options) {
  OutputFormat format = output_format(options.format);
  Problems problems;
  std::shared_ptr<const Tokenizer> tokenizer = Tokenizer::load(options.tokenizer, problems);
  if (!tokenizer) return print_problems(problems, format);
  std::string text = options.text;
  std::string source = "the text";
  if (text == "-") {
    source = "standard input";
    std::optional<std::string> read = read_standard_input(source, problems);
    if (!read) return print_problems(problems, format);
    text = std::move(*read);
  }
  if (!check_utf8(text, source, problems)) return print_problems(problems, format);
  std::vector<std::int32_t> ids = tokenizer->encode(text, !options.plain);
  // Streamed, not built as one JSON value: 50 MB of text is 24M ids and pieces.
  auto piece_json = [&](std::int32_t id) {
    return nlohmann::json(std::string(tokenizer->token_bytes(id)))
        .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  std::string out;
  out.reserve(ids.size() * 12 + 256);
  if (options.format == "json") {
    out += "{\"openrecipes_version\":" + nlohmann::json(openrecipes_version()).dump() +
           ",\"tokenizer\":" + nlohmann::json(tokenizer->path()).dump() +
           ",\"tokenizer_sha256\":\"" + tokenizer->sha256() +
           "\",\"count\":" + std::to_string(ids.size()) + ",\"ids\":[";
    for (std::size_t i = 0; i < ids.size(); ++i) (out += i ? "," : "") += std::to_string(ids[i]);
    out += "],\"pieces\":[";
    for (std::size_t i = 0; i < ids.size(); ++i) (out += i ? "," : "") += piece_json(ids[i]);
    out += "]}\n";
  } else {
    out += fmt::format("tokenizer: {} (sha256 {})\ncount: {}\nids: {}\npieces:", tokenizer->path(),
                       tokenizer->sha256(), ids.size(), fmt::join(ids, " "));
    for (std::int32_t id : ids) (out += " ") += piece_json(id);
    out += "\n";
  }
  std::fwrite(out.data(), 1, out.size(), stdout);
  return kExitOk;
}

}  // namespace

void add_tokenize_command(CLI::App& app, const GlobalOptions&, int& exit_code) {
  auto options = std::make_shared<TokenizeOptions>();
  CLI::App* command = app.add_subcommand("tokenize", "Token ids, pieces and count of a text");
  command->add_option("--tokenizer", options->tokenizer, "A tokenizer.json")->required();
  command->add_option("--format", options->format, "Output format, errors included")
      ->check(CLI::IsMember({"text", "json"}));
  command->add_flag(
      "--plain", options->plain,
      "Treat added and special tokens in the text as plain text (as tiktoken's encode_ordinary)");
  command->add_option("TEXT", options->text, "The text, or - for standard input (the default)");
  command->callback([&exit_code, options] { exit_code = run_tokenize(*options); });
}

}  // namespace openrecipes::cli
