// The text of a tune session's summary (`openrecipes tune` without --format json): one line per
// run, the stop, the best run, the reference arm and the recipe written.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace openrecipes {

/// The summary TuneOutcome::summary holds (tune_session.h) as text: a header, one line per run
/// (layout, job, predicted and measured tokens/s per GPU, error, result or failure), the
/// GPU-hours spent, the stop, the best run, the best measured before the session, the reference
/// arm and the recipe written.
std::string tune_summary_text(const nlohmann::ordered_json& summary);

}  // namespace openrecipes
