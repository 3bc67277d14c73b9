"""A machine is keyed on the code its CPU runs: the vector ISA with its VNNI, BF16, FP16 and AMX
tiers, one rule (isa.py) for the suites and the report."""
import json
from pathlib import Path

import pytest

from report.build.load import load_dir, machine_name
from tests.test_report_runs import QUICK, save

EPYC = ["avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd",
        "avx512_vnni", "avx512_bf16"]
XEON = [*EPYC, "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8"]
RESULTS = Path(__file__).parent.parent / "results" / "Linux-CPython-3.11-64bit"


def _info(flags, py_cpuinfo_extra=()):
    """machine_info of one host whose CPU has `flags` (/proc/cpuinfo), as py-cpuinfo records them
    (plus `py_cpuinfo_extra`) and as the suites do (vector flags only)."""
    return {"node": "vm", "python_version": "3.11.7",
            "cpu": {"brand_raw": "Intel(R) Xeon(R) Processor", "family": 6, "model": 167,
                    "count": 2, "flags": sorted({*flags, "sse4_2", *py_cpuinfo_extra})},
            "graphbench": {"cpu": {"flags": sorted(flags)}}}


@pytest.mark.parametrize("other", [
    [f for f in XEON if not f.startswith("amx")],  # the same CPU with AMX off (a VM, a kernel)
    [f for f in XEON if f != "avx512_fp16"],
    [f for f in XEON if f != "avx512_vnni"]])
def test_a_cpu_that_differs_in_a_tier_is_another_machine(other):
    """Was: 'AVX-512' for both, so their runs merged into one machine's tables."""
    assert machine_name(_info(XEON)) != machine_name(_info(other))


def test_a_tier_recorded_by_py_cpuinfo_alone_still_counts():
    """Runs saved before the suites recorded flags have py-cpuinfo's alone (no graphbench.cpu)."""
    alone = _info(XEON)
    del alone["graphbench"]["cpu"]
    assert machine_name(alone) == machine_name(_info(XEON))
    assert machine_name(alone) != machine_name(_info([f for f in XEON if not f.startswith("amx")]))


def test_flags_that_change_no_code_are_the_same_machine():
    """py-cpuinfo's other flags (and its spellings without the underscore) key nothing."""
    assert machine_name(_info(XEON)) == machine_name(_info(XEON, ("avx512vnni", "sha_ni", "ht")))


def test_a_gpu_run_names_its_gpu():
    """A --device cuda run on a host is another machine than a CPU run there (conftest.gpu_name)."""
    gpu = _info(XEON)
    gpu["graphbench"]["gpu"] = "NVIDIA H200, 580.159.04, 143771 MiB"
    assert machine_name(gpu).endswith(", 2 cores, NVIDIA H200)")
    assert machine_name(gpu) != machine_name(_info(XEON))


def test_two_runs_whose_cpu_lacks_only_amx_are_two_machines(tmp_path):
    base = json.loads(QUICK.read_text())
    for folder, flags in (("a", XEON), ("b", [f for f in XEON if not f.startswith("amx")])):
        data = json.loads(json.dumps(base))
        data["machine_info"].update(_info(flags))
        data["machine_info"]["graphbench"] = {**base["machine_info"]["graphbench"],
                                              **_info(flags)["graphbench"]}
        save(tmp_path / "results" / folder, data, "0001_default", "2026-01-01T00:00:00")
    assert len({r.machine for r in load_dir(tmp_path / "results")}) == 2


def test_the_suites_and_the_report_read_one_rule(monkeypatch):
    """suites/cpu.py's native ISA and the report's machine name come from isa.py: a rule changed
    there changes both."""
    import isa
    from suites import cpu
    assert isa.base_isa(XEON) == "avx512" and isa.base_isa(["avx2", "fma"]) == "avx2"
    assert isa.base_isa(["sse4_2"]) is None
    assert isa.tier(XEON) == "AVX-512+VNNI+BF16+FP16+AMX"
    assert isa.tier(["avx2", "fma", "avx_vnni"]) == "AVX2+VNNI"
    monkeypatch.setattr(isa, "BASES", (("avx2", "AVX2", {"avx2", "fma"}),))
    monkeypatch.setattr(cpu, "flags", lambda: XEON)
    assert cpu.native_isa() == "avx2"
    assert ", AVX2+VNNI+BF16+FP16+AMX, " in machine_name(_info(XEON))


@pytest.mark.skipif(not RESULTS.is_dir(), reason="the committed runs are not in this checkout")
def test_the_committed_runs_keep_their_machines():
    """0001-0020 (Intel Xeon, AMX) stay one machine, 0021-0037 (AMD EPYC) another."""
    by_run = {r.run[:4]: r.machine for r in load_dir(RESULTS)}
    intel = {m for run, m in by_run.items() if run <= "0020"}
    amd = {m for run, m in by_run.items() if "0021" <= run <= "0037"}
    assert intel == {"vm (Intel(R) Xeon(R) Processor, family 6 model 167, "
                     "AVX-512+VNNI+BF16+FP16+AMX, 2 cores)"}
    assert amd == {"vm (AMD EPYC, family 25 model 17, AVX-512+VNNI+BF16, 2 cores)"}
