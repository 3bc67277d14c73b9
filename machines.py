"""A machine's name as the report gives it (report/build/load.py's machine_name), read back:
its GPU model and a short name; shared by the build and the views, importing neither."""
import re


def gpu_model(machine):
    """The GPU model a machine's name ends with ('NVIDIA H100 80GB HBM3'), or None for a CPU's."""
    last = machine.rstrip(")").rsplit(", ", 1)[-1]
    return None if last.endswith(" cores") else last


def short_name(machine):
    """A machine's name in a few characters: its GPU ('H100'), else its CPU ('Zen 4',
    'Xeon model 167'), from the name report.build.load gives it; a node other than `vm` leads it."""
    node = machine.split(" (")[0]
    return (f"{node} " if node != "vm" and " (" in machine else "") + _hardware_name(machine)


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
