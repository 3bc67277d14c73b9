"""torch's and TensorFlow's MNIST CNN mixed-precision rows with AMX and without it, each arm's
two runs (a folder <backend>-amx-on|off) through the report as the results page builds them:
`python3 results/studies/amx-bfloat16/analyse.py` with the report env's Python, from anywhere."""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]


def main():
    for arm in sorted((p.name for p in HERE.glob("*-amx-*")), reverse=True):  # torch, on first
        with tempfile.TemporaryDirectory() as tmp:
            summary = Path(tmp) / "summary.json"
            built = subprocess.run([sys.executable, "-m", "report", "--results", str(HERE / arm),
                                    "--summary", str(summary), "--report", str(Path(tmp) / "r.md")],
                                   cwd=ROOT, capture_output=True, text=True)
            if built.returncode:
                sys.exit(f"{arm}: the report exited with {built.returncode}: "
                         f"{built.stderr.strip() or built.stdout.strip()}")
            records = json.loads(summary.read_text())["records"]
        print(f"{arm}: float32 ÷ bfloat16 train step (paired 95% interval; runs)")
        for r in records:
            if r["kind"] == "precision_speedup":
                runs = r.get("pooled_runs") or [r["run"]]
                print(f"  {r['variant']:14} {r['estimate']:.3f} [{r['low']:.3f}, {r['high']:.3f}]"
                      f" {r['verdict']}  {', '.join(runs)}")


if __name__ == "__main__":
    main()
