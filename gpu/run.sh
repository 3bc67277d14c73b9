#!/bin/bash
# One GPU window's command, from the repository root on the GPU machine (docs/METHOD.md, On a GPU):
#   GRAPHBENCH_COMMIT=... GRAPHBENCH_CODE=... OUT=folder bash gpu/run.sh SECONDS
# (both from `python3 gpu/provenance.py` here: the tree there may come with an older .git) runs
# the GPU job, gpu/job.py, for SECONDS: the plan's steps this GPU lacks, each packed into
# $OUT/runs.tar as it ends; its log beside them.
set -o pipefail
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
python3 gpu/job.py --seconds "${1:?how many seconds the job may take}" 2>&1 | tee "$OUT/log"
