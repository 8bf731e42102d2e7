#include "cli/render_command.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "cli/json_output.h"
#include "cli/problem_output.h"
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
  OutputFormat format = output_format(options.format);
  LossMaskType type = parse_loss_mask_type(options.loss_mask).value();  // CLI11 checked the name
  Problems problems;
  std::shared_ptr<const Tokenizer> tokenizer = Tokenizer::load(options.tokenizer, problems);
  if (!tokenizer) return print_problems(problems, format);
  std::optional<Conversation> conversation = read_conversation_file(options.conversation, problems);
  if (!conversation) return print_problems(problems, format);
  EncodeCache cache;
  std::optional<MaskedTokens> masked =
      tokenize_chat(*tokenizer, *conversation, type, cache, problems);
  if (!masked) {
    for (Problem& problem : problems) {
      if (problem.file.empty()) problem.file = options.conversation;
    }
    return print_problems(problems, format);
  }
  const MaskedTokens& tokens = *masked;
  std::size_t supervised = 0;
  for (std::uint8_t m : tokens.mask) supervised += m;
  if (options.format == "json") {
    nlohmann::json out = {{"loss_mask", loss_mask_name(type)},
                          {"tokenizer_sha256", tokenizer->sha256()},
                          {"text", tokens.text},
                          {"ids", tokens.ids},
                          {"mask", tokens.mask},
                          {"tokens", tokens.ids.size()},
                          {"supervised_tokens", supervised}};
    print_json(out, -1);
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
      "render",
      "Render a conversation in a model's chat format and show which tokens are supervised");
  command->add_option("--loss-mask", options->loss_mask, "qwen3, qwen3_5 or gpt_oss")
      ->required()
      ->check(CLI::IsMember({"qwen3", "qwen3_5", "gpt_oss"}));
  command->add_option("--tokenizer", options->tokenizer, "A tokenizer.json")->required();
  command
      ->add_option("CONVERSATION", options->conversation,
                   "A JSON file: a list of messages, or {\"messages\": [...]}")
      ->required();
  command->add_option("--format", options->format, "Output format, errors included")
      ->check(CLI::IsMember({"text", "json"}));
  command->callback([&exit_code, options] { exit_code = run_render(*options); });
}

}  // namespace openrecipes::cli
