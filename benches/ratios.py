#!/usr/bin/env python3
"""Ratios from the criterion estimates of `cargo bench` in `benches/` (median times).

- Codec passes (`codecs` bench): the floor's time over the codec's time, for owned and borrowed
  input (the fraction of the streaming floor the codec reaches; 100% = as fast as the floor).
- Other rounding modes and `wrap`: their time over nearest-even's.
- Versus zarr-cast-value: its time over the codec's (how many times faster the codec is).
- End to end (`array` bench): each path's time over the hand loop's, and over the minimal codec's.
- Threads (`threads` bench): each read's median time at each thread count, and its time over the
  hand loop's (reads into a reused buffer) or over the into path's (new vectors).
"""

import json
import sys
from pathlib import Path

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")


def median_ns(*parts: str) -> float | None:
    path = ROOT.joinpath(*parts, "new", "estimates.json")
    if not path.is_file():
        return None
    return json.loads(path.read_text())["median"]["point_estimate"]


def passes() -> None:
    print("| pass | elements | owned: codec / floor speed | borrowed: codec / floor speed |")
    print("|---|---:|---:|---:|")
    for group in ("scale_offset", "cast_value"):
        for pass_dir in sorted((ROOT / group).glob("*_owned_floor")):
            name = pass_dir.name[: -len("_owned_floor")]
            for n in ("65536", "16777216"):
                cells = []
                for kind in ("owned", "borrowed"):
                    floor = median_ns(group, f"{name}_{kind}_floor", n)
                    codec = median_ns(group, f"{name}_{kind}_codec", n)
                    cells.append(f"{100 * floor / codec:.0f}%" if floor and codec else "-")
                print(f"| {group} {name.replace('_', ' ')} | {n} | {cells[0]} | {cells[1]} |")


def modes() -> None:
    base = "encode_f64_to_u8_nearest-even_clamp_map_owned_codec"
    for n in ("65536", "16777216"):
        ne = median_ns("cast_value", base, n)
        if not ne:
            continue
        ratios = []
        for mode in ("towards-zero_clamp", "towards-positive_clamp", "towards-negative_clamp",
                     "nearest-away_clamp", "nearest-even_wrap"):
            t = median_ns("cast_value", f"encode_f64_to_u8_{mode}_map_owned_codec", n)
            if t:
                ratios.append(f"{mode} {t / ne:.2f}x")
        print(f"modes vs nearest-even clamp at {n}: " + ", ".join(ratios))


def versus() -> None:
    for n in ("65536", "16777216"):
        theirs = median_ns("versus", "i32_to_i16_zarr-cast-value", n)
        ours = median_ns("versus", "i32_to_i16_codec", n)
        if theirs and ours:
            print(f"int32 -> int16 clamp at {n}: zarr-cast-value / codec = {theirs / ours:.2f}")
        for direction in ("encode", "decode"):
            theirs = median_ns("chain", f"{direction}_zarr-cast-value", n)
            ours = median_ns("chain", f"{direction}_codecs", n)
            if theirs and ours:
                print(f"chain {direction} at {n}: zarr-cast-value / codecs = {theirs / ours:.2f}")


def array() -> None:
    print("| path | chunks | time / hand loop | time / minimal codec |")
    print("|---|---:|---:|---:|")
    for chunk in ("1024", "256"):
        for operation, paths in (("read_vec", ("codecs", "minimal")),
                                 ("read_into", ("codecs", "minimal", "fused")),
                                 ("write", ("codecs", "minimal"))):
            hand = median_ns("array", f"{operation}_hand", chunk)
            minimal = median_ns("array", f"{operation}_minimal", chunk)
            for path in paths:
                t = median_ns("array", f"{operation}_{path}", chunk)
                if not (t and hand):
                    continue
                over_minimal = f"{t / minimal:.2f}x" if minimal and path != "minimal" else "-"
                print(f"| {operation} {path} | {chunk} | {t / hand:.2f}x | {over_minimal} |")


def threads() -> None:
    counts = sorted({int(p.name.split("_")[1]) for p in (ROOT / "threads" / "read_into_fused").glob("*_*")})
    print("| chunks | threads | into: hand loop | zarrs | fused | fused / hand | new Vec: hand loop | zarrs | fused | fused / hand | fused Vec / fused into |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for chunk in ("1024", "256"):
        for n in counts:
            t = {name: median_ns("threads", name, f"{chunk}_{n}")
                 for name in ("read_into_hand", "read_into_zarrs", "read_into_fused",
                              "read_vec_hand", "read_vec_zarrs", "read_vec_fused")}
            if not all(t.values()):
                continue
            ms = {k: v / 1e6 for k, v in t.items()}
            print(f"| {chunk}² | {n} | {ms['read_into_hand']:.1f} ms | {ms['read_into_zarrs']:.1f} ms | "
                  f"{ms['read_into_fused']:.1f} ms | {t['read_into_fused'] / t['read_into_hand']:.2f}x | "
                  f"{ms['read_vec_hand']:.1f} ms | {ms['read_vec_zarrs']:.1f} ms | "
                  f"{ms['read_vec_fused']:.1f} ms | {t['read_vec_fused'] / t['read_vec_hand']:.2f}x | "
                  f"{t['read_vec_fused'] / t['read_into_fused']:.2f}x |")


if __name__ == "__main__":
    if (ROOT / "scale_offset").is_dir():
        passes()
        modes()
        versus()
    if (ROOT / "array").is_dir():
        array()
    if (ROOT / "threads").is_dir():
        threads()
