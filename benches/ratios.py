#!/usr/bin/env python3
"""Ratios from the criterion estimates of `cargo bench --bench codecs`.

For every codec pass: the floor's time over the codec's time (the fraction of the streaming floor
the codec reaches, 100% = as fast as the floor). For the chain: zarr-cast-value's time over this
crate's time (how many times faster). Uses the mean estimates in target/criterion.
"""

import json
import sys
from pathlib import Path

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")


def mean_ns(group: str, function: str, n: str) -> float | None:
    path = ROOT / group / function / n / "new" / "estimates.json"
    if not path.is_file():
        return None
    return json.loads(path.read_text())["mean"]["point_estimate"]


def main() -> None:
    print("| group | pass | elements | codec / floor speed |")
    print("|---|---|---:|---:|")
    for group in ("scale_offset", "cast_value"):
        for floor_dir in sorted((ROOT / group).glob("*_floor")):
            name = floor_dir.name[: -len("_floor")]
            for n_dir in sorted(floor_dir.iterdir(), key=lambda p: int(p.name) if p.name.isdigit() else 0):
                if not n_dir.name.isdigit():
                    continue
                floor = mean_ns(group, floor_dir.name, n_dir.name)
                codec = mean_ns(group, name + "_codec", n_dir.name)
                if floor and codec:
                    print(f"| {group} | {name.replace('_', ' ', 1)} | {n_dir.name} | {100 * floor / codec:.0f}% |")
    print()
    print("| chain | elements | zarr-cast-value time / codecs time |")
    print("|---|---:|---:|")
    for direction in ("encode", "decode"):
        for n in ("65536", "16777216"):
            theirs = mean_ns("chain", f"{direction}_zarr-cast-value", n)
            ours = mean_ns("chain", f"{direction}_codecs", n)
            if theirs and ours:
                print(f"| {direction} | {n} | {theirs / ours:.1f}x |")


if __name__ == "__main__":
    main()
