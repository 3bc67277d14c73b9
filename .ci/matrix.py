"""The bench workflow's matrix from catalog.py and suites/profiles.py: every framework and job on
a CPU and a GPU runner, less the frameworks whose CI env cannot use the GPU (catalog's why)."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from catalog import BACKENDS  # noqa: E402
from suites.profiles import JOBS  # noqa: E402

RUNNERS = ({"runner": "cpu", "labels": ["ubuntu-latest"], "device": "cpu"},
           {"runner": "gpu", "labels": ["self-hosted", "linux", "x64", "gpu"], "device": "cuda"})


def matrix():
    """The `strategy.matrix` of .github/workflows/bench.yml's bench job."""
    return {"backend": list(BACKENDS), "job": list(JOBS),
            "runner": [r["runner"] for r in RUNNERS],
            "exclude": [{"backend": name, "runner": "gpu"}
                        for name, framework in BACKENDS.items() if framework.ci_cpu_only],
            "include": list(RUNNERS)}


if __name__ == "__main__":
    print(f"matrix={json.dumps(matrix())}")
