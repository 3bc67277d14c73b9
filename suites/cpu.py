"""The CPU a result was measured on: model name, vector flags and the ISA compiled code targets."""
import os
import platform
from functools import lru_cache
from pathlib import Path

import isa

# ATEN_CPU_CAPABILITY caps PyTorch's kernels and inductor's generated code (with
# ONEDNN_MAX_CPU_ISA for oneDNN): an AVX-512 CPU so capped runs AVX2 code
_CAPS = {"default": "default", "avx2": "avx2", "avx512": "avx512"}


@lru_cache(maxsize=None)
def _cpuinfo():
    try:
        return Path("/proc/cpuinfo").read_text()
    except OSError:
        return ""


def model():
    """The CPU's model name (Linux /proc/cpuinfo, else platform's guess)."""
    for line in _cpuinfo().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def flags():
    """The CPU's vector-extension flags (avx*, amx*, fma), sorted."""
    for line in _cpuinfo().splitlines():
        if line.startswith("flags"):
            return sorted(f for f in line.split(":", 1)[1].split()
                          if f.startswith(("avx", "amx", "fma")))
    return []


def native_isa():
    """The widest x86 vector ISA the CPU has: avx512, avx2 or default (other CPUs: the arch)."""
    if found := isa.base_isa(flags()):
        return found
    return "default" if platform.machine() in ("x86_64", "AMD64") else platform.machine()


def vector_isa():
    """The ISA compiled kernels target here: the native one, capped by ATEN_CPU_CAPABILITY."""
    native = native_isa()
    cap = _CAPS.get(os.environ.get("ATEN_CPU_CAPABILITY", "").lower())
    order = ("default", "avx2", "avx512")
    if cap and native in order and order.index(cap) < order.index(native):
        return cap
    return native


THP = Path("/sys/kernel/mm/transparent_hugepage")


def pages(root=THP):
    """How memory is paged, which moves article 004's figure (docs/METHOD.md): the kernel's
    transparent huge page policy and defrag setting (the bracketed choice; None where unreadable)
    and NUMPY_MADVISE_HUGEPAGE (None: NumPy's default, advice on)."""
    def chosen(name):
        try:
            text = (root / name).read_text()
        except OSError:
            return None
        return text[text.find("[") + 1:text.find("]")] if "[" in text else text.strip()
    return {"transparent_hugepage": chosen("enabled"), "defrag": chosen("defrag"),
            "numpy_madvise_hugepage": os.environ.get("NUMPY_MADVISE_HUGEPAGE")}


def describe():
    """A dict for results: model, flags, native and effective ISA, the capping variables, how
    memory is paged."""
    return {"model": model(), "flags": flags(), "native_isa": native_isa(),
            "vector_isa": vector_isa(),
            "env": {k: os.environ[k] for k in ("ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA")
                    if k in os.environ}, "pages": pages()}
