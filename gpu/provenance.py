"""Print the environment a copied tree's run needs to name its commit: GRAPHBENCH_COMMIT=...
GRAPHBENCH_CODE=... (gpu/run.sh); stops where the tree differs from its commit."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from conftest import changed_files, timing_code  # noqa: E402


def main():
    """0 with the line printed; else one line on why not and 1."""
    if changed := changed_files():
        print(f"gpu/provenance.py: commit first; the tree differs from HEAD in {', '.join(changed)}",
              file=sys.stderr)
        return 1
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True, cwd=ROOT).stdout.strip()
    print(f"GRAPHBENCH_COMMIT={commit} GRAPHBENCH_CODE={timing_code()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
