"""Put what a GPU window brought back where the report reads it:

  python3 gpu/take_back.py FOLDER [FOLDER ...]   (each holding a runs.tar of gpu/job.py)

runs timed with their device's default wait into results/ (report.build.merge: a machine folder of
their own), runs timed with another wait into results/waits/<device>/ (kept out of the tables and
pooling), each run without indentation (report.build.compact), studies and checks into
results/findings/<GPU model>/. Refuses, writing nothing, where a file is already there with other
content, or where a folder holds a dry run's files (DEVICE=cpu): its runs would join the CPU's,
and its cost ledger would size the plan by this CPU alone."""
import json
import shutil
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from conftest import default_wait  # noqa: E402
from report.build.compact import RUNS, compact, same_run  # noqa: E402
from report.build.merge import MergeError, merge, plan  # noqa: E402


def device(path, data):
    """The device a brought-back file was timed on: a study's or check's machine, a run's."""
    if path.parent.name == "findings":
        return data["machine"].get("device")
    return data["machine_info"]["graphbench"]["device"]


def destination(path, data, results):
    """Where one brought-back file belongs: a study's or check's GPU folder under findings/, a run
    timed with another wait than its device's under waits/, or None for report.build.merge."""
    if path.parent.name == "findings":
        return results / "findings" / data["machine"]["gpu"].replace(" ", "-")
    timed_on = device(path, data)
    waits = {b["extra_info"].get("wait") for b in data["benchmarks"]} - {None}
    return results / "waits" / timed_on if waits - {default_wait(timed_on)} else None


def take_back(folders, results=ROOT / "results"):
    """Every runs.tar in `folders` into `results`, all or nothing; a line per file placed."""
    results, placed, lines = Path(results), {}, []
    with tempfile.TemporaryDirectory() as tmp:
        stage = Path(tmp, "merge")  # the runs for report.build.merge, in their machine folders
        for n, folder in enumerate(folders):
            with tarfile.open(Path(folder, "runs.tar")) as tar:
                tar.extractall(Path(tmp, str(n)), filter="data")
            compact(Path(tmp, str(n)).glob(f"*/{RUNS}"))  # results/ travels with every GPU call
            for path in sorted(Path(tmp, str(n)).glob("*/*.json")):
                data = json.loads(path.read_text())
                if device(path, data) == "cpu":
                    raise MergeError(
                        f"{folder} holds a dry run's files (DEVICE=cpu; {path.name}), not a GPU "
                        "window's: its runs are not GPU runs, and a dry run's cost ledger goes "
                        "to results/findings/dry-run/ by hand (docs/METHOD.md)")
                where = destination(path, data, results)
                if where is None:
                    (stage / path.parent.name).mkdir(parents=True, exist_ok=True)
                    shutil.copy2(path, stage / path.parent.name / path.name)
                elif (where / path.name).is_file() and \
                        not same_run(where / path.name, path):
                    raise MergeError(f"{where / path.name} exists with other content")
                else:
                    placed[where / path.name] = path
        if stage.is_dir():
            plan(results, [stage])  # its conflicts before anything is written
        for target, path in placed.items():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
            lines.append(f"{path.name} -> {target.parent}")
        if stage.is_dir():
            copies, _ = merge(results, [stage])
            lines += [f"{path.name} -> {target.parent}" for target, path in copies.items()]
    return lines


def main(argv=None, results=ROOT / "results"):
    """0 with a line per file placed; 2 with one line when a folder or file is refused."""
    folders = sys.argv[1:] if argv is None else argv
    if not folders or (missing := [f for f in folders if not Path(f, "runs.tar").is_file()]):
        print(f"gpu/take_back.py: no runs.tar in {', '.join(missing) if folders else 'no folder'}"
              ": name the folders a GPU window's files came back in", file=sys.stderr)
        return 2
    try:
        print("\n".join(take_back(folders, results)))
    except MergeError as error:
        print(f"gpu/take_back.py: {error}; nothing written", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
