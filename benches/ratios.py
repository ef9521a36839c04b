#!/usr/bin/env python3
"""Ratios from the criterion estimates of `cargo bench --bench codecs`.

For every codec pass: the floor's time over the codec's time (the fraction of the streaming floor
the codec reaches, 100% = as fast as the floor). For the chain: zarr-cast-value's time over this
crate's time (how many times faster). For the other rounding modes and `wrap`: their time over
nearest-even's. Uses the median estimates in target/criterion (robust to the odd slow sample).
"""

import json
import sys
from pathlib import Path

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")


def median_ns(group: str, function: str, n: str) -> float | None:
    path = ROOT / group / function / n / "new" / "estimates.json"
    if not path.is_file():
        return None
    return json.loads(path.read_text())["median"]["point_estimate"]


def main() -> None:
    print("| group | pass | elements | codec / floor speed |")
    print("|---|---|---:|---:|")
    for group in ("scale_offset", "cast_value"):
        for floor_dir in sorted((ROOT / group).glob("*_floor")):
            name = floor_dir.name[: -len("_floor")]
            for n_dir in sorted(floor_dir.iterdir(), key=lambda p: int(p.name) if p.name.isdigit() else 0):
                if not n_dir.name.isdigit():
                    continue
                floor = median_ns(group, floor_dir.name, n_dir.name)
                codec = median_ns(group, name + "_codec", n_dir.name)
                if floor and codec:
                    print(f"| {group} | {name.replace('_', ' ', 1)} | {n_dir.name} | {100 * floor / codec:.0f}% |")
    print()
    print("| chain | elements | zarr-cast-value time / codecs time |")
    print("|---|---:|---:|")
    for direction, baseline in (("encode", ""), ("decode", ""), ("decode", "-huge-pages")):
        for n in ("65536", "16777216"):
            theirs = median_ns("chain", f"{direction}_zarr-cast-value{baseline}", n)
            ours = median_ns("chain", f"{direction}_codecs", n)
            if theirs and ours:
                label = direction + (" (baseline output on huge pages)" if baseline else "")
                print(f"| {label} | {n} | {theirs / ours:.1f}x |")
    print()
    print("| float64 -> uint8 encode | elements | time / nearest-even clamp time |")
    print("|---|---:|---:|")
    base = "encode_f64_to_u8_nearest-even_clamp_map_codec"
    for mode in ("towards-zero_clamp", "towards-positive_clamp", "towards-negative_clamp",
                 "nearest-away_clamp", "nearest-even_wrap"):
        for n in ("65536", "16777216"):
            theirs = median_ns("cast_value", f"encode_f64_to_u8_{mode}_map_codec", n)
            ours = median_ns("cast_value", base, n)
            if theirs and ours:
                print(f"| {mode.replace('_', ', ')} | {n} | {theirs / ours:.2f}x |")


if __name__ == "__main__":
    main()
