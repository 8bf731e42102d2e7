# slime draft: gpt-oss-20b TP1 PP2 EP4 DP4 on 8 x H200, from recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml
# Settings: recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml's run command
# Patches, not carried by the command: patches/attune_gpt_oss_yarn.py (--spec attune_gpt_oss_yarn
# get_gpt_oss_yarn_spec imports it); put the repository's patches/ on PYTHONPATH on every node.
# Fill before running: <slime entry module> (left as a placeholder; bash reads an unfilled <...> as
# a redirection).
# Set: HF_CKPT, TORCH_DIST, SFT_DATA (read by the command, set nowhere in it).
MODEL_ARGS=(
  --spec attune_gpt_oss_yarn get_gpt_oss_yarn_spec
  --num-layers 24
  --hidden-size 2880
  --ffn-hidden-size 2880
  --num-attention-heads 64
  --group-query-attention
  --num-query-groups 8
  --kv-channels 64
  --padded-vocab-size 201088
  --tokenizer-type HuggingFaceTokenizer
  --normalization RMSNorm
  --norm-epsilon 1e-5
  --untie-embeddings-and-output-weights
  --position-embedding-type rope
  --rotary-percent 1.0
  --rotary-base 150000
  --no-rope-fusion
  --num-experts 32
  --moe-ffn-hidden-size 2880
  --moe-router-topk 4
  --moe-router-score-function softmax
  --moe-grouped-gemm
  --quick-geglu
  --glu-linear-offset 1.0
  --activation-func-clamp-value 7.0
  --softmax-type learnable
  --window-attn-skip-freq 2
  --window-size 127,0
)
export NCCL_GRAPH_REGISTER=0
export NCCL_NVLS_ENABLE=0
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
export TORCH_NCCL_AVOID_RECORD_STREAMS=1
export TORCH_NCCL_HIGH_PRIORITY=1
export AUTOTUNE_SEQ_LEN=8192
export PARITY_PROBE=0

python3 -m <slime entry module> --async \
  --actor-num-nodes 1 \
  --actor-num-gpus-per-node 8 \
  ${MODEL_ARGS[@]} \
  --seq-length 8192 \
  --hf-checkpoint "$HF_CKPT" \
  --ref-load "$TORCH_DIST" \
  --rollout-function-path pretokenized_sft_rollout.generate_rollout \
  --prompt-data "$SFT_DATA" \
  --input-key messages \
  --metadata-key metadata \
  --num-rollout 20 \
  --rollout-batch-size 128 \
  --global-batch-size 128 \
  --loss-type sft_loss \
  --disable-compute-advantages-and-returns \
  --debug-train-only \
  --tensor-model-parallel-size 1 \
  --pipeline-model-parallel-size 2 \
  --context-parallel-size 1 \
  --expert-model-parallel-size 4 \
  --expert-tensor-parallel-size 1 \
  --account-for-embedding-in-pipeline-split \
  --account-for-loss-in-pipeline-split \
  --moe-token-dispatcher-type alltoall \
  --use-dynamic-batch-size \
  --max-tokens-per-gpu 8192 \
  --optimizer adam \
  --lr 5e-6 \
  --min-lr 0 \
  --lr-decay-style cosine \
  --lr-warmup-iters 10 \
  --lr-decay-iters 100 \
  --adam-beta1 0.9 \
  --adam-beta2 0.98 \
  --adam-eps 1e-8 \
  --clip-grad 1.0 \
  --weight-decay 0.033 \
  --weight-decay-incr-style constant \
  --seed 5678 \
  --use-distributed-optimizer \
  --moe-router-load-balancing-type none \
  --moe-aux-loss-coeff 0.0 \
  --moe-permute-fusion \
  --no-bias-dropout-fusion \
  --cross-entropy-loss-fusion \
  --cross-entropy-fusion-impl native \
  --attention-dropout 0.0 \
  --hidden-dropout 0.0 \
  --grad-reduce-in-bf16
