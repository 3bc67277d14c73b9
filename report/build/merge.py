"""`python -m report.build.merge DEST SRC [SRC ...]`: several machines' results folders in one.

Every file under each SRC goes to the same path under DEST (SRC's own summary.json excepted: the
report redraws it). pytest-benchmark names a machine folder after the platform only
(`Linux-CPython-3.11-64bit`), so two machines' folders often share a name. A saved run belongs to
the machine its machine_info describes (report.build.load.machine_name: host, CPU, ISA, cores);
another file in a folder (a user report saved before results/user/<machine>/, whose folder
names its machine and merges as it is) to the machine of that folder's runs, if they are one.
A file goes to DEST/<folder> unless that folder already holds (or this merge puts there) runs of
another machine; then to DEST/<folder>-<key>, the key being the first 8 hex digits of the SHA-1 of
its machine's name: the same machine always lands in the same folder, never beside another's runs.
Two files bound for one path are skipped when identical (a run: the same JSON, however indented:
report.build.compact) and a conflict when not: the merge then refuses with one line naming both
and exit 2. A missing SRC or a DEST that is a file is refused too. Everything is checked before
the first copy, so an error writes nothing.
"""
import argparse
import hashlib
import json
import shutil
import sys
from pathlib import Path

from report.build.compact import same_run
from report.build.load import SUMMARY, machine_name


class MergeError(Exception):
    """Why the merge refuses, in one line."""


def run_machine(path):
    """The machine that saved run `path`, or None when it is not a saved run."""
    if path.suffix != ".json":
        return None
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    info = data.get("machine_info") if isinstance(data, dict) else None
    return machine_name(info) if isinstance(info, dict) else None


def key(machine):
    """A short, stable folder suffix for a machine."""
    return hashlib.sha1(machine.encode()).hexdigest()[:8]


def files_of(source):
    """{path relative to `source`: machine or None} of every file to merge from `source`."""
    found = {}
    for folder in sorted(p for p in source.iterdir() if p.is_dir()):
        files = sorted(p for p in folder.rglob("*") if p.is_file())
        machines = {p: run_machine(p) for p in files}
        owners = set(machines.values()) - {None}
        only = next(iter(owners)) if len(owners) == 1 else None
        found |= {p.relative_to(source): machines[p] or only for p in files}
    found |= {p.relative_to(source): None for p in sorted(source.iterdir())
              if p.is_file() and p.name != SUMMARY}
    return found


def plan(dest, sources):
    """({target under dest: source file}, {(source folder, machine): renamed folder}); raises
    MergeError on a conflict."""
    owners = {p.name: {m for f in p.rglob("*.json") if (m := run_machine(f))}
              for p in dest.iterdir() if p.is_dir()} if dest.is_dir() else {}
    copies, renamed = {}, {}
    for source in sources:
        for relative, machine in files_of(source).items():
            folder = relative.parts[0]
            if machine and len(relative.parts) > 1:
                if owners.get(folder, set()) - {machine}:
                    renamed[source / folder, machine] = f"{folder}-{key(machine)}"
                    folder = renamed[source / folder, machine]
                owners.setdefault(folder, set()).add(machine)
            target = dest.joinpath(folder, *relative.parts[1:])
            _claim(copies, target, source / relative)
    return copies, renamed


def _claim(copies, target, path):
    """Add path → target unless an identical file is there; MergeError if a different one is."""
    earlier = copies.get(target) or (target if target.is_file() else None)
    if earlier is None:
        copies[target] = path
    elif not same_run(earlier, path):
        raise MergeError(f"conflict: {earlier} and {path} differ and both belong at {target}; "
                         "nothing written")


def merge(dest, sources):
    """Copy `sources` into `dest` by the rule above; returns (copied, renamed folders)."""
    dest, sources = Path(dest), [Path(s) for s in sources]
    if dest.exists() and not dest.is_dir():
        raise MergeError(f"DEST {dest} is a file, not a results folder; nothing written")
    for source in sources:
        if not source.is_dir():
            raise MergeError(f"SRC {source}: no such folder; nothing written")
    copies, renamed = plan(dest, sources)
    for target, path in copies.items():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    return copies, renamed


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m report.build.merge",
                                     description=__doc__.splitlines()[0].split(": ", 1)[1])
    parser.add_argument("dest", metavar="DEST", help="the results folder to merge into")
    parser.add_argument("sources", metavar="SRC", nargs="+", help="a results folder of runs")
    args = parser.parse_args(argv)
    try:
        copies, renamed = merge(args.dest, args.sources)
    except MergeError as error:
        print(f"report.build.merge: {error}", file=sys.stderr)
        return 2
    for (folder, machine), name in sorted(renamed.items()):
        print(f"report.build.merge: {folder} → {args.dest}/{name} ({machine}: another machine's runs "
              "share the folder's name)")
    print(f"report.build.merge: {len(copies)} files copied into {args.dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
