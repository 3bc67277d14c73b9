"""A CPU's vector ISA from its flags, with no framework imported: the one rule the suites
(suites/cpu.py) and the report's machine names (report/build/load.py) share."""

BASES = (  # (name the suites and KNOWN_WRONG use, name a machine shows, the flags it needs)
    ("avx512", "AVX-512", {"avx512f", "avx512bw", "avx512vl", "avx512dq"}),
    ("avx2", "AVX2", {"avx2", "fma"}),
)
TIERS = (  # extensions that oneDNN, XLA and inductor pick other kernels for: (name, any of these)
    ("VNNI", {"avx512vnni", "avxvnni"}),
    ("BF16", {"avx512bf16"}),
    ("FP16", {"avx512fp16"}),
    ("AMX", {"amxtile", "amxbf16", "amxint8"}),
)


def _spelled_alike(flags):
    """/proc/cpuinfo's `avx512_vnni` and py-cpuinfo's `avx512vnni` as one flag."""
    return {str(flag).replace("_", "").lower() for flag in flags}


def base_isa(flags):
    """The widest vector ISA the flags give: 'avx512', 'avx2', or None."""
    have = _spelled_alike(flags)
    return next((name for name, _, needs in BASES if needs <= have), None)


def tier(flags):
    """The ISA with every tier the flags add ('AVX-512+VNNI+BF16'), 'no AVX2' (flags without
    it), or 'ISA ?' (no flags recorded): what keys a machine."""
    have = _spelled_alike(flags)
    base = next((shown for _, shown, needs in BASES if needs <= have), None)
    if base is None:
        return "no AVX2" if have else "ISA ?"
    return "+".join([base, *(name for name, any_of in TIERS if any_of & have)])
