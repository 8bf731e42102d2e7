# Megatron-LM draft: Qwen3.5-122B-A10B TP1 PP4 EP8 DP8 on 32 x H200, from recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-rc2.yaml
# Settings: recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-rc2.yaml's run command
# Model arguments: written from the model's shape (sizes only); take the layer kinds, activation and
# rope from the model's Megatron spec
# slime's --use-dynamic-batch-size --max-tokens-per-gpu 8192 is --micro-batch-size 1 here (1 row(s) of 8192 tokens); --num-rollout 20 is --train-iters 20
# Dropped (slime only): --async --actor-num-nodes --actor-num-gpus-per-node --hf-checkpoint --ref-load --rollout-function-path --prompt-data --input-key --metadata-key --rollout-batch-size --loss-type --loss-mask-type --disable-compute-advantages-and-returns --debug-train-only
# Set DATA_PATH (the fixed rows as a Megatron-LM dataset prefix), TOKENIZER, CHECKPOINT, and on each node
# NODE_RANK, MASTER_ADDR, MASTER_PORT
export CUDA_DEVICE_MAX_CONNECTIONS=1
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
export TORCHINDUCTOR_COMPILE_THREADS=1
export NCCL_NVLS_ENABLE=$([ "$NVLINK_COUNT" -gt 0 ] && echo 1 || echo 0)

torchrun \
  --nproc-per-node 8 \
  --nnodes 4 \
  --node-rank "$NODE_RANK" \
  --master-addr "$MASTER_ADDR" \
  --master-port "$MASTER_PORT" \
  pretrain_gpt.py \
  --num-layers 48 \
  --hidden-size 3072 \
  --ffn-hidden-size 1024 \
  --num-attention-heads 32 \
  --group-query-attention \
  --num-query-groups 2 \
  --kv-channels 256 \
  --vocab-size 248320 \
  --tokenizer-type HuggingFaceTokenizer \
  --normalization RMSNorm \
  --position-embedding-type rope \
  --swiglu \
  --untie-embeddings-and-output-weights \
  --num-experts 256 \
  --moe-ffn-hidden-size 1024 \
  --moe-router-topk 8 \
  --moe-shared-expert-intermediate-size 1024 \
  --moe-grouped-gemm \
  --seq-length 8192 \
  --max-position-embeddings 8192 \
  --tensor-model-parallel-size 1 \
  --pipeline-model-parallel-size 4 \
  --context-parallel-size 1 \
  --expert-model-parallel-size 8 \
  --expert-tensor-parallel-size 1 \
  --recompute-granularity full \
  --recompute-method uniform \
  --recompute-num-layers 2 \
  --moe-token-dispatcher-type alltoall \
  --micro-batch-size 1 \
  --global-batch-size 128 \
  --train-iters 20 \
  --bf16 \
  --optimizer adam \
  --lr 1e-5 \
  --lr-decay-style cosine \
  --min-lr 1e-6 \
  --lr-warmup-fraction 0.1 \
  --weight-decay 0.1 \
  --adam-beta1 0.9 \
  --adam-beta2 0.98 \
  --use-distributed-optimizer \
  --calculate-per-token-loss \
  --use-precision-aware-optimizer \
  --attention-dropout 0.0 \
  --hidden-dropout 0.0 \
  --accumulate-allreduce-grads-in-fp32 \
  --attention-softmax-in-fp32 \
  --attention-backend flash \
  --cross-entropy-loss-fusion \
  --cross-entropy-fusion-impl te \
  --distributed-timeout-minutes 30 \
  --data-path "$DATA_PATH" \
  --split 100,0,0 \
  --tokenizer-model "$TOKENIZER" \
  --load "$CHECKPOINT" \
  --finetune \
  --eval-iters 0 \
  --log-interval 1
