"""The vector ISA a result and a known-wrong rule name: native flags, capped by ATEN_CPU_CAPABILITY."""
import pytest

from suites import cpu
from suites.cases import KnownWrong

AVX512 = ["avx", "avx2", "avx512bw", "avx512dq", "avx512f", "avx512vl", "fma"]
AVX2 = ["avx", "avx2", "fma"]


@pytest.fixture
def cpu_flags(monkeypatch):
    def set_flags(flags, cap=None):
        monkeypatch.setattr(cpu, "flags", lambda: flags)
        monkeypatch.setattr(cpu.platform, "machine", lambda: "x86_64")
        if cap is None:
            monkeypatch.delenv("ATEN_CPU_CAPABILITY", raising=False)
        else:
            monkeypatch.setenv("ATEN_CPU_CAPABILITY", cap)
    return set_flags


@pytest.mark.parametrize("flags, cap, expected", [
    (AVX512, None, "avx512"), (AVX512, "avx2", "avx2"), (AVX512, "AVX2", "avx2"),
    (AVX2, None, "avx2"), (AVX2, "avx512", "avx2"),  # a cap never raises the ISA
    (AVX512, "bogus", "avx512"), (["avx"], None, "default")])
def test_vector_isa(cpu_flags, flags, cap, expected):
    cpu_flags(flags, cap)
    assert cpu.vector_isa() == expected


def test_known_wrong_rule_holds_on_its_isa_only(cpu_flags):
    rule = KnownWrong("torch", "resnet", ("graph",), "heap", isas=("avx2",), strict=False)
    cpu_flags(AVX512)
    assert not rule.applies("torch", "resnet", "graph", 4)
    cpu_flags(AVX512, "avx2")
    assert rule.applies("torch", "resnet", "graph", 4)
    cpu_flags(AVX2)
    assert rule.applies("torch", "resnet", "graph", 4)
    assert not rule.applies("torch", "resnet", "eager", 4)


def test_results_name_the_cpu():
    described = cpu.describe()
    assert described["vector_isa"] and described["native_isa"] and described["model"]
    assert set(described["pages"]) == {"transparent_hugepage", "defrag", "numpy_madvise_hugepage"}


def test_results_say_how_memory_is_paged(tmp_path, monkeypatch):
    (tmp_path / "enabled").write_text("always [madvise] never\n")
    (tmp_path / "defrag").write_text("always defer defer+madvise madvise [never]\n")
    monkeypatch.setenv("NUMPY_MADVISE_HUGEPAGE", "0")
    assert cpu.pages(tmp_path) == {"transparent_hugepage": "madvise", "defrag": "never",
                                   "numpy_madvise_hugepage": "0"}
    monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE")
    assert cpu.pages(tmp_path / "absent") == {"transparent_hugepage": None, "defrag": None,
                                              "numpy_madvise_hugepage": None}


def test_known_wrong_rule_holds_at_its_precision_only(cpu_flags):
    rule = KnownWrong("torch", "vgg", ("graph",), "zero", batches=(16,), precisions=("bfloat16",))
    cpu_flags(AVX512)
    assert rule.applies("torch", "vgg", "graph", 16, "bfloat16")
    assert not rule.applies("torch", "vgg", "graph", 16, "float32")
    assert not rule.applies("torch", "vgg", "graph", 8, "bfloat16")
