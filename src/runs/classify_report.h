// `openrecipes classify`'s report (classify_input.h) for people and for scripts: an aligned table
// of the differences with their classes, the component tests, the notes and the verdict; or one
// JSON object with the same content.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "runs/classify_input.h"

namespace openrecipes {

/// The report as text: the two sources, a table (class, setting, reference, candidate, reason) or
/// "no differences", one line per component test and note, and the verdict. Control characters
/// are escaped (`\xNN`) and table cells cut after 72 characters, so that nothing raw reaches a
/// terminal.
std::string classify_report_text(const ClassifyReport& report);

/// The report as JSON: candidate and reference (source, kind), rules, differences (class, kind,
/// name, rule, reference, candidate, their lines and, for arguments, spellings; component),
/// component_tests, notes and verdict (id, text, passes). Values are whole.
nlohmann::json classify_report_json(const ClassifyReport& report);

}  // namespace openrecipes
