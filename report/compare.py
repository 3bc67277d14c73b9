"""Two saved runs side by side (say two framework versions, or CPU and GPU): medians and ratio."""
from report.load import load_file
from report.tables import _ms


def compare_runs(path_a, path_b):
    """A markdown table of every benchmark present in both runs: medians and b / a."""
    a = {r.name: r for r in load_file(path_a)}
    b = {r.name: r for r in load_file(path_b)}
    shared = sorted(set(a) & set(b))
    lines = [f"| benchmark | {path_a} median ms | {path_b} median ms | b / a |",
             "|---|---|---|---|"]
    for name in shared:
        ma, mb = a[name].stats["median"], b[name].stats["median"]
        overlap = a[name].stats["q1"] <= b[name].stats["q3"] and b[name].stats["q1"] <= a[name].stats["q3"]
        lines.append(f"| {name} | {_ms(ma)} | {_ms(mb)} | {mb / ma:.2f}{' ~' if overlap else ''} |")
    only = sorted(set(a) ^ set(b))
    if only:
        lines += ["", f"In one run only: {', '.join(only)}"]
    return "\n".join(lines)
