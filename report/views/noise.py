"""Where the A/A noise lies: per-round and between-process spread of each steady A/A pair."""
import statistics

from report.views.text import label


def noise_rows(records):
    """The aa_noise records, per backend, model and phase."""
    return sorted((r for r in records if r["kind"] == "aa_noise"),
                  key=lambda r: (r["backend"], r["model"], r["phase"]))


def noise_table(records):
    """One row per A/A pair: spread per round and between processes, warm-up drift, half-width."""
    rows = noise_rows(records)
    if not rows:
        return ""
    pct = lambda v: f"{v:.1%}"
    lines = ["| backend | model | step | per-round sd | between-process sd | first 2 rounds "
             "| A/A half-width | processes × rounds | block | run |", "|---" * 10 + "|"]
    for r in rows:
        blocks = sorted(set(r["blocks"]))
        lines.append(f"| {r['backend']} | {r['model']} | {r['phase']} | {pct(r['estimate'])} | "
                     f"{pct(r['between_sd'])} | {r['first_rounds']:+.1%} | ±{pct(r['half_width'])} "
                     f"| {r['processes']} × {r['rounds']} | {'–'.join(map(str, blocks[::max(1, len(blocks) - 1)]))} "
                     f"| {label(r)} |")
    return "\n".join(lines)


def noise_reading(records):
    """Which part of the noise dominates, over every A/A pair."""
    rows = noise_rows(records)
    if not rows:
        return ""
    within = statistics.median(r["estimate"] for r in rows)
    between = statistics.median(r["between_sd"] for r in rows)
    wide = max(rows, key=lambda r: r["half_width"])
    return (f"The log ratio of the two eager runners (the A/A pair) scatters by a median "
            f"{within:.1%} from round to round and {between:.1%} between processes: "
            + ("rounds, not processes, are where the noise is, so a longer block or more rounds "
               "narrow the interval as much as more processes do"
               if within > 2 * between else "processes differ as much as rounds do, so only more "
               "processes narrow the interval")
            + f". The widest A/A interval: {wide['backend']} {wide['model']} {wide['phase']}, "
            f"±{wide['half_width']:.1%}.")
