// A Megatron-Bridge recipe module (in the layout of NVIDIA-NeMo/Megatron-Bridge's
// src/megatron/bridge/recipes/) for an export source.
#pragma once

#include <string>

#include "export/export_source.h"
#include "plan/layout_prediction.h"
#include "runs/argument_rules.h"

namespace openrecipes {

/// The recipe function's name: `<model>_sft_config` with model_identifier (gpt-oss-20b gives
/// gpt_oss_20b_sft_config, Qwen3.5-122B-A10B gives qwen35_122b_a10b_sft_config).
std::string bridge_function_name(const std::string& model_name);

/// A Python module holding one self-contained `def <model>_sft_config() -> ConfigContainer:`
/// (Megatron-Bridge's recipe layout, src/megatron/bridge/recipes/ in NVIDIA-NeMo/Megatron-Bridge):
/// a docstring, `cfg = _sft_common()`, the model from AutoBridge with the source's Hugging Face
/// repository, then every parallelism, recompute and dispatcher field, training (max_steps 20,
/// global and micro batch, sequence length), optimizer and schedule, mixed precision and seed, and
/// the recipe's other settings. Megatron-LM flags become config fields through the `section.key`
/// spellings of `rules` (rules/arguments.yaml); a flag the rules give no such spelling is kept as a
/// comment. It sets cfg.tokenizer.tokenizer_model (which _sft_common() leaves to each recipe) and
/// names in comments what it does not carry: the recipe's model arguments (the model comes from the
/// Hugging Face config), the layer spec and patches with what to add
/// (cfg.model.transformer_layer_spec), the rows and loss mask (_sft_common()'s default dataset is
/// not them), the slime-only arguments and layout arguments not written as they were. With
/// `prediction`, the module docstring carries the predicted figures and says the
/// recipe is planned, not measured. Valid Python 3.
std::string megatron_bridge_recipe(const ExportSource& source, const ArgumentRules& rules,
                                   const LayoutPrediction* prediction = nullptr);

}  // namespace openrecipes
