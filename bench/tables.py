"""The terminal tables beside the text layout, same results, same run (no broker).

Each case builds one result (5,000 groups by default) and renders it, in a fresh process per
run, alternately as the Apache text layout and as the terminal table (at a terminal's width, as
the table fits it or not); it reports the median render time (CPU, as a command renders: the
renderer's modules loaded on the way; and again with them loaded), the median peak RSS of the
whole process and what the render added to it, and the ratios table/text. Results are printed,
not written to bench/RESULTS.md (they need no broker and change with the renderer only).

    python bench/tables.py                    # every case, 5,000 groups, 5 runs
    python bench/tables.py --groups 1000 --runs 3 --case describe
"""

from __future__ import annotations

import argparse
import io
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WIDTHS = {"wide": 200, "narrow": 40}  # a wide terminal (the table fits) and a narrow one (blocks)


def _describe(groups: int) -> Any:
    from kafka_groups.core.describe import (
        Committed,
        Coordinator,
        DescribedGroup,
        DescribeResult,
        GroupDescription,
        View,
        offset_rows,
    )

    coordinator = Coordinator("broker-1.example", 9092, 1)
    committed = {("orders", 0): Committed(90), ("orders", 1): Committed(100)}
    ends = {("orders", 0): 100, ("orders", 1): 120}
    described = []
    for i in range(groups):
        d = GroupDescription(f"billing-{i:05d}", "Empty", "Classic", coordinator, "", ())
        described.append(DescribedGroup(d, offset_rows(d, committed, ends, {})))
    return DescribeResult(View.OFFSETS, False, tuple(described))


def _reset(groups: int) -> Any:
    from kafka_groups.core.reset import GroupPlan
    from kafka_groups.core.reset_plan import Plan, ResetResult

    plans = tuple(
        GroupPlan(f"billing-{i:05d}", {("orders", 0): 99, ("orders", 1): 120}) for i in range(groups)
    )
    current = {p.group: {("orders", 0): 90, ("orders", 1): 100} for p in plans}
    return ResetResult(Plan(plans, current=current), executed=False)


def _list(groups: int) -> Any:
    from kafka_groups.core.groups import GroupListing, GroupListResult

    listings = tuple(GroupListing(f"billing-{i:05d}", "Classic", "Empty", "consumer") for i in range(groups))
    return GroupListResult(listings, show_type=True, show_state=True)


CASES = {"describe": _describe, "reset": _reset, "list": _list}


def child(case: str, form: str, groups: int, width: int) -> None:
    """One run: build the result, render it once into memory, print render CPU seconds, peak RSS
    before the render and after it (KiB)."""
    from kafka_groups.render import registry

    result = CASES[case](groups)
    renderer = registry.renderer_for(result)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    def render() -> float:
        out = io.StringIO()
        began = time.process_time()
        if form == "text":
            out.write(renderer.text(result))
        else:
            from kafka_groups.render.table import print_table

            print_table(renderer.table(result), out, width=width)
        return time.process_time() - began

    took = render()  # as a command renders: once, its modules loaded on the way
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    again = render()  # the modules loaded: the rendering alone
    print(f"{took} {before} {after} {again}")


def run(case: str, form: str, groups: int, width: int) -> tuple[float, int, int, float]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, __file__, "--child", case, form, str(groups), str(width)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    took, before, after, again = done.stdout.split()
    return float(took), int(before), int(after), float(again)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--case", choices=sorted(CASES), action="append")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        case, form, groups, width = args.child
        child(case, form, int(groups), int(width))
        return
    load = os.getloadavg()
    print(f"{args.groups} groups, {args.runs} alternating runs, load average {load[0]:.1f} (1 min)")
    print(
        "| case | form | render CPU (s) | modules loaded (s) | peak RSS (MiB) | added by the render (MiB) "
        "| table/text CPU | table/text RSS |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for case in args.case or sorted(CASES):
        forms = [("text", 0)] + [(f"table {name}", width) for name, width in WIDTHS.items()]
        samples: dict[str, list[tuple[float, int, int, float]]] = {form: [] for form, _ in forms}
        for _ in range(args.runs):
            for form, width in forms:
                samples[form].append(run(case, form.split()[0], args.groups, width))
        medians = {
            form: (
                statistics.median(s[0] for s in got),
                statistics.median(s[2] for s in got) / 1024,
                statistics.median(s[2] - s[1] for s in got) / 1024,
                statistics.median(s[3] for s in got),
            )
            for form, got in samples.items()
        }
        text_cpu, text_rss, _, _ = medians["text"]
        for form, (cpu, rss, added, warm) in medians.items():
            ratios = "- | -" if form == "text" else f"{cpu / text_cpu:.2f}x | {rss / text_rss:.2f}x"
            print(f"| {case} | {form} | {cpu:.3f} | {warm:.3f} | {rss:.0f} | {added:.0f} | {ratios} |")


if __name__ == "__main__":
    main()
