"""The README's "What is compared": each framework's row from its catalog entry (catalog.py)."""
from catalog import BACKENDS


def compared_table():
    """The table of each framework's eager mode and graph-cached variants, in catalog order."""
    return "\n".join(["| backend | eager | graph-cached variants |", "|---|---|---|",
                      *(f"| {f.title} | {f.eager} | {f.modes} |" for f in BACKENDS.values())])
