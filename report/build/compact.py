"""Saved runs kept without indentation: pytest-benchmark writes a run indented by four spaces, about
half of its bytes, and the tree a GPU call carries, results/ with it, may hold 64 MiB at most. The
same JSON (numbers, keys and their order) in half the space.

  python -m report.build.compact [RESULTS]   rewrites every saved run under RESULTS (results/)

run.py and gpu/take_back.py do it for each run they add."""
import json
import os
import sys
import tempfile
from pathlib import Path

RUNS = "[0-9][0-9][0-9][0-9]_*.json"  # a saved run's name, as conftest.next_number numbers it


def compact_text(data, extra=None):
    """A run's JSON text without indentation, ASCII as pytest-benchmark writes it, with the
    top-level fields `extra` added."""
    return json.dumps({**json.loads(data), **(extra or {})}, ensure_ascii=True,
                      separators=(",", ":"))


def same_run(a, b):
    """Whether two files hold the same bytes, or runs the same JSON however indented."""
    try:
        first, second = Path(a).read_bytes(), Path(b).read_bytes()
        return first == second or json.loads(first) == json.loads(second)
    except (OSError, ValueError):
        return False


def compact(paths, extra=None):
    """Rewrite each run of `paths` without indentation, with the top-level fields `extra` added
    (run.py's graphbench_host), through a temporary file and a rename; the bytes saved. A file
    that is not JSON, or that cannot be rewritten, stays as it is."""
    saved = 0
    for path in map(Path, paths):
        try:
            raw = path.read_bytes()
            text = compact_text(raw, extra).encode()
        except (OSError, ValueError):
            continue
        if len(text) >= len(raw) and not extra:
            continue
        staged = None
        try:
            fd, staged = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            with os.fdopen(fd, "wb") as out:
                out.write(text)
            os.replace(staged, path)
        except OSError:  # a full disk, say: the indented run stays, whole
            if staged and os.path.exists(staged):
                os.unlink(staged)
            continue
        saved += len(raw) - len(text)
    return saved


def main(argv):
    """Compact every saved run under the folder `argv` names (results/); 0."""
    folder = Path(argv[0]) if argv else Path("results")
    runs = sorted(folder.rglob(RUNS))
    saved = compact(runs)
    print(f"{len(runs)} runs under {folder}: {saved / 2 ** 20:.1f} MiB saved")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
