"""The machine's dense float32 matmul throughput per framework: the peak step FLOPs are read against."""
SIZES = {"quick": 256, "default": 1024, "paper": 4096}


def test_matmul_peak(benchmark, env, backend):
    """Time one n x n float32 matmul; extra_info holds its FLOPs for GFLOP/s in the report."""
    module, device = backend
    n = SIZES[env["profile"].name]
    step = module.matmul_step(n, device)
    benchmark.pedantic(step, rounds=env["profile"].steady_rounds, warmup_rounds=2)
    benchmark.extra_info.update(
        backend=module.NAME, framework_version=module.version(), model=f"matmul{n}",
        variant="eager", phase="peak", device=env["device"], threads=env["threads"], batch=1,
        input_shape=[n, n], params=0, flops=2 * n ** 3, traces=0, loss=None, loss_finite=None)
