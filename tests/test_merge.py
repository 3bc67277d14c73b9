"""report.build.merge: two machines' results folders into one, each run once, machines never mixed."""
import json
import subprocess
import sys
from pathlib import Path

from report import __main__ as cli
from report.build.load import load_dir, machine_name
from report.build.merge import key, main
from tests.test_report_runs import QUICK, save

ROOT = Path(__file__).resolve().parent.parent
PLATFORM = "Linux-CPython-3.11-64bit"  # pytest-benchmark's folder name on any such machine
XEON = "Intel(R) Xeon(R) Platinum 8370C"


def machine(node, cpu):
    """The quick fixture as if saved on host `node` with CPU `cpu`."""
    data = json.loads(QUICK.read_text())
    data["machine_info"]["node"] = node
    data["machine_info"]["cpu"]["brand_raw"] = cpu
    return data


def results(folder, data, *runs):
    """A results folder as `run.py bench` leaves it: PLATFORM/<run>.json for each run."""
    for n, run in enumerate(runs):
        save(folder / PLATFORM, data, run, f"2026-01-0{n + 1}T00:00:00", 1.0 + n)
    return folder


def tree(folder):
    """{relative path: bytes} of every file under `folder`."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()} if folder.exists() else {}


def two_cpus(tmp_path):
    """Two runners with one host name and one folder name, but different CPUs."""
    a = results(tmp_path / "a", machine("runner", "AMD EPYC 7763"), "0001_quick", "0002_quick")
    b = results(tmp_path / "b", machine("runner", XEON), "0001_quick")
    return a, b


def test_every_run_once_and_two_cpus_kept_apart(tmp_path):
    a, b = two_cpus(tmp_path)
    dest = tmp_path / "merged"
    assert main([str(dest), str(a), str(b)]) == 0
    other = f"{PLATFORM}-{key(machine_name(machine('runner', XEON)['machine_info']))}"
    assert set(tree(dest)) == {f"{PLATFORM}/0001_quick.json", f"{PLATFORM}/0002_quick.json",
                               f"{other}/0001_quick.json"}
    assert tree(dest)[f"{PLATFORM}/0001_quick.json"] == tree(a)[f"{PLATFORM}/0001_quick.json"]
    assert tree(dest)[f"{other}/0001_quick.json"] == tree(b)[f"{PLATFORM}/0001_quick.json"]
    for folder in (dest / PLATFORM, dest / other):  # one machine per folder
        assert len({r.machine for r in load_dir(folder)}) == 1


def test_the_report_then_shows_two_machines(tmp_path, capsys):
    dest = tmp_path / "merged"
    assert main([str(dest), *map(str, two_cpus(tmp_path))]) == 0
    found = load_dir(dest)
    assert len({r.machine for r in found}) == 2
    assert len({(r.machine, r.run) for r in found}) == 3
    assert cli.main(["--results", str(dest)]) == 0
    assert capsys.readouterr().out.count("### Machine `runner (") == 2


def test_one_machine_two_backends_share_its_folder(tmp_path):
    """Two jobs on one GPU host save runs named per backend: one folder, nothing renamed."""
    gpu = machine("gpu-box", "AMD EPYC 7763")
    a = results(tmp_path / "a", gpu, "0001_quick-torch")
    b = results(tmp_path / "b", gpu, "0001_quick-chainer")
    dest = tmp_path / "merged"
    assert main([str(dest), str(a), str(b)]) == 0
    assert sorted(tree(dest)) == [f"{PLATFORM}/0001_quick-chainer.json",
                                  f"{PLATFORM}/0001_quick-torch.json"]


def test_a_report_file_goes_with_its_machines_runs_and_summary_is_left(tmp_path):
    a, b = two_cpus(tmp_path)
    (b / PLATFORM / "user-net.md").write_text("b's user report\n")
    (b / "summary.json").write_text("{}")
    dest = tmp_path / "merged"
    assert main([str(dest), str(a), str(b)]) == 0
    renamed = {p.parent.name for p in dest.rglob("user-net.md")}
    assert renamed == {p.parent.name for p in dest.rglob("0001_quick.json")} - {PLATFORM}
    assert not (dest / "summary.json").exists()


def test_user_reports_of_two_cpus_keep_their_machine_folders(tmp_path):
    """results/user/<machine>/ (user/save.py) names the machine: two runners' reports of one
    file merge side by side, as they were, none renamed or refused."""
    from user.save import folder_name
    a, b = two_cpus(tmp_path)
    for source, cpu in ((a, "AMD EPYC 7763"), (b, XEON)):
        folder = source / "user" / folder_name(machine_name(machine("runner", cpu)["machine_info"]))
        folder.mkdir(parents=True)
        (folder / "user-net.md").write_text(f"{cpu}'s user report\n")
    dest = tmp_path / "merged"
    assert main([str(dest), str(a), str(b)]) == 0
    found = {p.relative_to(dest).as_posix(): p.read_text() for p in dest.rglob("user-net.md")}
    assert found == {p.relative_to(s).as_posix(): p.read_text()
                     for s in (a, b) for p in s.rglob("user-net.md")} and len(found) == 2


def test_identical_files_are_copied_once_and_merging_again_changes_nothing(tmp_path, capsys):
    a, b = two_cpus(tmp_path)
    dest = tmp_path / "merged"
    assert main([str(dest), str(a), str(a), str(b)]) == 0
    before = tree(dest)
    assert main([str(dest), str(a), str(b)]) == 0
    assert tree(dest) == before and capsys.readouterr().out.endswith(" 0 files copied into "
                                                                     f"{dest}\n")


def test_a_conflict_refuses_naming_both_and_writes_nothing(tmp_path, capsys):
    one = machine("gpu-box", "AMD EPYC 7763")
    a = results(tmp_path / "a", one, "0001_quick")
    b = results(tmp_path / "b", one, "0002_quick", "0001_quick")  # its 0001 is another run
    dest = tmp_path / "merged"
    assert main([str(dest), str(a), str(b)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "conflict" in err
    assert all(str(f / PLATFORM / "0001_quick.json") in err for f in (a, b))
    assert not dest.exists()
    results(dest, one, "0009_quick")  # an existing DEST is left as it was
    before = tree(dest)
    assert main([str(dest), str(a), str(b)]) == 2 and tree(dest) == before


def test_a_run_compacted_and_the_same_run_indented_are_one_run_and_another_still_conflicts(
        tmp_path, capsys):
    """results/ keeps its runs without indentation (report.build.compact) while a copy elsewhere
    has pytest-benchmark's four spaces: the same JSON is one run, not a conflict."""
    from report.build.compact import compact
    one = machine("gpu-box", "AMD EPYC 7763")
    a = results(tmp_path / "a", one, "0001_quick")
    indented = tmp_path / "b" / PLATFORM / "0001_quick.json"
    indented.parent.mkdir(parents=True)
    indented.write_text(json.dumps(json.loads((a / PLATFORM / "0001_quick.json").read_text()),
                                   indent=4))
    raw = indented.read_bytes()
    assert compact([a / PLATFORM / "0001_quick.json"]) > 0  # as results/ keeps it
    dest = tmp_path / "merged"
    assert main([str(dest), str(a), str(tmp_path / "b")]) == 0
    assert tree(dest)[f"{PLATFORM}/0001_quick.json"] == tree(a)[f"{PLATFORM}/0001_quick.json"]
    assert compact([indented]) > len(raw) / 2 and json.loads(indented.read_bytes()) == json.loads(
        raw) and indented.read_bytes() != raw
    other = json.loads(raw)
    other["datetime"] = "2026-02-01T00:00:00"
    indented.write_text(json.dumps(other, indent=4))
    assert main([str(tmp_path / "m2"), str(a), str(tmp_path / "b")]) == 2
    assert "conflict" in capsys.readouterr().err


def test_a_missing_source_or_a_file_as_dest_is_refused(tmp_path, capsys):
    a, _ = two_cpus(tmp_path)
    dest = tmp_path / "merged"
    assert main([str(dest), str(a), str(tmp_path / "nowhere")]) == 2
    assert not dest.exists()
    dest.write_text("a file")
    assert main([str(dest), str(a)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "no such folder" in err[0] and "is a file" in err[1]


def test_the_command_line(tmp_path):
    a, b = two_cpus(tmp_path)
    done = subprocess.run([sys.executable, "-m", "report.build.merge", str(tmp_path / "m"), str(a),
                           str(b)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "another machine's runs share the folder's name" in done.stdout
    assert done.stdout.rstrip().endswith(f"3 files copied into {tmp_path / 'm'}")
