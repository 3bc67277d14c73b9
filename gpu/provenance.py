"""Print the environment a copied tree's run needs to name its commit: GRAPHBENCH_COMMIT=...
GRAPHBENCH_CODE=... (gpu/run.sh); stops where the tree differs from its commit. Builds Chainer's
wheel into .whl/ where none is: the GPU machine has no Chainer and installs it from there
(gpu/job.py), so a window's call carries .whl. Stops, too, where what a call carries is over the
64 MiB it may carry."""
import re
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from conftest import changed_files, timing_code  # noqa: E402

WHEELS = ROOT / ".whl"
CARRY_LIMIT = 64 * 2 ** 20  # a call's working tree: tracked files, untracked unignored ones, .whl


def listed_bytes(untracked=True):
    """The bytes of the files git lists: the tracked ones, and where `untracked` the untracked ones
    it does not ignore (a link counts as none: a call carries it as a link)."""
    others = ["--others", "--exclude-standard"] if untracked else []
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", *others], capture_output=True,
                            text=True, check=True, cwd=ROOT).stdout.split("\0")
    return file_bytes(ROOT / name for name in listed if name)


def carried_bytes():
    """The bytes a GPU call carries: the files git lists, with .whl/ (ignored, but named in the
    call's carry)."""
    return listed_bytes() + file_bytes(WHEELS.rglob("*"))


def file_bytes(paths):
    """The bytes of the plain files among `paths` (a link or a folder counts as none)."""
    return sum(path.stat().st_size for path in paths if path.is_file() and not path.is_symlink())


def chainer_pin():
    """The Chainer requirement tox.ini's chainer env installs ('chainer==7.8.1')."""
    return re.search(r"chainer==[\w.]+", (ROOT / "tox.ini").read_text()).group()


def chainer_wheel():
    """.whl/'s Chainer wheel, built where there is none as the chainer env builds Chainer: its
    source archive needs a setuptools with pkg_resources (before 70), without build isolation."""
    if found := sorted(WHEELS.glob("chainer-*.whl")):
        return found[0]
    print(f"gpu/provenance.py: building {chainer_pin()}'s wheel into .whl/ (the GPU machine "
          "installs Chainer from it)", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        venv.create(tmp, with_pip=True)
        python = str(Path(tmp, "bin", "python"))
        quiet = {"check": True, "stdout": subprocess.DEVNULL}
        subprocess.run([python, "-m", "pip", "install", "-q", "setuptools<70", "wheel"], **quiet)
        subprocess.run([python, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                        "-w", str(WHEELS), chainer_pin()], **quiet)
    return sorted(WHEELS.glob("chainer-*.whl"))[0]


def main():
    """0 with the line printed; else one line on why not and 1."""
    if changed := changed_files():
        print(f"gpu/provenance.py: commit first; the tree differs from HEAD in {', '.join(changed)}",
              file=sys.stderr)
        return 1
    try:
        chainer_wheel()
    except (subprocess.CalledProcessError, IndexError) as error:
        print(f"gpu/provenance.py: no Chainer wheel in .whl/ and building one failed ({error}): "
              "the GPU job would stop at its start", file=sys.stderr)
        return 1
    if (carried := carried_bytes()) > CARRY_LIMIT:
        print(f"gpu/provenance.py: a call would carry {carried / 2 ** 20:.1f} MiB with .whl/, "
              f"over the {CARRY_LIMIT // 2 ** 20} MiB it may: untracked files travel too (`git "
              "status`), and `python -m report.build.compact` rewrites an indented run in half "
              "the bytes", file=sys.stderr)
        return 1
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True, cwd=ROOT).stdout.strip()
    print(f"GRAPHBENCH_COMMIT={commit} GRAPHBENCH_CODE={timing_code()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
