"""The GPU studies' and checks' records (results/findings/<GPU model>/): what a wait after every
step costs, the graphs left out of CUDA graphs, and the parity checks at the TF32 tolerance."""
import json
from pathlib import Path

from machines import gpu_model
from report.build.ratios import meaning

def load_studies(results):
    """{GPU model: [each complete gpu/step_cost.py line, each gpu/cudagraph_capture.py line
    (`check`: "cudagraphs") and each parity check's outcome (`check`: "parity"), with its study's
    machine]} from results/findings/<GPU model>/."""
    found = {}
    for path in sorted(Path(results, "findings").glob("*/gpu_*.json")):
        study = json.loads(path.read_text())
        if not study.get("complete"):
            continue
        mine = found.setdefault(study["machine"]["gpu"], [])
        if path.stem.startswith("gpu_step-cost-"):
            mine += [{**r, "study": path.stem, "machine": study["machine"]}
                     for r in study["results"] if "step_over" in r]
        elif path.stem.startswith("gpu_cudagraphs-"):  # a CPU's dry-run lines: no CUDA graphs
            mine += [{**r, "check": "cudagraphs", "study": path.stem, "machine": study["machine"]}
                     for r in study["results"] if r.get("device") == "cuda"]
        elif path.stem.startswith("gpu_parity-") and "counts" in study:
            mine.append({"check": "parity", "backend": study["backend"], "study": path.stem,
                         "machine": study["machine"], "counts": study["counts"],
                         "failures": study["failures"],
                         "model": study.get("label") or "mnist_cnn"})  # the first ones: none
    return found


def _study_record(machine, line, kind, unit, estimate, **fields):
    """A record of one GPU study's or check's line (no run of the suite's: the study names it),
    with no verdict or target unless `fields` give one."""
    return {"machine": machine, "run": line["study"], "commit": line["machine"]["commit"],
            "code": line["machine"].get("code"), "dirty": False, "backend": line["backend"],
            "model": "mnist_cnn", "variant": None, "phase": "train", "precision": "float32",
            "case": None, "kind": kind, "unit": unit, "estimate": estimate, "low": None, "high": None, "interval": None,
            "significant": None, "processes": 1, "rounds": None, "aa_floor_low": None,
            "aa_floor_high": None, "known_wrong": None, "note": None, "best": None,
            "device": "cuda", "verdict": None, "verdict_note": None, "mark": "", "target": None,
            **fields}


def parity_records(machine, studies):
    """Per backend and model, how many of the parity tests (its logits and first loss against
    the float64 reference, every variant, at the TF32 tolerance) passed on `machine`'s GPU, with
    the failing ones."""
    out = []
    for line in studies.get(gpu_model(machine), ()):
        if line.get("check") == "parity":
            counts = line["counts"]
            out.append(_study_record(
                machine, line, "parity_check", "tests", counts.get("passed", 0),
                failed=counts.get("failed", 0) + counts.get("error", 0),
                failures=line["failures"], model=line["model"]))
    return out


def capture_records(machine, studies):
    """Per model and phase, the graphs inductor left out of CUDA graphs under `reduce-overhead`
    on `machine`'s GPU (gpu/cudagraph_capture.py), with its reasons; a model that failed, one
    record with its error and no estimate."""
    return [_study_record(machine, line, "cudagraph_capture", "graphs",
                          line.get("cudagraph_skips"), model=line["model"],
                          phase=line.get("phase", "train"), variant="graph_cudagraphs",
                          frames=line.get("frames"), reasons=line.get("reasons", []),
                          error=line.get("error"))
            for line in studies.get(gpu_model(machine), ()) if line.get("check") == "cudagraphs"]


def wait_records(machine, studies):
    """The records of what a wait after every step costs on `machine`'s GPU (its studies): each
    backend and variant's step ÷ block time, paired over interleaved rounds of one process."""
    out = []
    for line in studies.get(gpu_model(machine), ()):
        if "step_over" not in line:
            continue
        ratio = line["step_over"]["block"]
        rec = _study_record(machine, line, "wait_cost", "x", ratio["ratio"],
                            variant=line["variant"], low=ratio["low"], high=ratio["high"],
                            interval="95% bootstrap over interleaved rounds of one process",
                            significant=ratio["significant"], rounds=line["rounds"],
                            step_ms=line["ms"]["step"], block_ms=line["ms"]["block"])
        out.append({**rec, **meaning(rec, "slower", "faster")})
    return out
