// A W&B panel's CSV export (the line plot's "Export panel data" CSV): a header
// `"Step","<run> - <metric>","<run> - <metric>__MIN","<run> - <metric>__MAX",...` (a grouped
// panel names `Group: <name> - <metric>`), then one row per step, quoted as RFC 4180, a cell
// empty where a run has no value at that step. The first column is the panel's x axis.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/problem.h"
#include "runs/loss_series.h"

namespace openrecipes {

/// True when `header`, a CSV file's first line, is a W&B export's: a column `A - B` or one
/// ending in `__MIN` or `__MAX`.
bool is_wandb_csv_header(std::string_view header);

/// Reads the export `text` (of the file `path`): the x-axis column as the step (an integer), the
/// one column whose metric (after the last ` - `) ends in `loss`, without `__MIN`/`__MAX`, as
/// the loss; rows with an empty loss cell are skipped. Megatron-LM and Megatron-Bridge log
/// `lm loss` to W&B at step = iteration (megatron/training/training.py `training_log`:
/// `wandb_writer.log({key: ...}, iteration)`), so an `lm loss` column's step N is read as
/// 0-based step N-1; other metrics (slime's `train/loss` at its 0-based `train/step`) are read
/// as they are. Returns nullopt with one Problem (file, line, the column as the field): no loss
/// column or several (rule `loss.wandb`, naming the columns), a step that is not an integer
/// (`loss.step`), a loss that is not a number (`loss.value`), an unterminated quote or a row with
/// too few cells (`loss.csv`), a step given twice.
std::optional<LossSeries> read_wandb_csv(const std::string& path, std::string_view text,
                                         Problems& problems);

}  // namespace openrecipes
