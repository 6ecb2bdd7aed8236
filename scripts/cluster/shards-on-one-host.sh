#!/bin/bash
# docsift on one host with several GPUs: one shard per GPU with GNU parallel, then the merge.
#   IN=scans/ OUT=results/ GPUS=4 DOCSIFT_ARGS="--config configs/internvl3-8b.yaml --model /models/InternVL3-8B" \
#     scripts/cluster/shards-on-one-host.sh
# Job slot k runs on GPU k-1 (CUDA_VISIBLE_DEVICES), one shard at a time. Exits as the merge does:
# 0 when every image succeeded, 1 when some failed or are missing (summary.json in $OUT says which).
set -euo pipefail
: "${IN:?set IN to the folder of images}" "${OUT:?set OUT to the output folder}"
export IN OUT DOCSIFT="${DOCSIFT:-docsift}" DOCSIFT_ARGS="${DOCSIFT_ARGS:-}"
export GPUS="${GPUS:-$(nvidia-smi --list-gpus | wc -l)}"
# {} is the shard number and {%} the job slot, both 1..GPUS; a shard whose images partly failed
# exits 1, which the merge reports, so parallel's own status is not the verdict.
# shellcheck disable=SC2016
parallel --jobs "$GPUS" --line-buffer --tagstring 'shard {}' \
  'CUDA_VISIBLE_DEVICES=$(({%} - 1)) "$DOCSIFT" run "$IN" --out "$OUT" --shard {}/"$GPUS" --resume --quiet $DOCSIFT_ARGS' \
  ::: $(seq 1 "$GPUS") || true
exec "$DOCSIFT" merge "$OUT"/shard-*-of-"$GPUS" --out "$OUT" --expect "$IN"
