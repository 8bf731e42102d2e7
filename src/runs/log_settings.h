// The run settings a training log prints about itself: Megatron-LM's argument dump
// (`------------------------ arguments ------------------------` then `  name ....... value`
// lines, megatron/training/arguments.py `_print_args`), its `using world size: W, data-parallel
// size: D, ...` line (arguments.py `validate_args`), and the `global batch size: B` of every
// iteration line (megatron/training/training.py `training_log`). slime prints the same dump:
// it parses and validates its arguments with Megatron-LM's parser
// (slime/backends/megatron_utils/arguments.py, which sets world_size to the training GPUs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace openrecipes {

/// One value the log printed: the value, its 1-based line and the line's text (trimmed, at most
/// 160 characters) for messages.
struct LoggedValue {
  std::int64_t value = 0;
  int line = 0;
  std::string text;
};

/// The settings read from a log; each is nullopt where the log does not print it. Megatron-LM
/// prints `None` for an unset size: num_experts None reads as 0 (a dense model), any other None
/// as not printed.
struct LogSettings {
  std::optional<LoggedValue> world_size;          ///< `world_size` or `using world size: W`
  std::optional<LoggedValue> data_parallel_size;  ///< `data_parallel_size` or `data-parallel size:`
  std::optional<LoggedValue> global_batch_size;   ///< `global_batch_size` or an iteration line's
  std::optional<LoggedValue> micro_batch_size;    ///< rows per micro-batch
  std::optional<LoggedValue> seq_length;          ///< tokens per row
  std::optional<LoggedValue> hidden_size;
  std::optional<LoggedValue> num_layers;   ///< decoder layers (MTP layers are mtp_num_layers)
  std::optional<LoggedValue> num_experts;  ///< routed experts per MoE layer; 0 for None
  bool argument_dump = false;              ///< the `arguments` block was seen
  /// A second, different global batch size on a later iteration line (batch-size ramp-up), or
  /// nullopt.
  std::optional<LoggedValue> global_batch_changed;
};

/// Reads one log line (1-based `line_number`) into `settings`: inside the argument dump (tracked
/// in `settings.argument_dump` and `in_dump`), a `using world size:` line, or an iteration line's
/// `global batch size:`. The first value printed wins; lines of other kinds are ignored. Values
/// that are not integers are left out (Megatron-LM prints `None` for unset sizes).
void read_log_setting_line(std::string_view line, int line_number, bool& in_dump,
                           LogSettings& settings);

}  // namespace openrecipes
