"""Scale-out: two machines' runs copied into one results/ folder; each keeps its own tables."""
import json
from pathlib import Path

import pytest

from report import __main__ as cli
from report.views.answer import answer_text
from report.build.load import load_dir
from report.publish.write import SUMMARY_END, SUMMARY_START
from tests.reporting import machines_of, views_of, tables_of
from tests.test_report_runs import QUICK, save

PAIRED = Path(__file__).parent / "fixtures" / "chainer_paired_quick.json"


def on_machine(data, node, scale):
    """`data` as if saved on machine `node` whose every time is `scale` times as long."""
    data = json.loads(json.dumps(data))
    data["machine_info"]["node"] = node
    for b in data["benchmarks"]:
        if "paired_rounds_s" in b["extra_info"]:
            b["extra_info"]["paired_rounds_s"] = [[t * scale for t in p]
                                                  for p in b["extra_info"]["paired_rounds_s"]]
    return data


def two_machines(tmp_path, keep_b=lambda b: True):
    """results/ci-a and results/ci-b, both run 0001_default (as `run.py bench` on each names it)."""
    base = json.loads(QUICK.read_text())
    save(tmp_path / "results" / "ci-a", on_machine(base, "ci-a", 1), "0001_default",
         "2026-01-01T00:00:00")
    save(tmp_path / "results" / "ci-b", on_machine(base, "ci-b", 10), "0001_default",
         "2026-01-02T00:00:00", 10.0, keep_b)
    return tmp_path / "results"


def _rows(text, start):
    return [line for line in text.splitlines() if line.startswith(start)]


def test_both_machines_shown_each_with_its_own_ratio(tmp_path):
    out = cli.details_text(load_dir(two_machines(tmp_path)), machines_of(load_dir(two_machines(tmp_path))))
    assert "### Machine `ci-a (" in out and "### Machine `ci-b (" in out
    rows = _rows(out, "| chainer | graph |")
    assert len(rows) == 4  # mnist_cnn and vgg on each machine
    a, b = out.split("### Machine `ci-b (")
    assert sorted(r.split("|")[4] for r in _rows(a, "| chainer | graph |")) == \
        sorted(r.split("|")[4] for r in _rows(b, "| chainer | graph |"))  # 10× slower, same ratio


def test_no_ratio_across_machines(tmp_path):
    results = load_dir(two_machines(tmp_path, keep_b=lambda b: b["extra_info"]["variant"] != "eager"))
    machine_b = cli.details_text(results, machines_of(results)).split("### Machine `ci-b (")[1]
    rows = _rows(machine_b, "| chainer | graph |")
    assert rows and all(row.split("|")[4].strip() == "— (no eager in this run)" for row in rows)
    answer = answer_text(views_of(results)).split("**On `ci-b (")
    assert "| chainer | mnist_cnn | `graph` |" in answer[0]
    assert "| chainer | mnist_cnn | — (`graph`: no eager in this run) | — |" in answer[1]
    assert "×" not in answer[1].split("\n\n- ")[0]  # machine B's table: no ratio at all


def test_the_whole_report_is_written_for_two_machines(tmp_path):
    results = two_machines(tmp_path)
    readme = tmp_path / "README.md"
    readme.write_text(f"{SUMMARY_START}\n{SUMMARY_END}\n{cli.START}\n{cli.END}\n")
    assert cli.main(["--results", str(results), "--readme", str(readme)]) == 0
    summary = json.loads((results / "summary.json").read_text())["records"]
    assert {r["machine"].split()[0] for r in summary} == {"ci-a", "ci-b"}
    text = readme.read_text()  # the newest machine's answer; the other counted, its tables beside
    assert text.count("**On the ci-") == 1 and "**On the ci-b " in text
    # the legend defines the machines the answer names; ci-a agrees, so only RESULTS.md names it
    assert "Machines: " in text and "`ci-b (" in text.split("**On the ci-b ")[0]
    assert "measured on 2 machines (RESULTS.md names each)" in text and "`ci-a (" not in text.split("**On the ci-b ")[0]
    assert "`0001_default` on `ci-a" not in text  # the README lists its own machine's runs
    assert tables_of(results).count("### Machine `ci-") == 2


def test_the_readme_answers_for_the_machine_of_the_job_that_just_ran(tmp_path):
    results = two_machines(tmp_path)  # ci-b's run is the newer one
    readme = tmp_path / "README.md"
    readme.write_text(f"{SUMMARY_START}\n{SUMMARY_END}\n{cli.START}\n{cli.END}\n")
    made = results / "ci-a" / "0001_default.json"
    assert cli.main(["--results", str(results), "--readme", str(readme),
                     "--answer-for", str(made)]) == 0
    assert "**On the ci-a " in readme.read_text() and "**On the ci-b " not in readme.read_text()


@pytest.mark.parametrize("machine_b", ["ci-b", "ci-a"], ids=["two machines", "one machine"])
def test_compare_never_divides_two_runs_times(tmp_path, capsys, machine_b):
    """Two runs, B's every time 3× A's: the times side by side (two machines, or two jobs of one
    that differ by more than their rounds), each speedup paired within its run; B's speedup ÷ A's
    with its interval for one machine's runs only."""
    base = json.loads(PAIRED.read_text())
    save(tmp_path / "a", on_machine(base, "ci-a", 1), "0001_default", "2026-01-01T00:00:00")
    save(tmp_path / "b", on_machine(base, machine_b, 3), "0002_default", "2026-01-02T00:00:00", 3.0)
    assert cli.main(["--compare", str(tmp_path / "a" / "0001_default.json"),
                     str(tmp_path / "b" / "0002_default.json")]) == 0
    out, err = capsys.readouterr()
    times = _rows(out, "| test_steady[chainer-mnist_cnn-eager-train] |")[0].split("|")
    assert len(times) == 5 and float(times[3]) == pytest.approx(3 * float(times[2]), rel=0.01)
    assert "b / a" not in out and "3.00" not in out and "never" in out
    ratios = _rows(out, "| test_steady[chainer-vgg-graph-train] |")[-1].split("|")
    assert ratios[2] == ratios[3]  # the same speedup within each run
    if machine_b == "ci-b":
        assert len(ratios) == 5 and "B ÷ A" not in out and "different machines" in err
    else:
        assert len(ratios) == 6 and ratios[4].strip().startswith("1.00×")
        assert "different machines" not in err
        # its interval is the runs' own processes': a ratio past it may be the jobs' drift
        assert "not the machine's drift between jobs" in out


def test_charts_are_drawn_for_the_readme_machine_only(tmp_path):
    pytest.importorskip("matplotlib", reason="charts are tested in the tox `report` env")
    results = two_machines(tmp_path)
    readme = tmp_path / "README.md"
    readme.write_text(f"{cli.START}\n{cli.END}\n")
    assert cli.main(["--results", str(results), "--readme", str(readme),
                     "--charts", str(tmp_path / "c")]) == 0
    names = {p.name for p in (tmp_path / "c").glob("*.png")}
    assert {"speedup_train.png", "step_times.png"} <= names
    assert not any("_m" in name for name in names)
    assert "ci-b" in readme.read_text().split("c/speedup_train.png")[0]


def test_same_description_and_run_name_are_still_two_runs(tmp_path):
    """Two copies named 0001_default from machines the report cannot tell apart: kept apart by
    file, so the newer one's partial re-run never borrows the older one's eager."""
    base = json.loads(QUICK.read_text())
    save(tmp_path / "a", base, "0001_default", "2026-01-01T00:00:00")
    save(tmp_path / "b", base, "0001_default", "2026-01-02T00:00:00", 10.0,
         lambda b: b["extra_info"]["variant"] != "eager")
    table = cli.details_text(load_dir(tmp_path), machines_of(load_dir(tmp_path)))
    rows = _rows(table.split("### Retracing")[0], "| chainer | graph |")
    assert rows and all(row.split("|")[4].strip() == "— (no eager in this run)" for row in rows)


def test_one_brand_string_with_two_vector_isas_is_two_machines(tmp_path):
    """'AMD EPYC' names an AVX2-only CPU and an AVX-512 one: one host name, two machines."""
    base = json.loads(QUICK.read_text())
    for folder, flags, family in (("epyc-a", ["avx", "avx2", "fma"], 23),
                                  ("epyc-b", ["avx2", "fma", "avx512f", "avx512bw", "avx512vl",
                                              "avx512dq"], 26)):
        data = on_machine(base, "vm", 1)
        data["machine_info"]["cpu"].update(brand_raw="AMD EPYC", flags=flags, family=family)
        save(tmp_path / "results" / folder, data, "0001_default", "2026-01-01T00:00:00")
    found = sorted({r.machine for r in load_dir(tmp_path / "results")})
    assert found == ["vm (AMD EPYC, family 23 model 167, AVX2, 2 cores)",
                     "vm (AMD EPYC, family 26 model 167, AVX-512, 2 cores)"]
    text = cli.details_text(load_dir(tmp_path / "results"),
                            machines_of(load_dir(tmp_path / "results")))
    assert text.count("### Machine `vm (AMD EPYC") == 2


def test_stepping_and_flags_outside_the_tiers_keep_one_machine_a_tier_or_gpu_splits_it():
    """docs/METHOD.md, What makes one machine (issue 52): avx512_vbmi2 or another stepping is the
    same machine; a tier (BF16) or a named GPU is another."""
    from report.build.load import machine_name
    flags = ["avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512_vnni",
             "avx512_bf16", "avx512_vbmi2"]

    def named(flags=flags, stepping=1, gpu=None):
        return machine_name({"node": "vm", "cpu": {"brand_raw": "AMD EPYC", "family": 25,
                                                    "model": 17, "stepping": stepping,
                                                    "flags": flags, "count": 2},
                             "graphbench": {"gpu": gpu}})
    one = named()
    assert named(stepping=2) == one and named([f for f in flags if f != "avx512_vbmi2"]) == one
    assert named([f for f in flags if f != "avx512_bf16"]) != one
    assert named(gpu="NVIDIA H100 80GB HBM3, 580.159.04, 81559 MiB").endswith(
        "2 cores, NVIDIA H100 80GB HBM3)")


def test_the_runs_block_tells_two_machines_of_one_short_name_apart(tmp_path):
    """The README's runs lines name each machine as the answer does, also when a caller other than
    `python -m report` (a test) draws them alone."""
    base = json.loads(QUICK.read_text())
    for n, cores in ((1, 2), (2, 4)):
        data = on_machine(base, "vm", 1)
        data["machine_info"]["cpu"]["count"] = cores
        save(tmp_path / "results" / f"vm{cores}", data, f"000{n}_default", f"2026-01-0{n}T00:00:00")
    results = load_dir(tmp_path / "results")
    text = cli.render(results, machines_of(results))
    assert "on the Xeon model 167 with 2 cores:" in text
    assert "on the Xeon model 167 with 4 cores:" in text
