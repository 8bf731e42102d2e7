#include "rows/dataset_block.h"

#include <fmt/format.h>

#include <cmath>

#include "base/yaml_scalar.h"

namespace openrecipes {

std::string dataset_block_yaml(const RowsBuildResult& r) {
  std::string out;
  out += fmt::format("    rows_sha256: {}\n", r.rows_sha256);
  out += "    build:\n";
  out += fmt::format("      name: {}\n", yaml_scalar(r.name));
  out += fmt::format("      tokenizer: {}\n", yaml_scalar(r.tokenizer_label));
  out += fmt::format("      loss_mask: {}\n", r.loss_mask);
  out += fmt::format("      rows: {}\n", r.rows);
  out += fmt::format("      row_tokens: {}\n", r.row_tokens);
  out += fmt::format("      padding_tokens: {}\n", r.padding_tokens);
  out += fmt::format("      seed: {}\n", r.seed);
  out += fmt::format("      packing: {}\n", yaml_scalar(r.packing));
  out += fmt::format("      supervised_token_ratio: {:.3f}\n", r.supervised_token_ratio);
  out += fmt::format("      parquet_sha256: {}\n", r.parquet_sha256);
  out += fmt::format("      parquet_bytes: {}\n", r.parquet_bytes);
  out += fmt::format("      builder: {}\n", yaml_scalar(r.builder));
  return out;
}

nlohmann::ordered_json dataset_block_json(const RowsBuildResult& r) {
  nlohmann::ordered_json build = {
      {"name", r.name},
      {"tokenizer", r.tokenizer_label},
      {"loss_mask", r.loss_mask},
      {"rows", r.rows},
      {"row_tokens", r.row_tokens},
      {"padding_tokens", r.padding_tokens},
      {"seed", r.seed},
      {"packing", r.packing},
      // As the recipe states it (3 decimals); the exact count is below.
      {"supervised_token_ratio", std::round(r.supervised_token_ratio * 1000) / 1000},
      {"parquet_sha256", r.parquet_sha256},
      {"parquet_bytes", r.parquet_bytes},
      {"builder", r.builder}};
  return {{"rows_sha256", r.rows_sha256},
          {"build", build},
          {"output", r.output},
          {"tokenizer_sha256", r.tokenizer_sha256},
          {"eos_token", r.eos_token},
          {"eos_id", r.eos_id},
          {"supervised_tokens", r.supervised_tokens},
          {"skipped_rows", r.skipped_rows},
          {"conversations_used", r.conversations_used},
          {"conversations_available", r.conversations_available}};
}

}  // namespace openrecipes
