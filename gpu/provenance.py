"""Print the environment a copied tree's run needs to name its commit: GRAPHBENCH_COMMIT=...
GRAPHBENCH_CODE=... (gpu/run.sh); stops where the tree differs from its commit."""
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from conftest import changed_files, timing_code  # noqa: E402

if changed := changed_files():
    sys.exit(f"gpu/provenance.py: commit first; the tree differs from HEAD in {', '.join(changed)}")
commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                        check=True).stdout.strip()
print(f"GRAPHBENCH_COMMIT={commit} GRAPHBENCH_CODE={timing_code()}")
