"""findings/paging_probe.py: its per-stretch summary, alternation, refused append and rows; and the
suite's envs keep a shell's allocator settings from the timed children."""
import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "findings" / "paging_probe.py"
spec = importlib.util.spec_from_file_location("paging_probe", SCRIPT)
pages = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pages)


def test_the_summary_shows_a_jump_within_the_process_where_it_happens():
    """Eager 20% slower from round 150 on: the whole-process median misses it, the stretches do."""
    graph = [0.030] * 250
    eager = [0.030] * 150 + [0.036] * 100
    found = pages.summary({"eager": eager, "eager_aa": eager, "graph": graph})
    assert found["speedup_per_25_rounds"] == [1.0] * 6 + [1.2] * 4
    assert found["eager_ms_per_25_rounds"][-1] == 36.0 and found["graph_ms_per_25_rounds"][-1] == 30.0
    assert found["speedup"] == 1.0 and found["aa"] == 1.0


def test_the_advice_alternates_from_numpys_default():
    assert [pages.advice_for("alternate", i) for i in range(4)] == [None, "0", None, "0"]
    assert pages.advice_for("off", 0) == "0" and pages.advice_for("default", 1) is None


def test_an_append_to_another_cpus_file_is_refused_and_leaves_it(tmp_path, capsys):
    out = tmp_path / "pages.json"
    out.write_text(json.dumps({"environment": {"cpu": "Some other CPU, family 0 model 0"},
                               "processes": []}))
    before = out.read_text()
    with pytest.raises(SystemExit) as stop:
        pages.main(["--out", str(out), "--append", "--processes", "1"])
    assert stop.value.code == 2
    assert "was measured on Some other CPU, family 0 model 0, not here" in capsys.readouterr().err
    assert out.read_text() == before


def test_a_model_row_is_the_answers_size_and_arms():
    """--model resnet: the default profile's config and batch, the answer's three arms."""
    command = pages.child_command(250, 3, "torch", "resnet")
    at = {flag: command[command.index(flag) + 1] for flag in ("--model", "--config", "--batch",
                                                               "--arms", "--seed", "--rounds")}
    assert json.loads(at.pop("--config")) == {"depth": 50, "width": 0.25, "side": 64}
    assert at == {"--model": "resnet", "--batch": "8", "--arms": "eager,eager_aa,graph",
                  "--seed": "3", "--rounds": "250"}
    assert command[command.index("--phase") + 1] == "train"


def test_an_infer_row_times_the_infer_step():
    command = pages.child_command(250, 0, "torch", "mnist_cnn", "infer")
    assert command[command.index("--phase") + 1] == "infer"
    assert command[command.index("--batch") + 1] == "32"


def test_each_appended_process_names_the_command_it_ran(tmp_path, monkeypatch):
    """A train group, then an infer group appended: the file keeps the first command, each row its
    own (with its phase), each on a line of its own."""
    def fake_child(command, env):
        times = {arm: [0.01] * 50 for arm in ("eager", "eager_aa", "graph")}
        return {"times": times, "rounds_s": 1.0, "settings": {"block": 4},
                "framework_version": "0"}, []
    monkeypatch.setattr(pages, "run_child", fake_child)
    out = str(tmp_path / "pages.json")
    pages.main(["--out", out, "--processes", "1", "--backend", "torch", "--advice", "default"])
    pages.main(["--out", out, "--processes", "1", "--backend", "torch", "--advice", "default",
                "--phase", "infer", "--append"])
    text = Path(out).read_text()
    found = json.loads(text)
    assert [line.startswith('{"group"') for line in text.splitlines()].count(True) == 2
    phases = [row["command"].split("--phase ")[1].split()[0] for row in found["processes"]]
    assert phases == ["train", "infer"]
    assert "--phase train" in found["command"]


def test_the_suites_envs_pass_no_allocator_setting_to_the_children():
    """tox builds each env's environment from pass_env: a shell's LD_PRELOAD or glibc's MALLOC_*
    variables must not reach the timed children, whose rows are glibc's defaults (METHOD)."""
    from fnmatch import fnmatchcase
    from tests.test_framework_contract import tox_config
    tox = tox_config(SCRIPT.parent.parent)
    for section in tox.sections():
        given = ",".join(tox.get(section, key, fallback="") for key in ("pass_env", "passenv"))
        patterns = [p.strip() for p in given.replace("\n", ",").split(",") if p.strip()]
        for name in ("LD_PRELOAD", "MALLOC_CONF", "MALLOC_MMAP_THRESHOLD_",
                     "TCMALLOC_RELEASE_RATE"):
            assert not any(fnmatchcase(name, p) for p in patterns), (section, name, patterns)
