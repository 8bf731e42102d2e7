#include "runs/settings_check.h"

#include <fmt/format.h>

namespace openrecipes {
namespace {

// One term: the log's slot, the stated one, the rule's suffix, and words for messages.
struct Term {
  const char* name;
  const char* rule;
  const char* words;
  std::optional<LoggedValue> LogSettings::*logged;
  std::optional<StatedValue> StatedSettings::*stated;
};

constexpr Term kTerms[] = {
    {"world_size", "score.world_size", "world size (GPUs)", &LogSettings::world_size,
     &StatedSettings::world_size},
    {"global_batch_size", "score.global_batch", "global batch (rows per step)",
     &LogSettings::global_batch_size, &StatedSettings::global_batch},
    {"micro_batch_size", "score.micro_batch", "micro batch (rows)", &LogSettings::micro_batch_size,
     &StatedSettings::micro_batch},
    {"seq_length", "score.seq_length", "sequence length (tokens per row)", &LogSettings::seq_length,
     &StatedSettings::seq_length},
    {"hidden_size", "score.hidden_size", "hidden size", &LogSettings::hidden_size,
     &StatedSettings::hidden_size},
    {"num_layers", "score.num_layers", "number of layers", &LogSettings::num_layers,
     &StatedSettings::num_layers},
    {"num_experts", "score.num_experts", "number of experts", &LogSettings::num_experts,
     &StatedSettings::num_experts},
};

// Why a slime log's value of `term` does not mean the recipe's, or "" when it does.
std::string slime_note(const std::string& term) {
  if (term == "seq_length") {
    return "slime prints seq_length as a placeholder (4096 when unset) and packs rows by "
           "--max-tokens-per-gpu";
  }
  if (term == "micro_batch_size") {
    return "slime forms micro-batches by --max-tokens-per-gpu, not by micro_batch_size";
  }
  return "";
}

// A log line for a message: runs of dots (the argument dump's padding) as `...`, then at most
// 48 characters.
std::string excerpt(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    std::size_t dots = 0;
    while (i + dots < text.size() && text[i + dots] == '.') ++dots;
    if (dots >= 3) {
      out += "...";
      i += dots - 1;
    } else {
      out += text[i];
    }
  }
  return out.size() <= 48 ? out : out.substr(0, 45) + "...";
}

Problem disagreement(const TrainingLog& log, const Term& term, const LoggedValue& logged,
                     const StatedValue& stated) {
  return {log.path,
          {logged.line, 1},
          term.name,
          term.rule,
          fmt::format("the log says {} {} (line {}: `{}`) but {} says {}", term.words, logged.value,
                      logged.line, excerpt(logged.text), stated.source, stated.value),
          std::to_string(stated.value),
          std::to_string(logged.value)};
}

}  // namespace

std::string term_status_name(TermStatus status) {
  switch (status) {
    case TermStatus::kAgrees:
      return "cross-checked";
    case TermStatus::kDisagrees:
      return "DISAGREES";
    case TermStatus::kNotPrinted:
      return "not printed by the log";
    case TermStatus::kNotStated:
      return "not stated";
    case TermStatus::kNotChecked:
      return "not checked";
  }
  return "?";
}

SettingsCheck check_log_settings(const TrainingLog& log, const StatedSettings& stated) {
  SettingsCheck check;
  for (const Term& term : kTerms) {
    TermCheck result;
    result.term = term.name;
    result.logged = log.settings.*term.logged;
    result.stated = stated.*term.stated;
    std::string note = log.format == LogFormat::kSlime ? slime_note(term.name) : "";
    if (!note.empty() && result.logged) {
      result.status = TermStatus::kNotChecked;
      result.note = note;
    } else if (!result.logged) {
      result.status = TermStatus::kNotPrinted;
    } else if (!result.stated) {
      result.status = TermStatus::kNotStated;
    } else if (result.logged->value == result.stated->value) {
      result.status = TermStatus::kAgrees;
    } else {
      result.status = TermStatus::kDisagrees;
      check.problems.push_back(disagreement(log, term, *result.logged, *result.stated));
    }
    check.terms.push_back(std::move(result));
  }
  if (const auto& changed = log.settings.global_batch_changed) {
    const LoggedValue& first = *log.settings.global_batch_size;
    check.problems.push_back(
        {log.path,
         {changed->line, 1},
         "global_batch_size",
         "score.global_batch",
         fmt::format("the global batch changes during the run: {} at line {}, {} at line {}; "
                     "the protocol trains every step at one global batch",
                     first.value, first.line, changed->value, changed->line),
         std::to_string(first.value),
         std::to_string(changed->value)});
  }
  return check;
}

std::string settings_check_comments(const SettingsCheck& check) {
  std::vector<std::string> agreed, unprinted, unstated, unchecked;
  for (const TermCheck& t : check.terms) {
    switch (t.status) {
      case TermStatus::kAgrees:
        agreed.push_back(fmt::format("{} {} (line {})", t.term, t.logged->value, t.logged->line));
        break;
      case TermStatus::kNotPrinted:
        unprinted.push_back(t.term);
        break;
      case TermStatus::kNotStated:
        unstated.push_back(fmt::format("{} {} (line {})", t.term, t.logged->value, t.logged->line));
        break;
      case TermStatus::kNotChecked:
        unchecked.push_back(fmt::format("{} ({})", t.term, t.note));
        break;
      case TermStatus::kDisagrees:
        break;
    }
  }
  std::string out;
  auto group = [&out](const char* what, const std::vector<std::string>& terms) {
    if (!terms.empty()) out += fmt::format("# {}: {}\n", what, fmt::join(terms, ", "));
  };
  group("log settings cross-checked", agreed);
  group("not printed by the log", unprinted);
  group("printed but not stated (give --recipe, or --model for the model's sizes)", unstated);
  group("not checked", unchecked);
  return out;
}

nlohmann::ordered_json settings_check_json(const SettingsCheck& check) {
  nlohmann::ordered_json terms = nlohmann::ordered_json::array();
  for (const TermCheck& t : check.terms) {
    nlohmann::ordered_json logged = nullptr, stated = nullptr;
    if (t.logged)
      logged = {{"value", t.logged->value}, {"line", t.logged->line}, {"text", t.logged->text}};
    if (t.stated) stated = {{"value", t.stated->value}, {"source", t.stated->source}};
    terms.push_back({{"term", t.term},
                     {"status", term_status_name(t.status)},
                     {"log", logged},
                     {"stated", stated},
                     {"note", t.note}});
  }
  return terms;
}

}  // namespace openrecipes
