"""Megatron-Bridge SFT recipe draft: gpt-oss-20b TP1 PP2 EP4 DP4 on 8 x H200.

Exported by openrecipes export from recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml.
Settings: recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml's run command.
"""

from megatron.bridge import AutoBridge
from megatron.bridge.recipes.common import _sft_common
from megatron.bridge.training.config import ConfigContainer


def gpt_oss_20b_sft_config() -> ConfigContainer:
    """SFT config for gpt-oss-20b TP1 PP2 EP4 DP4 on 8 x H200."""
    cfg = _sft_common()

    # Model
    cfg.model = AutoBridge.from_hf_pretrained("openai/gpt-oss-20b").get_model_config()
    cfg.model.seq_length = 8192

    # Parallelism
    cfg.model.tensor_model_parallel_size = 1
    cfg.model.pipeline_model_parallel_size = 2
    cfg.model.virtual_pipeline_model_parallel_size = None
    cfg.model.context_parallel_size = 1
    cfg.model.expert_model_parallel_size = 4
    cfg.model.expert_tensor_parallel_size = 1
    cfg.model.sequence_parallel = False
    cfg.model.num_layers_in_first_pipeline_stage = None
    cfg.model.num_layers_in_last_pipeline_stage = None
    cfg.model.recompute_granularity = None
    cfg.model.recompute_method = None
    cfg.model.recompute_num_layers = None
    cfg.model.moe_token_dispatcher_type = "alltoall"
    cfg.ddp.use_distributed_optimizer = True

    # Training
    cfg.training.max_steps = 20
    cfg.training.global_batch_size = 128
    cfg.training.micro_batch_size = 1
    cfg.dataset.seq_length = 8192

    # Optimizer, schedule and seed
    cfg.optimizer.optimizer = "adam"
    cfg.optimizer.lr = 5e-6
    cfg.optimizer.min_lr = 0
    cfg.scheduler.lr_decay_style = "cosine"
    cfg.scheduler.lr_warmup_iters = 10
    cfg.scheduler.lr_decay_iters = 100
    cfg.optimizer.adam_beta1 = 0.9
    cfg.optimizer.adam_beta2 = 0.98
    cfg.optimizer.adam_eps = 1e-8
    cfg.optimizer.clip_grad = 1.0
    cfg.optimizer.weight_decay = 0.033
    cfg.scheduler.weight_decay_incr_style = "constant"
    cfg.rng.seed = 5678

    # Mixed precision
    cfg.mixed_precision = "bf16_mixed"

    # The recipe's other settings
    cfg.model.moe_router_load_balancing_type = "none"
    cfg.model.moe_aux_loss_coeff = 0.0
    cfg.model.moe_permute_fusion = True
    cfg.model.bias_dropout_fusion = False
    cfg.model.cross_entropy_loss_fusion = True
    cfg.model.cross_entropy_fusion_impl = "native"
    cfg.model.attention_dropout = 0.0
    cfg.model.hidden_dropout = 0.0
    # --grad-reduce-in-bf16: no Megatron-Bridge field in rules/arguments.yaml

    # Environment (set it in the launcher): NCCL_GRAPH_REGISTER=0 NCCL_NVLS_ENABLE=0 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True TORCH_NCCL_AVOID_RECORD_STREAMS=1 TORCH_NCCL_HIGH_PRIORITY=1 AUTOTUNE_SEQ_LEN=8192 PARITY_PROBE=0

    return cfg
