# Megatron-LM draft: gpt-oss-20b TP1 PP2 EP4 DP4 on 8 x H200, from recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml
# Settings: recipes/gpt-oss-20b/h200/attune-tp1-pp2-ep4.yaml's run command
# slime's --use-dynamic-batch-size --max-tokens-per-gpu 8192 is --micro-batch-size 1 here (1 row(s) of 8192 tokens); --num-rollout becomes --train-iters 20, the protocol's steps
# Not carried (slime only): --async --actor-num-nodes 1 --actor-num-gpus-per-node 8 --hf-checkpoint
# $HF_CKPT --ref-load $TORCH_DIST --rollout-function-path pretokenized_sft_rollout.generate_rollout
# --prompt-data $SFT_DATA --input-key messages --metadata-key metadata --rollout-batch-size 128
# --loss-type sft_loss --disable-compute-advantages-and-returns --debug-train-only
# Patches, not carried: the recipe needs patches/attune_gpt_oss_yarn.py (the repository's patches/
# folder); put them on PYTHONPATH on every node.
# Layer spec: --spec attune_gpt_oss_yarn get_gpt_oss_yarn_spec is passed as written, but
# Megatron-LM's gpt_builders.py hands what --spec names to GPTModel as the layer spec itself, while
# slime calls a function spec(args, config, vp_stage)
# (slime/backends/megatron_utils/model_provider.py): if it names a function, add a module attribute
# that holds the spec it returns and name that.
# SFT rows and loss mask, not carried: the recipe trains on the rows gptoss-tulu3-fixed8192-v1 (6400
# rows of 8192 tokens built by openrecipes rows build, loss mask gpt_oss, rows_sha256
# de2b9bb0f64927fd4214b45c3718fec01d9f2579da462e7615b1154d88185963) (the loss mask is
# docs/loss-masks.md's gpt_oss). Megatron-LM reads neither the rows Parquet nor this mask. With
# --sft, pretrain_gpt.py builds SFTDataset (megatron/training/datasets/sft_dataset.py): it reads a
# JSONL file whose lines hold {"messages": [...]}, splits a line into conversations at each system
# message, renders and masks each with the SFTTokenizer's --sft-tokenizer-prompt-format
# (megatron/training/tokenizer/sft_tokenizer.py: no loss on system and user turns or on padding) and
# packs one line into one --seq-length row, padded or cut at its end. Supply SFT_JSONL (the
# conversations of each row as one JSONL line) and SFT_PROMPT_FORMAT (a prompt format whose template
# and mask are gpt_oss's; Megatron-LM's SFTTokenizer has none by that name). The recipe's rows cut
# conversations at row boundaries and SFTDataset starts each row at a conversation, so its tokens
# and supervised positions differ from the rows until the JSONL and the format reproduce them: until
# then the loss is not the recipe's.
# --tokenizer-type HuggingFaceTokenizer (the model arguments') is --tokenizer-type SFTTokenizer
# here: SFTDataset tokenizes with tokenize_conversation, which SFTTokenizer provides
# Set SFT_JSONL, SFT_PROMPT_FORMAT, TOKENIZER, CHECKPOINT, and on each node NODE_RANK, MASTER_ADDR,
# MASTER_PORT
export NCCL_GRAPH_REGISTER=0
export NCCL_NVLS_ENABLE=0
export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
export TORCH_NCCL_AVOID_RECORD_STREAMS=1
export TORCH_NCCL_HIGH_PRIORITY=1
export AUTOTUNE_SEQ_LEN=8192
export PARITY_PROBE=0

torchrun \
  --nproc-per-node 8 \
  --nnodes 1 \
  --node-rank "$NODE_RANK" \
  --master-addr "$MASTER_ADDR" \
  --master-port "$MASTER_PORT" \
  pretrain_gpt.py \
  --spec attune_gpt_oss_yarn get_gpt_oss_yarn_spec \
  --num-layers 24 \
  --hidden-size 2880 \
  --ffn-hidden-size 2880 \
  --num-attention-heads 64 \
  --group-query-attention \
  --num-query-groups 8 \
  --kv-channels 64 \
  --padded-vocab-size 201088 \
  --normalization RMSNorm \
  --norm-epsilon 1e-5 \
  --untie-embeddings-and-output-weights \
  --position-embedding-type rope \
  --rotary-percent 1.0 \
  --rotary-base 150000 \
  --no-rope-fusion \
  --num-experts 32 \
  --moe-ffn-hidden-size 2880 \
  --moe-router-topk 4 \
  --moe-router-score-function softmax \
  --moe-grouped-gemm \
  --quick-geglu \
  --glu-linear-offset 1.0 \
  --activation-func-clamp-value 7.0 \
  --softmax-type learnable \
  --window-attn-skip-freq 2 \
  --window-size 127,0 \
  --seq-length 8192 \
  --max-position-embeddings 8192 \
  --tensor-model-parallel-size 1 \
  --pipeline-model-parallel-size 2 \
  --context-parallel-size 1 \
  --expert-model-parallel-size 4 \
  --expert-tensor-parallel-size 1 \
  --moe-token-dispatcher-type alltoall \
  --micro-batch-size 1 \
  --global-batch-size 128 \
  --train-iters 20 \
  --bf16 \
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
  --grad-reduce-in-bf16 \
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
