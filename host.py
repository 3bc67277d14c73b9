"""How fast the host ran while a job's suites did: a fixed pure-Python loop timed before and after
each framework env, and the CPU time the hypervisor took (/proc/stat's steal) in between. Two jobs
on a CPU whose name reads the same can run at different speeds (a VM's host is shared): these
readings, saved with each run as `graphbench_host`, say whether the host or the code moved.
Standard library only: run.py reads it before any env exists."""
import platform
import time

LOOP = 200_000  # fixed, never calibrated: the same work in every job (14 ms on a 2.45 GHz Zen 3)
REPEATS = 7  # the fastest of these: a reading that an interrupt or a neighbour hit is left out


def reference_ms():
    """The fastest of REPEATS runs of the fixed loop, in milliseconds."""
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        total = 0
        for i in range(LOOP):
            total += i * i % 7
        best = min(best, time.perf_counter() - start)
    return round(best * 1e3, 3)


def cpu_times(path="/proc/stat"):
    """(steal, total) jiffies of all CPUs since boot, or None where the system has no /proc/stat."""
    try:
        with open(path) as stat:
            fields = stat.readline().split()
        ticks = [int(x) for x in fields[1:9]]  # user nice system idle iowait irq softirq steal
    except (OSError, ValueError):
        return None
    return (ticks[7], sum(ticks)) if fields[:1] == ["cpu"] and len(ticks) == 8 else None


def reading():
    """What the host says now: the reference loop's time and the CPU counters."""
    return {"reference_ms": reference_ms(), "cpu_times": cpu_times()}


def between(before, after):
    """The `graphbench_host` field of the runs saved between two readings: the loop's time at
    each end, the share of CPU time stolen in between (None where unknown), and the Python that
    ran the loop (readings from two Pythons do not compare)."""
    stolen = None
    if before["cpu_times"] and after["cpu_times"]:
        steal, total = (b - a for a, b in zip(before["cpu_times"], after["cpu_times"]))
        stolen = round(steal / total, 5) if total > 0 else None
    return {"reference_ms": [before["reference_ms"], after["reference_ms"]], "stolen": stolen,
            "python": platform.python_version(), "loop": LOOP}
