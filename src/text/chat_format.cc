#include "text/chat_format.h"

#include <fmt/format.h>

namespace openrecipes {
namespace {

// Appends text, optionally marking it supervised (adjacent supervised pieces merge).
class ChatWriter {
 public:
  void plain(std::string_view text) { chat_.text += text; }
  void supervised(std::string_view text) {
    std::size_t begin = chat_.text.size();
    chat_.text += text;
    if (text.empty()) return;
    if (!chat_.supervised.empty() && chat_.supervised.back().end == begin) {
      chat_.supervised.back().end = chat_.text.size();
    } else {
      chat_.supervised.push_back({begin, chat_.text.size()});
    }
  }
  void write(std::string_view text, bool is_supervised) {
    is_supervised ? supervised(text) : plain(text);
  }
  RenderedChat take() { return std::move(chat_); }

 private:
  RenderedChat chat_;
};

std::string strip(std::string_view text, const char* characters, bool left, bool right) {
  std::size_t begin = left ? text.find_first_not_of(characters) : 0;
  if (begin == std::string_view::npos) return "";
  std::size_t end = right ? text.find_last_not_of(characters) + 1 : text.size();
  return std::string(text.substr(begin, end - begin));
}

// Qwen3's chat template (tokenizer_config.json of Qwen/Qwen3-*), without a `tools` list.
RenderedChat render_chatml(const Conversation& messages, LossMaskType type) {
  ChatWriter out;
  const std::size_t n = messages.size();
  // The last user message that is a real query, not a tool response in disguise.
  std::size_t last_query = n - 1;
  for (std::size_t k = n; k-- > 0;) {
    const Message& m = messages[k];
    bool tool_response = m.content.rfind("<tool_response>", 0) == 0 && m.content.size() >= 16 &&
                         m.content.compare(m.content.size() - 16, 16, "</tool_response>") == 0;
    if (m.role == "user" && !tool_response) {
      last_query = k;
      break;
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    const Message& m = messages[i];
    if (m.role == "system" && i == 0) {
      out.plain("<|im_start|>system\n" + m.content + "<|im_end|>\n");
    } else if (m.role == "user" || m.role == "system") {
      out.plain("<|im_start|>" + m.role + "\n" + m.content + "<|im_end|>\n");
    } else if (m.role == "assistant") {
      std::string content = m.content;
      std::string reasoning = m.reasoning;
      // As the template: reasoning is what precedes the first </think> (after its last <think>),
      // content what follows the last </think>.
      std::size_t first_close = content.find("</think>");
      if (reasoning.empty() && first_close != std::string::npos) {
        std::string before = strip(content.substr(0, first_close), "\n", false, true);
        std::size_t open = before.rfind("<think>");
        reasoning =
            strip(open == std::string::npos ? before : before.substr(open + 7), "\n", true, false);
        content = strip(content.substr(content.rfind("</think>") + 8), "\n", true, false);
      }
      out.plain("<|im_start|>assistant\n");
      if (i > last_query && (i == n - 1 || !reasoning.empty())) {
        out.write("<think>\n", type != LossMaskType::kQwen35);
        out.supervised(strip(reasoning, "\n", true, true) + "\n</think>\n\n" +
                       strip(content, "\n", true, false));
      } else {
        out.supervised(content);
      }
      for (std::size_t k = 0; k < m.tool_calls.size(); ++k) {
        if (k > 0 || !content.empty()) out.supervised("\n");
        out.supervised("<tool_call>\n{\"name\": \"" + m.tool_calls[k].name +
                       "\", \"arguments\": " + m.tool_calls[k].arguments + "}\n</tool_call>");
      }
      out.supervised("<|im_end|>\n");
    } else {  // tool
      if (i == 0 || messages[i - 1].role != "tool") out.plain("<|im_start|>user");
      out.plain("\n<tool_response>\n" + m.content + "\n</tool_response>");
      if (i == n - 1 || messages[i + 1].role != "tool") out.plain("<|im_end|>\n");
    }
  }
  return out.take();
}

// The harmony format of gpt-oss (openai/harmony), as documented in docs/loss-masks.md.
std::optional<RenderedChat> render_harmony(const Conversation& messages, Problems& problems) {
  ChatWriter out;
  bool tools = false;
  for (const Message& m : messages) tools = tools || !m.tool_calls.empty() || m.role == "tool";
  out.plain(
      "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\n"
      "Knowledge cutoff: 2024-06\n\nReasoning: medium\n\n"
      "# Valid channels: analysis, commentary, final. Channel must be included for every message.");
  if (tools) out.plain("\nCalls to these tools must go to the commentary channel: 'functions'.");
  out.plain("<|end|>");
  std::string last_tool;
  const std::size_t n = messages.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Message& m = messages[i];
    if (m.role == "system") {
      out.plain("<|start|>developer<|message|># Instructions\n\n" + m.content + "<|end|>");
    } else if (m.role == "user") {
      out.plain("<|start|>user<|message|>" + m.content + "<|end|>");
    } else if (m.role == "assistant") {
      if (!m.reasoning.empty()) {
        out.plain("<|start|>assistant");
        out.supervised("<|channel|>analysis<|message|>" + m.reasoning + "<|end|>");
      }
      for (const ToolCall& call : m.tool_calls) {
        out.plain("<|start|>assistant");
        out.supervised(" to=functions." + call.name + "<|channel|>commentary json<|message|>" +
                       call.arguments + "<|call|>");
        last_tool = call.name;
      }
      if (!m.content.empty() || (m.reasoning.empty() && m.tool_calls.empty())) {
        out.plain("<|start|>assistant");
        out.supervised("<|channel|>final<|message|>" + m.content +
                       (i == n - 1 ? "<|return|>" : "<|end|>"));
      }
    } else {  // tool
      std::string name = m.name.empty() ? last_tool : m.name;
      if (name.empty()) {
        problems.push_back(
            {"",
             {},
             fmt::format("messages[{}]", i),
             "conversation",
             "a tool message needs a name (or an earlier tool call) in the harmony format",
             "",
             ""});
        return std::nullopt;
      }
      out.plain("<|start|>functions." + name + " to=assistant<|channel|>commentary<|message|>" +
                m.content + "<|end|>");
    }
  }
  return out.take();
}

}  // namespace

std::optional<LossMaskType> parse_loss_mask_type(const std::string& name) {
  if (name == "qwen3") return LossMaskType::kQwen3;
  if (name == "qwen3_5") return LossMaskType::kQwen35;
  if (name == "gpt_oss") return LossMaskType::kGptOss;
  return std::nullopt;
}

std::string loss_mask_name(LossMaskType type) {
  switch (type) {
    case LossMaskType::kQwen3:
      return "qwen3";
    case LossMaskType::kQwen35:
      return "qwen3_5";
    case LossMaskType::kGptOss:
      return "gpt_oss";
  }
  return "";
}

std::vector<std::string> required_special_tokens(LossMaskType type) {
  if (type == LossMaskType::kGptOss) {
    return {"<|start|>", "<|message|>", "<|end|>", "<|return|>", "<|channel|>", "<|call|>"};
  }
  return {"<|im_start|>", "<|im_end|>"};
}

std::optional<RenderedChat> render_chat(const Conversation& conversation, LossMaskType type,
                                        Problems& problems) {
  if (type == LossMaskType::kGptOss) return render_harmony(conversation, problems);
  return render_chatml(conversation, type);
}

}  // namespace openrecipes
