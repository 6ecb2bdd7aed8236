#!/bin/bash
# Checks the README's Slurm recipe on a real Slurm, on this machine: installs Debian's Slurm and
# munge, starts a one-node cluster (slurmctld and slurmd as root, no cgroups, state in a temporary
# folder), submits scripts/cluster/docsift-array.sbatch as an array of $SHARDS tasks over 12 sample
# images with the fixture model on the CPU, merges in a dependent job (afterany) as the README says,
# and compares the merged predictions.csv with one run's. Prints the job ids, times and verdict.
# Not part of scripts/test.sh (it starts daemons and needs root). Needs a built docsift:
#   scripts/setup.sh && scripts/slurm-local.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DOCSIFT=${DOCSIFT:-$ROOT/build/docsift}
SHARDS=${SHARDS:-4}
WORK=$(mktemp -d /tmp/docsift-slurm.XXXXXX)
[ -x "$DOCSIFT" ] || { echo "slurm-local.sh: $DOCSIFT not built; run scripts/setup.sh first" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "slurm-local.sh: needs root (it installs packages and starts daemons)" >&2; exit 1; }
t0=$(date +%s.%N)
since() { printf '%.1f s' "$(echo "$(date +%s.%N) - $t0" | bc)"; }

echo "==> Debian packages: slurm-wlm, munge"
missing=()
for p in slurmctld slurmd slurm-client munge bc; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
slurmctld -V

echo "==> munge and a one-node cluster in $WORK"
[ -s /etc/munge/munge.key ] || { mungekey --create --force; chown munge:munge /etc/munge/munge.key; chmod 0400 /etc/munge/munge.key; }
mkdir -p /run/munge && chown munge:munge /run/munge
pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged
if pgrep -x slurmctld >/dev/null || pgrep -x slurmd >/dev/null; then
  echo "slurm-local.sh: a slurmctld or slurmd already runs here; this script starts its own one-node cluster, so stop them first" >&2
  exit 1
fi
host=$(hostname -s)
node=$(slurmd -C | head -1)  # this machine's CPUs and memory, as slurmd detects them
mkdir -p "$WORK/state" "$WORK/spool"
cat >"$WORK/slurm.conf" <<CONF
ClusterName=docsift-local
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/slurmctld.log
SlurmdLogFile=$WORK/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
$node State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$WORK/slurm.conf
cleanup() {  # stop the daemons, then remove their folder (a client without its slurm.conf hangs on DNS)
  for d in slurmd slurmctld; do [ -f "$WORK/$d.pid" ] && kill "$(cat "$WORK/$d.pid")" 2>/dev/null || true; done
  sleep 1
  if [ "${KEEP:-0}" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do sinfo -h -o %T 2>/dev/null | grep -qx idle && break; sleep 1; done
sinfo
echo "cluster up after $(since)"

echo "==> the batch: 12 sample images, the fixture model on the CPU"
mkdir -p "$WORK/scans"
find "$ROOT/samples" -maxdepth 1 -name '*.png' | sort | head -12 | xargs cp -t "$WORK/scans"
export IN=$WORK/scans OUT=$WORK/results DOCSIFT
export DOCSIFT_ARGS="--model $ROOT/tests/fixtures/internvl/hf --device cpu --set model.dtype=float32 --set model.max_tiles=2 --set generation.max_new_tokens=8"

echo "==> sbatch, as the README's recipe (one CPU per task here, no --gres: this node has no GPU)"
cd "$WORK"
submitted=$(date +%s.%N)
job=$(sbatch --parsable --array=1-"$SHARDS" --cpus-per-task=1 "$ROOT/scripts/cluster/docsift-array.sbatch")
merge=$(sbatch --parsable --dependency=afterany:"$job" --cpus-per-task=1 \
  --wrap '"$DOCSIFT" merge "$OUT"/shard-*-of-'"$SHARDS"' --out "$OUT" --expect "$IN"')
echo "array job $job (tasks 1-$SHARDS), merge job $merge"
for _ in $(seq 600); do
  [ -z "$(squeue -h -j "$job,$merge" 2>/dev/null)" ] && break
  sleep 1
done
elapsed=$(echo "$(date +%s.%N) - $submitted" | bc)
sacct_line() {  # state, exit code and run time of a job, from scontrol's one-line form
  local l
  l=$(scontrol -o show job "$1" 2>/dev/null || true)
  echo "$(grep -o 'JobState=[A-Z_]*' <<<"$l") $(grep -o ' ExitCode=[0-9:]*' <<<"$l") $(grep -o 'RunTime=[0-9:-]*' <<<"$l")"
}
for k in $(seq 1 "$SHARDS"); do echo "task ${job}_$k: $(sacct_line "${job}_$k")"; done
echo "merge $merge: $(sacct_line "$merge")"
printf 'array and merge finished %.1f s after sbatch\n' "$elapsed"
for f in docsift-"$job"_*.log slurm-"$merge".out; do [ -s "$f" ] && { echo "--- $f"; cat "$f"; }; done

echo "==> shard 2 lost and redone alone: SHARDS=$SHARDS sbatch --array=2, then the merge again"
rm -rf "$OUT/shard-2-of-$SHARDS"
redo=$(SHARDS=$SHARDS sbatch --parsable --array=2 --cpus-per-task=1 "$ROOT/scripts/cluster/docsift-array.sbatch")
for _ in $(seq 600); do [ -z "$(squeue -h -j "$redo" 2>/dev/null)" ] && break; sleep 1; done
echo "task ${redo}_2: $(sacct_line "${redo}_2")"
"$DOCSIFT" merge "$OUT"/shard-*-of-"$SHARDS" --out "$OUT" --expect "$IN"

echo "==> one run over the same images, compared"
"$DOCSIFT" run "$IN" --out "$WORK/single" --quiet $DOCSIFT_ARGS
for k in $(seq 1 "$SHARDS"); do
  printf 'shard %s: %s images\n' "$k" "$("$ROOT/scripts/summary_value.py" "$OUT/shard-$k-of-$SHARDS/summary.json" images.pages)"
done
if cmp "$OUT/predictions.csv" "$WORK/single/predictions.csv"; then
  echo "merged predictions.csv equals the single run's ($(($(wc -l <"$OUT/predictions.csv") - 1)) rows); total $(since)"
else
  echo "merged predictions.csv differs from the single run's" >&2
  KEEP=1
  exit 1
fi
