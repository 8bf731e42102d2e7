"""Megatron-Bridge SFT recipe draft: Qwen3.5-122B-A10B TP1 PP4 VPP2 EP8 DP8 on 32 x H200.

Exported by openrecipes export from recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-rc2.yaml.
Settings: recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-rc2.yaml's run command.
"""

from megatron.bridge import AutoBridge
from megatron.bridge.recipes.common import _sft_common
from megatron.bridge.training.config import ConfigContainer


def qwen35_122b_a10b_sft_config() -> ConfigContainer:
    """SFT config for Qwen3.5-122B-A10B TP1 PP4 VPP2 EP8 DP8 on 32 x H200."""
    cfg = _sft_common()

    # Model
    cfg.model = AutoBridge.from_hf_pretrained("Qwen/Qwen3.5-122B-A10B").get_model_config()
    cfg.model.seq_length = 8192
    cfg.tokenizer.tokenizer_model = "Qwen/Qwen3.5-122B-A10B"
    # Not carried: ${MODEL_ARGS[@]} (the model script's arguments; the recipe's run does not define
    # them). The model config comes from Qwen/Qwen3.5-122B-A10B's Hugging Face config through
    # AutoBridge. The recipe's model_script says MODEL_ARGS is THUDM/slime
    # scripts/models/qwen3.5-122B-A10B.sh at a897e1f, with the load-balancing loss off; it sets
    # --num-layers 48 --hidden-size 3072 --num-experts 256 --moe-router-topk 8 --moe-ffn-hidden-size
    # 1024 --moe-token-dispatcher-type alltoall --moe-aux-loss-coeff 0.

    # Parallelism
    cfg.model.tensor_model_parallel_size = 1
    cfg.model.pipeline_model_parallel_size = 4
    cfg.model.virtual_pipeline_model_parallel_size = 2
    cfg.model.context_parallel_size = 1
    cfg.model.expert_model_parallel_size = 8
    cfg.model.expert_tensor_parallel_size = 1
    cfg.model.sequence_parallel = False
    cfg.model.num_layers_in_first_pipeline_stage = None
    cfg.model.num_layers_in_last_pipeline_stage = None
    cfg.model.pipeline_model_parallel_layout = "Et*6|(t*6|)*6t*6L"
    cfg.model.account_for_embedding_in_pipeline_split = False
    cfg.model.account_for_loss_in_pipeline_split = False
    cfg.model.recompute_granularity = "full"
    cfg.model.recompute_method = "uniform"
    cfg.model.recompute_num_layers = 2
    cfg.model.moe_token_dispatcher_type = "alltoall"
    cfg.ddp.use_distributed_optimizer = True

    # Training
    # slime's --use-dynamic-batch-size --max-tokens-per-gpu 8192 is micro_batch_size 1 here (1
    # row(s) of 8192 tokens); --num-rollout becomes max_steps 20, the protocol's steps
    cfg.training.max_steps = 20
    cfg.training.global_batch_size = 128
    cfg.training.micro_batch_size = 1
    cfg.dataset.seq_length = 8192
    # Not carried (slime only): --async --actor-num-nodes 4 --actor-num-gpus-per-node 8
    # --hf-checkpoint $HF_CKPT --ref-load $TORCH_DIST --rollout-function-path
    # pretokenized_sft_rollout.generate_rollout --prompt-data $SFT_DATA --input-key messages
    # --metadata-key metadata --rollout-batch-size 128 --loss-type sft_loss --loss-mask-type qwen3_5
    # --disable-compute-advantages-and-returns --debug-train-only
    # Not carried as written (the layout, batch and steps are written from the recipe's layout and
    # workload fields): --sequence-parallel

    # Rows and loss mask, not carried: the recipe trains on the rows qwen35-tulu3-fixed8192-v1 (6400
    # rows of 8192 tokens built by openrecipes rows build, loss mask qwen3_5, rows_sha256
    # 7a837641dcde9ebcac9d3ed5ed84ddd941fc9bfc173606cc701e9a3f51c307f1) (docs/loss-masks.md).
    # _sft_common() keeps Megatron-Bridge's default SFT dataset (HFDatasetConfig with SQuAD,
    # megatron/bridge/recipes/common.py): set cfg.dataset to a dataset config that yields these rows
    # with their loss mask. This draft sets none: it knows of no Megatron-Bridge dataset that reads
    # the rows Parquet.

    # Optimizer, schedule and seed
    cfg.optimizer.optimizer = "adam"
    cfg.optimizer.lr = 1e-5
    cfg.scheduler.lr_decay_style = "cosine"
    cfg.optimizer.min_lr = 1e-6
    cfg.scheduler.lr_warmup_fraction = 0.1
    cfg.optimizer.weight_decay = 0.1
    cfg.optimizer.adam_beta1 = 0.9
    cfg.optimizer.adam_beta2 = 0.98

    # Mixed precision
    cfg.mixed_precision = "bf16_mixed"

    # The recipe's other settings
    cfg.model.calculate_per_token_loss = True
    cfg.optimizer.use_precision_aware_optimizer = True
    cfg.model.attention_dropout = 0.0
    cfg.model.hidden_dropout = 0.0
    cfg.ddp.grad_reduce_in_fp32 = True
    cfg.model.attention_softmax_in_fp32 = True
    cfg.model.attention_backend = "flash"
    cfg.model.cross_entropy_loss_fusion = True
    cfg.model.cross_entropy_fusion_impl = "te"
    cfg.dist.distributed_timeout_minutes = 30
    cfg.model.moe_aux_loss_coeff = 0

    # Environment (set it in the launcher): CUDA_DEVICE_MAX_CONNECTIONS=1 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True TORCHINDUCTOR_COMPILE_THREADS=1 NCCL_NVLS_ENABLE=$([ "$NVLINK_COUNT" -gt 0 ] && echo 1 || echo 0)

    return cfg
