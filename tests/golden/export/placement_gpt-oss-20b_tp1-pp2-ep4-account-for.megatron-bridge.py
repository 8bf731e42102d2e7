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
    cfg.tokenizer.tokenizer_model = "openai/gpt-oss-20b"
    # Not carried: the recipe's model arguments; the model config comes from openai/gpt-oss-20b's
    # Hugging Face config through AutoBridge. Check that it agrees with: --num-layers 24
    # --hidden-size 2880 --ffn-hidden-size 2880 --num-attention-heads 64 --group-query-attention
    # --num-query-groups 8 --kv-channels 64 --padded-vocab-size 201088 --tokenizer-type
    # HuggingFaceTokenizer --normalization RMSNorm --norm-epsilon 1e-5
    # --untie-embeddings-and-output-weights --position-embedding-type rope --rotary-percent 1.0
    # --rotary-base 150000 --no-rope-fusion --num-experts 32 --moe-ffn-hidden-size 2880
    # --moe-router-topk 4 --moe-router-score-function softmax --moe-grouped-gemm --quick-geglu
    # --glu-linear-offset 1.0 --activation-func-clamp-value 7.0 --softmax-type learnable
    # --window-attn-skip-freq 2 --window-size 127,0
    # Layer spec, not carried: the recipe's run loads --spec attune_gpt_oss_yarn
    # get_gpt_oss_yarn_spec (patches: patches/attune_gpt_oss_yarn.py). Add: put the repository's
    # patches/ on PYTHONPATH and set cfg.model.transformer_layer_spec to the ModuleSpec, or to a
    # function of the provider that returns it (GPTModelProvider.transformer_layer_spec,
    # src/megatron/bridge/models/gpt_provider.py). slime calls get_gpt_oss_yarn_spec as
    # get_gpt_oss_yarn_spec(args, config, vp_stage); Megatron-Bridge calls spec(provider), or
    # spec(provider, vp_stage=...) when the function takes vp_stage: wrap it.

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
    cfg.model.pipeline_model_parallel_layout = None
    cfg.model.account_for_embedding_in_pipeline_split = True
    cfg.model.account_for_loss_in_pipeline_split = True
    cfg.model.recompute_granularity = None
    cfg.model.recompute_method = None
    cfg.model.recompute_num_layers = None
    cfg.model.moe_token_dispatcher_type = "alltoall"
    cfg.ddp.use_distributed_optimizer = True

    # Training
    # slime's --use-dynamic-batch-size --max-tokens-per-gpu 8192 is micro_batch_size 1 here (1
    # row(s) of 8192 tokens); --num-rollout becomes max_steps 20, the protocol's steps
    cfg.training.max_steps = 20
    cfg.training.global_batch_size = 128
    cfg.training.micro_batch_size = 1
    cfg.dataset.seq_length = 8192
    # Not carried (slime only): --async --actor-num-nodes 1 --actor-num-gpus-per-node 8
    # --hf-checkpoint $HF_CKPT --ref-load $TORCH_DIST --rollout-function-path
    # pretokenized_sft_rollout.generate_rollout --prompt-data $SFT_DATA --input-key messages
    # --metadata-key metadata --rollout-batch-size 128 --loss-type sft_loss
    # --disable-compute-advantages-and-returns --debug-train-only

    # Rows and loss mask, not carried: the recipe trains on the rows gptoss-tulu3-fixed8192-v1 (6400
    # rows of 8192 tokens built by openrecipes rows build, loss mask gpt_oss, rows_sha256
    # de2b9bb0f64927fd4214b45c3718fec01d9f2579da462e7615b1154d88185963) (docs/loss-masks.md).
    # _sft_common() keeps Megatron-Bridge's default SFT dataset (HFDatasetConfig with SQuAD,
    # megatron/bridge/recipes/common.py): set cfg.dataset to a dataset config that yields these rows
    # with their loss mask. This draft sets none: it knows of no Megatron-Bridge dataset that reads
    # the rows Parquet.

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
    cfg.ddp.grad_reduce_in_fp32 = False

    # Environment (set it in the launcher): NCCL_GRAPH_REGISTER=0 NCCL_NVLS_ENABLE=0 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True TORCH_NCCL_AVOID_RECORD_STREAMS=1 TORCH_NCCL_HIGH_PRIORITY=1 AUTOTUNE_SEQ_LEN=8192 PARITY_PROBE=0

    return cfg
