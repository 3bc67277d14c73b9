"""Each lengths configuration's total in 8 fresh processes against its one run in a seeds job:
python3 results/studies/lengths-noise/analyse.py [RUN FILES...] (default: JOB, the Zen 5's)."""
import glob
import json
import math
import statistics
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).parent
JOB = ("0118", "0119", "0120", "0121")  # the seeds job the study was measured against


def totals(files):
    """{case id: [total s, ...]} of the lengths results in `files`."""
    found = defaultdict(list)
    for f in files:
        for b in json.loads(Path(f).read_text())["benchmarks"]:
            if b["name"].startswith("test_lengths"):
                found[b["name"].split("[")[1][:-1]].append(sum(b["extra_info"]["step_times"]))
    return found


def main(job_files):
    fresh = totals(sorted(HERE.glob("*/*.json")))
    job = {k: v[0] for k, v in totals(job_files).items()}
    worst = 1.0
    for case, runs in sorted(fresh.items()):
        median = statistics.median(runs)
        off = job[case] / median if case in job else math.nan
        worst = max(worst, max(runs) / min(runs))
        print(f"{case:34} fresh n={len(runs)} median {median:.3f} s, max/min "
              f"{max(runs) / min(runs):.2f}; job {job.get(case, math.nan):.3f} s = {off:.2f}× the "
              "median")
    print(f"fresh processes: max/min up to {worst:.2f}")


if __name__ == "__main__":
    root = HERE.parents[2]
    main(sys.argv[1:] or sorted(f for f in glob.glob(str(root / "results/*/*_default-seeds.json"))
                                if Path(f).name[:4] in JOB))
