# Megatron-LM draft: Qwen3.5-122B-A10B TP1 PP4 EP8 DP8 on 32 x H200, from recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-flex.yaml
# Settings: recipes/qwen3.5-122b-a10b/h200/attune-tp1-pp4-ep8-flex.yaml's run command
# Not carried: ${MODEL_ARGS[@]} (the model script's arguments; the recipe's run does not define
# them). The model arguments below are written from the model's shape instead. The recipe's
# model_script says MODEL_ARGS is THUDM/slime scripts/models/qwen3.5-122B-A10B.sh at a897e1f, with
# the load-balancing loss off; it sets --num-layers 48 --hidden-size 3072 --num-experts 256
# --moe-router-topk 8 --moe-ffn-hidden-size 1024 --moe-token-dispatcher-type alltoall
# --moe-aux-loss-coeff 0.
# Model arguments: written from the model's shape (sizes only); take the layer kinds, activation and
# rope from the model's Megatron spec
# slime's --use-dynamic-batch-size --max-tokens-per-gpu 8192 is --micro-batch-size 1 here (1 row(s) of 8192 tokens); --num-rollout becomes --train-iters 20, the protocol's steps
# Not carried (slime only): --async --actor-num-nodes 4 --actor-num-gpus-per-node 8 --hf-checkpoint
# $HF_CKPT --ref-load $TORCH_DIST --rollout-function-path pretokenized_sft_rollout.generate_rollout
# --prompt-data $SFT_DATA --input-key messages --metadata-key metadata --rollout-batch-size 128
# --loss-type sft_loss --loss-mask-type qwen3_5 --disable-compute-advantages-and-returns
# --debug-train-only
# Not carried as written (the layout, batch and steps are written from the recipe's layout and
# workload fields): --sequence-parallel
# SFT rows and loss mask, not carried: the recipe trains on the rows qwen35-tulu3-fixed8192-v1 (6400
# rows of 8192 tokens built by openrecipes rows build, loss mask qwen3_5, rows_sha256
# 7a837641dcde9ebcac9d3ed5ed84ddd941fc9bfc173606cc701e9a3f51c307f1) (the loss mask is
# docs/loss-masks.md's qwen3_5). Megatron-LM reads neither the rows Parquet nor this mask. With
# --sft, pretrain_gpt.py builds SFTDataset (megatron/training/datasets/sft_dataset.py): it reads a
# JSONL file whose lines hold {"messages": [...]}, splits a line into conversations at each system
# message, renders and masks each with the SFTTokenizer's --sft-tokenizer-prompt-format
# (megatron/training/tokenizer/sft_tokenizer.py: no loss on system and user turns or on padding) and
# packs one line into one --seq-length row, padded or cut at its end. Supply SFT_JSONL (the
# conversations of each row as one JSONL line) and SFT_PROMPT_FORMAT (a prompt format whose template
# and mask are qwen3_5's; Megatron-LM's SFTTokenizer has none by that name). The recipe's rows cut
# conversations at row boundaries and SFTDataset starts each row at a conversation, so its tokens
# and supervised positions differ from the rows until the JSONL and the format reproduce them: until
# then the loss is not the recipe's.
# --tokenizer-type HuggingFaceTokenizer (the model arguments') is --tokenizer-type SFTTokenizer
# here: SFTDataset tokenizes with tokenize_conversation, which SFTTokenizer provides
# Set SFT_JSONL, SFT_PROMPT_FORMAT, TOKENIZER, CHECKPOINT (and NVLINK_COUNT, read by the exports),
# and on each node NODE_RANK, MASTER_ADDR, MASTER_PORT
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
  --recompute-num-layers 1 \
  --moe-token-dispatcher-type flex \
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
  --moe-aux-loss-coeff 0 \
  --sft \
  --data-path "$SFT_JSONL" \
  --split 100,0,0 \
  --tokenizer-type SFTTokenizer \
  --sft-tokenizer-prompt-format "$SFT_PROMPT_FORMAT" \
  --no-create-attention-mask-in-dataloader \
  --tokenizer-model "$TOKENIZER" \
  --load "$CHECKPOINT" \
  --finetune \
  --eval-iters 0 \
  --log-interval 1
