#include "cli/tokenize_command.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>
#include <iterator>
#include <memory>

#include "text/tokenizer.h"

namespace openrecipes::cli {
namespace {

struct TokenizeOptions {
  std::string tokenizer;
  std::string format = "text";
  std::string text = "-";
  bool plain = false;
};

int run_tokenize(const TokenizeOptions& options) {
  std::shared_ptr<const Tokenizer> tokenizer;
  try {
    tokenizer = Tokenizer::load(options.tokenizer);
  } catch (const std::exception& error) {
    fmt::print(stderr, "openrecipes tokenize: {}\n", error.what());
    return kExitProblems;
  }
  std::string text = options.text;
  std::string source = "the text";
  if (text == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    source = "standard input";
  }
  std::vector<std::int32_t> ids;
  try {
    ids = tokenizer->encode(text, !options.plain);
  } catch (const InvalidUtf8Error& error) {
    fmt::print(stderr, "openrecipes tokenize: {}: {}\n", source, error.what());
    return kExitProblems;
  }
  nlohmann::json pieces = nlohmann::json::array();
  for (std::int32_t id : ids) pieces.push_back(std::string(tokenizer->token_bytes(id)));
  auto dump = [](const nlohmann::json& value) {
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  };
  if (options.format == "json") {
    nlohmann::json out = {{"tokenizer", tokenizer->path()}, {"tokenizer_sha256", tokenizer->sha256()},
                          {"count", ids.size()}, {"ids", ids}, {"pieces", pieces}};
    fmt::print("{}\n", dump(out));
    return kExitOk;
  }
  fmt::print("tokenizer: {} (sha256 {})\n", tokenizer->path(), tokenizer->sha256());
  fmt::print("count: {}\n", ids.size());
  fmt::print("ids: {}\n", fmt::join(ids, " "));
  std::string shown;
  for (const auto& piece : pieces) shown += (shown.empty() ? "" : " ") + dump(piece);
  fmt::print("pieces: {}\n", shown);
  return kExitOk;
}

}  // namespace

void add_tokenize_command(CLI::App& app, const GlobalOptions&, int& exit_code) {
  auto options = std::make_shared<TokenizeOptions>();
  CLI::App* command = app.add_subcommand("tokenize", "Token ids, pieces and count of a text");
  command->add_option("--tokenizer", options->tokenizer, "A tokenizer.json")->required();
  command->add_option("--format", options->format, "Output format")->check(CLI::IsMember({"text", "json"}));
  command->add_flag("--plain", options->plain,
                    "Treat added and special tokens in the text as plain text (as tiktoken's encode_ordinary)");
  command->add_option("TEXT", options->text, "The text, or - for standard input (the default)");
  command->callback([&exit_code, options] { exit_code = run_tokenize(*options); });
}

}  // namespace openrecipes::cli
