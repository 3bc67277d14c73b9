"""A machine's name as the report gives it (report/build/load.py's machine_name), read back:
its GPU model and a short name; shared by the build and the views, importing neither."""
import contextlib
import contextvars
import functools
import inspect
import re

_AMONG = contextvars.ContextVar("machines named together", default=frozenset())


def gpu_model(machine):
    """The GPU model a machine's name ends with ('NVIDIA H100 80GB HBM3'), or None for a CPU's."""
    last = machine.rstrip(")").rsplit(", ", 1)[-1]
    return None if last.endswith(" cores") else last


@contextlib.contextmanager
def named_among(machines):
    """Within it, short_name tells apart the machines of `machines` (added to those of any outer
    one) that one short name would join: two hosts of one GPU model, say."""
    token = _AMONG.set(_AMONG.get() | set(machines))
    try:
        yield
    finally:
        _AMONG.reset(token)


def naming_its_machines(view):
    """`view`, whose argument `machines` is [(machine, ...)], run within named_among of them."""
    signature = inspect.signature(view)

    @functools.wraps(view)
    def named(*args, **kwargs):
        with named_among(m[0] for m in signature.bind(*args, **kwargs).arguments["machines"]):
            return view(*args, **kwargs)
    return named


def short_name(machine):
    """A machine's name in a few characters: its GPU ('H100'), else its CPU ('Zen 4',
    'Xeon model 167'), from the name report.build.load gives it; a node other than `vm` leads it;
    within named_among, what tells it from a machine of the same short name follows it ('H200 on
    Zen 4', 'Zen 4 with 4 cores'), else its whole name."""
    name = _plain_name(machine)
    rivals = [m for m in _AMONG.get() if m != machine and _plain_name(m) == name]
    if not rivals:
        return name
    for told, word in ((_host_of, "on"), (_cores_of, "with")):
        if (mine := told(machine)) and all(told(m) != mine for m in rivals):
            return f"{name} {word} {mine}"
    return machine


def _plain_name(machine):
    node = machine.split(" (")[0]
    return (f"{node} " if node != "vm" and " (" in machine else "") + _hardware_name(machine)


def _host_of(machine):
    """A GPU machine's CPU by its short name ('Xeon model 207'); None for a CPU's."""
    if not (gpu := gpu_model(machine)):
        return None
    return _hardware_name(machine.removesuffix(")").removesuffix(", " + gpu) + ")")


def _cores_of(machine):
    found = re.search(r"\b(\d+) cores\b", machine)
    return found and found[0]


def _hardware_name(machine):
    if gpu := re.search(r"NVIDIA (\w+)", gpu_model(machine) or ""):
        return gpu[1]
    found = re.search(r"family (\d+) model (\d+)", machine)
    if "AMD" in machine and found:
        family, model = map(int, found.groups())
        zen = {23: "Zen 2", 26: "Zen 5"}.get(family) or (
            "Zen 3" if family == 25 and model in (*range(0, 16), *range(32, 48), *range(80, 96))
            else "Zen 4" if family == 25 else f"AMD family {family}")
        return zen
    if "Intel" in machine and found:
        return f"Xeon model {found[2]}"
    return machine
