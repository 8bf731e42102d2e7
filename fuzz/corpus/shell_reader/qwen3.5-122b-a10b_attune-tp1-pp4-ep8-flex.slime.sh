# slime: recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-flex.yaml's run as measured
# Not carried: MODEL_ARGS. The command expands ${MODEL_ARGS[@]} but does not define it (a model
# script's arguments): define it before running. The recipe's model_script says MODEL_ARGS is
# THUDM/slime scripts/models/qwen3.5-122B-A10B.sh at a897e1f, with the load-balancing loss off; it
# sets --num-layers 48 --hidden-size 3072 --num-experts 256 --moe-router-topk 8
# --moe-ffn-hidden-size 1024 --moe-token-dispatcher-type alltoall --moe-aux-loss-coeff 0.
# Fill before running: <slime entry module> (left as a placeholder; bash reads an unfilled <...> as
# a redirection).
# Set: NVLINK_COUNT, HF_CKPT, TORCH_DIST, SFT_DATA (read by the command, set nowhere in it).
export CUDA_DEVICE_MAX_CONNECTIONS=1
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
export TORCHINDUCTOR_COMPILE_THREADS=1
export NCCL_NVLS_ENABLE=$([ "$NVLINK_COUNT" -gt 0 ] && echo 1 || echo 0)

# MODEL_ARGS: the model script's, with the load-balancing loss off
python3 -m <slime entry module> --async \
  --actor-num-nodes 4 \
  --actor-num-gpus-per-node 8 \
  ${MODEL_ARGS[@]} \
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
  --loss-mask-type qwen3_5 \
  --calculate-per-token-loss \
  --disable-compute-advantages-and-returns \
  --debug-train-only \
  --tensor-model-parallel-size 1 \
  --pipeline-model-parallel-size 4 \
  --context-parallel-size 1 \
  --expert-model-parallel-size 8 \
  --expert-tensor-parallel-size 1 \
  --sequence-parallel \
  --recompute-granularity full \
  --recompute-method uniform \
  --recompute-num-layers 1 \
  --use-dynamic-batch-size \
  --max-tokens-per-gpu 8192 \
  --optimizer adam --lr 1e-5 --lr-decay-style cosine --min-lr 1e-6 \
  --lr-warmup-fraction 0.1 --weight-decay 0.1 --adam-beta1 0.9 --adam-beta2 0.98 \
  --use-distributed-optimizer \
  --use-precision-aware-optimizer \
  --attention-dropout 0.0 --hidden-dropout 0.0 \
  --accumulate-allreduce-grads-in-fp32 --attention-softmax-in-fp32 \
  --attention-backend flash \
  --cross-entropy-loss-fusion --cross-entropy-fusion-impl te \
  --distributed-timeout-minutes 30 \
  --moe-token-dispatcher-type flex
