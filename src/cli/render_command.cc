#include "cli/render_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "base/json_depth.h"
#include "base/yaml_document.h"
#include "text/loss_mask.h"

namespace openrecipes::cli {
namespace {

struct RenderOptions {
  std::string loss_mask;
  std::string tokenizer;
  std::string conversation;
  std::string format = "text";
};

int run_render(const RenderOptions& options) {
  LossMaskType type;
  std::shared_ptr<const Tokenizer> tokenizer;
  Conversation conversation;
  try {
    type = parse_loss_mask_type(options.loss_mask);
    tokenizer = Tokenizer::load(options.tokenizer);
    Problems problems;
    std::optional<std::string> text = read_text_file(options.conversation, 256u << 20, problems);
    if (!text) throw std::invalid_argument(problems.front().message);
    if (std::optional<std::size_t> at = json_too_deep(*text)) {
      throw std::invalid_argument(fmt::format("nesting deeper than {} levels at byte {}", kMaxJsonDepth, *at));
    }
    try {
      conversation = conversation_from_json(nlohmann::ordered_json::parse(*text));
    } catch (const nlohmann::json::exception& error) {
      throw std::invalid_argument(std::string("not valid JSON: ") + error.what());
    }
  } catch (const TokenizerError& error) {
    fmt::print(stderr, "openrecipes render: {}\n", error.what());
    return kExitProblems;
  } catch (const std::invalid_argument& error) {
    fmt::print(stderr, "openrecipes render: {}: {}\n", options.conversation, error.what());
    return kExitProblems;
  }
  MaskedTokens tokens;
  try {
    EncodeCache cache;
    tokens = tokenize_chat(*tokenizer, conversation, type, cache);
  } catch (const InvalidUtf8Error& error) {
    fmt::print(stderr, "openrecipes render: {}: {}\n", options.conversation, error.what());
    return kExitProblems;
  } catch (const std::invalid_argument& error) {
    fmt::print(stderr, "openrecipes render: {}\n", error.what());
    return kExitProblems;
  }
  std::size_t supervised = 0;
  for (std::uint8_t m : tokens.mask) supervised += m;
  if (options.format == "json") {
    nlohmann::json out = {{"loss_mask", loss_mask_name(type)}, {"tokenizer_sha256", tokenizer->sha256()},
                          {"text", tokens.text},   {"ids", tokens.ids},
                          {"mask", tokens.mask},   {"tokens", tokens.ids.size()},
                          {"supervised_tokens", supervised}};
    fmt::print("{}\n", out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    return kExitOk;
  }
  // On a terminal supervised tokens are green; piped, they are wrapped in [[ ]].
  bool terminal = ::isatty(STDOUT_FILENO);
  const char* open = terminal ? "\033[1;32m" : "[[";
  const char* close = terminal ? "\033[0m" : "]]";
  std::string shown;
  bool in_span = false;
  for (std::size_t i = 0; i < tokens.ids.size(); ++i) {
    if (tokens.mask[i] && !in_span) shown += open;
    if (!tokens.mask[i] && in_span) shown += close;
    in_span = tokens.mask[i];
    shown += tokenizer->token_bytes(tokens.ids[i]);
  }
  if (in_span) shown += close;
  fmt::print("{}\n\n{} tokens, {} supervised ({})\n", shown, tokens.ids.size(), supervised,
             terminal ? "in green" : "between [[ and ]]");
  return kExitOk;
}

}  // namespace

void add_render_command(CLI::App& app, const GlobalOptions&, int& exit_code) {
  auto options = std::make_shared<RenderOptions>();
  CLI::App* command = app.add_subcommand(
      "render", "Render a conversation in a model's chat format and show which tokens are supervised");
  command->add_option("--loss-mask", options->loss_mask, "qwen3, qwen3_5 or gpt_oss")
      ->required()
      ->check(CLI::IsMember({"qwen3", "qwen3_5", "gpt_oss"}));
  command->add_option("--tokenizer", options->tokenizer, "A tokenizer.json")->required();
  command->add_option("CONVERSATION", options->conversation,
                      "A JSON file: a list of messages, or {\"messages\": [...]}")->required();
  command->add_option("--format", options->format, "Output format")->check(CLI::IsMember({"text", "json"}));
  command->callback([&exit_code, options] { exit_code = run_render(*options); });
}

}  // namespace openrecipes::cli
