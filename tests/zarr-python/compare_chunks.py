"""Compares the chunks the crate wrote again (`tests/zarr_python_random.rs`) with zarr-python's:

    zpy compare_chunks.py DIR

For each array `DIR/aNNN` that `DIR/aNNN.crate` rewrote: the same chunk files, and in each the
same stored elements, decompressed, inner chunk by inner chunk of a shard (the two may compress
differently and order a shard's inner chunks differently; the elements must be identical).
"""

import json
import os
import struct
import sys

import numcodecs

folder = sys.argv[1]
cases = json.load(open(os.path.join(folder, "cases.json")))["cases"]
decompressors = {"gzip": numcodecs.GZip(), "zstd": numcodecs.Zstd(), "blosc": numcodecs.Blosc()}


def decompress(case, data):
    return data if case["compressor"] is None else bytes(decompressors[case["compressor"]].decode(data))


def inner_chunks(case, metadata, data):
    """The chunk, or each inner chunk of a shard (None where absent)."""
    if not case["shards"]:
        return [data]
    count = 1
    for shard, chunk in zip(case["shards"], case["chunks"]):
        count *= shard // chunk
    sharding = metadata["codecs"][0]["configuration"]
    size = 16 * count + 4  # the index and its crc32c
    index = data[:size] if sharding.get("index_location") == "start" else data[-size:]
    chunks = []
    for i in range(count):
        offset, length = struct.unpack("<QQ", index[16 * i:16 * i + 16])
        chunks.append(None if offset == 2**64 - 1 else data[offset:offset + length])
    return chunks


compared = differences = 0
for case in cases:
    name = case["name"]
    theirs, ours = os.path.join(folder, name), os.path.join(folder, f"{name}.crate")
    if "zarr_python_error" in case or case["fill_changes"] or not os.path.isdir(ours):
        continue
    metadata = json.load(open(os.path.join(theirs, "zarr.json")))
    keys = {os.path.relpath(os.path.join(root, f), theirs)
            for root, _, files in os.walk(theirs) for f in files if f != "zarr.json"}
    for key in sorted(keys):
        a = inner_chunks(case, metadata, open(os.path.join(theirs, key), "rb").read())
        b = inner_chunks(case, metadata, open(os.path.join(ours, key), "rb").read())
        for i, (x, y) in enumerate(zip(a, b)):
            if (x is None) != (y is None) or (x is not None and decompress(case, x) != decompress(case, y)):
                print(f"{name} {key} (inner chunk {i}): the stored elements differ: {json.dumps(case)}")
                differences += 1
    compared += 1
print(f"{compared} arrays: {differences} chunks whose stored elements differ")
sys.exit(1 if differences or not compared else 0)
