"""How memory is paged and allocated under a step: the suite's own paired child for a model's
train or infer row (eager, its A/A copy and `graph`; Chainer's is seed 004's) run for many rounds
in fresh processes, a setting alternated between them (NumPy's huge-page advice,
NUMPY_MADVISE_HUGEPAGE=0; glibc's malloc settings; another allocator by LD_PRELOAD), with the
kernel's page-fault counters (/proc/vmstat) sampled every 2 s beside each (docs/METHOD.md,
"Seed 004: what moves the static arm" and "The allocator under an eager step").

Usage (in the backend's env, nothing else running):
    .tox/chainer/bin/python findings/paging_probe.py --out results/findings/X.json
        [--backend chainer|torch|tf|jax] [--model mnist_cnn|vgg|resnet|decoder]
        [--phase train|infer] [--processes 8] [--rounds 250]
        [--advice alternate|default|off] [--group NAME] [--append]
        [--env KEY=VALUE ...] [--env-b KEY=VALUE ...]
Prints one line per process as it ends; writes the JSON in the shape of chainer_004_pages-zen4.json
(--append: adds this group's processes to --out's, seeds numbered on, on the same CPU only, and
keeps its environment and first command: each process names its commit and command; --env
sets variables in every child, --env-b in every second child instead, e.g.
MALLOC_MMAP_THRESHOLD_=33554432 or LD_PRELOAD=...).
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
from suites import cpu  # noqa: E402

CHUNK = 25  # rounds per stretch: the per-stretch ratio shows when within a process it moves
VMSTAT = ("pgfault", "thp_fault_alloc", "thp_fault_fallback", "compact_stall")


def child_command(rounds, seed, backend="chainer", model="mnist_cnn", phase="train"):
    """The answer's paired child for seed 004's row (or `backend`'s `model` `phase` row at the
    default profile's size), built as the suite builds it, with `rounds` rounds instead of its 10."""
    from suites.paired import child_command as paired_child
    from suites.profiles import PROFILES
    config, batch = PROFILES["default"].models[model]
    plan = {"rounds": rounds, "warmup": 3, "block": 64, "block_s": 0.05, "equal_blocks": True}
    return paired_child(backend, model, config, batch, phase, ["eager", "eager_aa", "graph"],
                        plan, seed=seed, threads=2)


def vmstat():
    """The counters in VMSTAT from /proc/vmstat (machine-wide: run nothing beside it)."""
    with open("/proc/vmstat") as f:
        rows = dict(line.split() for line in f)
    return {k: int(rows.get(k, 0)) for k in VMSTAT}


def run_child(command, env, every_s=2.0):
    """(the child's JSON, vmstat deltas every `every_s` seconds while it ran)."""
    deltas, done = [], threading.Event()

    def sample():
        before = vmstat()
        while not done.wait(every_s):
            now = vmstat()
            deltas.append({k: now[k] - before[k] for k in VMSTAT})
            before = now
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        out = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True,
                             check=True)
    finally:
        done.set()
        sampler.join()
    return json.loads(out.stdout.strip().splitlines()[-1]), deltas


def summary(times):
    """Median per-round eager ÷ graph overall and per CHUNK rounds, medians in ms, and the A/A."""
    eager, graph, aa = times["eager"], times["graph"], times["eager_aa"]
    ratio = [e / g for e, g in zip(eager, graph)]
    chunks = range(0, len(ratio), CHUNK)
    return {"speedup": round(statistics.median(ratio), 3),
            "speedup_per_25_rounds": [round(statistics.median(ratio[i:i + CHUNK]), 3)
                                      for i in chunks],
            "eager_ms_per_25_rounds": [round(statistics.median(eager[i:i + CHUNK]) * 1e3, 1)
                                       for i in chunks],
            "graph_ms_per_25_rounds": [round(statistics.median(graph[i:i + CHUNK]) * 1e3, 1)
                                       for i in chunks],
            "aa": round(statistics.median([e / a for e, a in zip(eager, aa)]), 3)}


def cpu_line():
    """The CPU as the findings name it: model name, family and model, cores."""
    fields = dict(line.split(":", 1) for line in open("/proc/cpuinfo").read().splitlines()
                  if ":" in line)
    fields = {k.strip(): v.strip() for k, v in fields.items()}
    return (f"{cpu.model()}, family {fields.get('cpu family')} model {fields.get('model')}, "
            f"{os.cpu_count()} cores")


def huge_pages():
    """The kernel's transparent huge page policy and khugepaged's pace."""
    khugepaged = cpu.THP / "khugepaged"
    paged = cpu.pages()
    found = {"enabled": paged["transparent_hugepage"], "defrag": paged["defrag"]}
    for name in ("scan_sleep_millisecs", "pages_to_scan"):
        try:
            found[f"khugepaged_{name}"] = int((khugepaged / name).read_text())
        except OSError:
            found[f"khugepaged_{name}"] = None
    return found


def environment(load, backend, version):
    """What the figures depend on besides the code: versions, CPU, kernel and its paging."""
    import numpy
    return {backend: version, "numpy": numpy.__version__, "cpu": cpu_line(),
            "kernel": platform.release().split("-")[0], "transparent_hugepage": huge_pages(),
            "date": datetime.date.today().isoformat(), "commit": head(), "load": load}


def head():
    """This checkout's commit, short."""
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                          text=True).stdout.strip()


def advice_for(advice, index):
    """None (NumPy's default, advice on) or "0" (off) for the index-th process."""
    if advice == "alternate":
        return "0" if index % 2 else None
    return "0" if advice == "off" else None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="the JSON file to write")
    parser.add_argument("--processes", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=250)
    parser.add_argument("--advice", choices=("alternate", "default", "off"), default="alternate")
    parser.add_argument("--load", default="nothing else running",
                        help="what else ran on the machine, for the record")
    parser.add_argument("--group", help="this invocation's processes' label")
    parser.add_argument("--backend", default="chainer",
                        help="another backend's row, run in its own env (e.g. torch)")
    parser.add_argument("--model", default="mnist_cnn",
                        choices=("mnist_cnn", "vgg", "resnet", "decoder"),
                        help="the answer's row of this model, at the default profile's size")
    parser.add_argument("--phase", choices=("train", "infer"), default="train",
                        help="the row's step: a train step, or an infer step")
    parser.add_argument("--append", action="store_true", help="add to --out's processes")
    parser.add_argument("--env", nargs="*", default=[], help="KEY=VALUE set in each child")
    parser.add_argument("--env-b", nargs="*", default=[],
                        help="KEY=VALUE set in every second child instead of --env")
    args = parser.parse_args(argv)
    if args.processes < 1:
        parser.error("--processes must be 1 or more")
    earlier, found = [], None
    if args.append:
        with open(args.out) as f:
            found = json.load(f)
        if found["environment"]["cpu"] != cpu_line():
            parser.error(f"{args.out} was measured on {found['environment']['cpu']}, not here")
        earlier = found["processes"]
    processes, command = [], " ".join(
        child_command("R", "S", args.backend, args.model, args.phase)[1:])
    for index in range(len(earlier), len(earlier) + args.processes):
        env = {k: v for k, v in os.environ.items() if k != "NUMPY_MADVISE_HUGEPAGE"}
        if (setting := advice_for(args.advice, index)) is not None:
            env["NUMPY_MADVISE_HUGEPAGE"] = setting
        extra = dict(kv.split("=", 1) for kv in (args.env_b if args.env_b and index % 2
                                                 else args.env))
        env.update(extra)
        result, deltas = run_child(child_command(args.rounds, index, args.backend, args.model,
                                                   args.phase), env)
        times = {arm: [round(t, 6) for t in result["times"][arm]]  # to the microsecond
                 for arm in ("eager", "eager_aa", "graph")}
        row = {"group": args.group or f"{args.rounds} rounds, advice {args.advice}",
               "seed": index, "commit": head(), "backend": args.backend, "model": args.model,
               "phase": args.phase, "command": command, "env": extra,
               "NUMPY_MADVISE_HUGEPAGE": setting or "unset (NumPy's default: on)",
               "rounds_s": round(result["rounds_s"], 1), "block": result["settings"]["block"],
               **summary(times), "times_s": times,
               "vmstat_deltas_every_2s": deltas}
        processes.append(row)
        print(f"[{len(processes)}/{args.processes}] advice {row['NUMPY_MADVISE_HUGEPAGE'][:5]} "
              f"{extra or ''}: "
              f"{row['speedup']}x over {row['rounds_s']} s; per {CHUNK} rounds "
              f"{row['speedup_per_25_rounds']}", flush=True)
    with open(args.out, "w") as f:
        f.write(json_text({"environment": found["environment"] if found else environment(
                               args.load, args.backend, result["framework_version"]),
                           "command": found["command"] if found else command,
                           "processes": earlier + processes}))
    return 0


ROWS = "<processes>"  # json_text's placeholder, replaced by one line per process


def json_text(data):
    """The file's JSON: its environment indented, each process on a line of its own (a third of
    the bytes fewer than indented: the tree a GPU call carries holds 64 MiB at most)."""
    rows = ",\n".join(json.dumps(row, separators=(",", ":")) for row in data["processes"])
    text = json.dumps({**data, "processes": ROWS}, indent=1)
    return text.replace(json.dumps(ROWS), f"[\n{rows}\n ]") + "\n"


if __name__ == "__main__":
    sys.exit(main())
