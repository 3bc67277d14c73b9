#!/bin/bash
# One lease of a GPU machine (the image in docs/METHOD.md, On a GPU): Python 3.12 with torch, jax and
# cupy for CUDA 13, no TensorFlow, no Chainer, no network. Run from the repository root there:
#   GRAPHBENCH_COMMIT=<commit> GRAPHBENCH_CODE=<its timing-code hash> OUT=<folder> bash gpu/run.sh
# (both from `python3 gpu/provenance.py` here: the tree there may come with an older .git)
# with .whl/chainer-7.8.1-py3-none-any.whl built here (pip wheel --no-deps chainer==7.8.1 in the
# chainer tox env). Parity first, then seed 004's group and each backend's MNIST CNN train step,
# each group in its own time share; the new runs are copied to $OUT, numbered on from the GPU runs
# in results/ (here: put them in X/Linux-CPython-3.12-64bit/, then python -m report.merge results X).
set -u
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
PY=${PY:-python3} DEVICE=${DEVICE:-cuda}  # others: a dry run on a CPU
export PYTHONUNBUFFERED=1 PYTHONHASHSEED=0 XLA_PYTHON_CLIENT_PREALLOCATE=false
export TORCHINDUCTOR_CACHE_DIR=/tmp/inductor-cache  # parity and the steady children share it (as tox)
log() { echo "== $(date +%T) $*"; }
log "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
"$PY" -V
"$PY" -c "import torch, jax, cupy, numpy; print('torch', torch.__version__, 'jax', jax.__version__,
'cupy', cupy.__version__, 'numpy', numpy.__version__, jax.devices())"
"$PY" -m pip install -q --no-index --no-deps --no-compile --target /tmp/chainer .whl/chainer-*.whl
# Chainer 7.8.1 imports two names NumPy 2 and Python 3.12 dropped: gpu/chainer_py312 puts them back
export PYTHONPATH=/tmp/chainer:$PWD/gpu/chainer_py312
suite() {  # seconds, pytest arguments...
    local limit=$1; shift
    log "pytest $*"
    timeout -s TERM -k 30 "$limit" "$PY" -m pytest -q -p no:cacheprovider --device "$DEVICE" \
        --profile default --benchmark-storage="$STORE" "$@" 2>&1 \
        | grep -v -E "^(SKIPPED|  warnings.warn)"
}
STORE=/tmp/gpu-results  # pytest-benchmark numbers a folder's runs: go on from the GPU runs saved
mkdir -p "$STORE/Linux-CPython-3.12-64bit"
cp results/*/[0-9]*_gpu-*.json "$STORE/Linux-CPython-3.12-64bit/" 2>/dev/null
BEFORE=$(ls "$STORE/Linux-CPython-3.12-64bit")
save() {
    log "saved"
    for f in "$STORE"/*/*.json; do
        grep -qxF "$(basename "$f")" <<<"$BEFORE" || cp -v "$f" "$OUT"
    done
}
[ -n "${GPU_LIB:-}" ] && return  # sourced for its functions: the caller picks the steps
# logits and first losses (the trajectories' extra steps did not fit the first lease's 100 s)
suite 150 tests/test_parity.py --backend chainer,torch,jax --model mnist_cnn -k "not trajectory" \
    -rf --tb=line
# torch's CUDA-graph arms (VARIANTS=eager,graph,graph_cudagraphs,cuda_graph) did not finish a first
# process within 130 s in the first lease (docs/METHOD.md, On a GPU)
for spec in ${SPECS:-chainer:100:150 torch:50:150 jax:60:100}; do  # backend:share:limit (s)
    IFS=: read -r backend budget limit <<<"$spec"
    suite "$limit" suites/test_steady.py --job answer --group-budget-s "$budget" \
        --backend "$backend" --model mnist_cnn --variant "${VARIANTS:-eager,graph}" \
        -k "train and not float16" \
        --benchmark-save "gpu-$backend"
done
save
