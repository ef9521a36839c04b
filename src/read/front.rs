//! The front of a Blosc-compressed inner chunk: what a read of part of a chunk fetches first
//! where it does not know where the chunk's blocks lie (its header and block starts, and the
//! blocks up to where those the read needs are expected to end, in the one request the whole
//! chunk would take), and what it fetches after, where the blocks it needs end further on.

use std::ops::Range;
use std::sync::Arc;

use zarrs::metadata::v3::MetadataV3;
use zarrs::storage::Bytes;
use zarrs::storage::byte_range::ByteRange;
use zarrs_metadata_ext::codec::blosc::{BloscCodecConfiguration, BloscCompressor};

use super::blocks::{self, BlockTable, HEADER};
use super::pieces::Stored;

/// Bytes fetched past where the blocks a read needs are expected to end, besides an eighth of the
/// chunk ([`front`]).
const MARGIN: u64 = 64 << 10;

/// L1, the cache size c-blosc 1.x sizes its automatic blocks by.
const L1: u64 = 32 << 10;

/// The decompressed bytes of a block of a chunk Blosc compresses as `codec` (its metadata) says,
/// of elements of `element` bytes, as c-blosc 1.x chooses them for chunks of at least [`L1`]
/// bytes: its `blocksize` where set, else from `L1`, twice that for LZ4HC, zlib and zstd, a
/// quarter to 16 times that by the compression level; for every compressor but zstd, whose blocks
/// it splits by byte, times the element size (of at most 256 KiB, to from 64 KiB to 1 MiB).
/// [`L1`] where the configuration is not Blosc's.
pub(super) fn block_size(codec: &MetadataV3, element: usize) -> u64 {
    let Ok(configuration) = codec.to_typed_configuration::<BloscCodecConfiguration>() else {
        return L1;
    };
    let (cname, clevel, blocksize, typesize) = match configuration {
        BloscCodecConfiguration::V1(c) => (c.cname, c.clevel, c.blocksize, c.typesize),
        BloscCodecConfiguration::Numcodecs(c) => (c.cname, c.clevel, c.blocksize, None),
        _ => return L1,
    };
    let clevel = u8::from(clevel);
    let hcr = matches!(
        cname,
        BloscCompressor::LZ4HC | BloscCompressor::Zlib | BloscCompressor::Zstd
    );
    let base = if hcr { 2 * L1 } else { L1 };
    let block = match (blocksize, clevel) {
        (1.., _) => (blocksize as u64).max(128),
        (0, 0) => base / 4,
        (0, 1) => base / 2,
        (0, 2) => base,
        (0, 3) => base * 2,
        (0, 4 | 5) => base * 4,
        (0, 6..=8) => base * 8,
        (0, _) if hcr => base * 16,
        (0, _) => base * 8,
    };
    let typesize = typesize.unwrap_or(element).max(1) as u64;
    if clevel > 0 && cname != BloscCompressor::Zstd && typesize <= 16 && block / typesize >= 128 {
        (block.min(256 << 10) * typesize).clamp(64 << 10, 1 << 20)
    } else {
        block
    }
}

/// How much of a Blosc-compressed chunk of `stored` bytes (`decoded` bytes decompressed, in
/// blocks of `block` bytes) a read of its decompressed bytes up to `end` fetches first: its header
/// and block starts, and its blocks up to where the block holding `end` is expected to end at the
/// chunk's mean compression ratio, and an eighth of the chunk and [`MARGIN`] more (for blocks
/// that compress less than the mean); `None` where that is more than three quarters of the chunk,
/// which is then fetched whole.
pub(super) fn front(stored: u64, decoded: u64, end: u64, block: u64) -> Option<u64> {
    if decoded == 0 {
        return None;
    }
    let end = end.div_ceil(block.max(1)).saturating_mul(block.max(1));
    let expected = u128::from(stored) * u128::from(end.min(decoded)) / u128::from(decoded);
    let front = expected + u128::from(stored / 8 + MARGIN);
    (front * 4 <= u128::from(stored) * 3).then(|| u64::try_from(front).expect("below `stored`"))
}

/// What a read has of a chunk once its front is fetched.
pub(super) enum AfterFront {
    /// What it decodes, and how it is stored.
    Ready(Bytes, Stored),
    /// It needs these bytes of the shard too, then [`Rest::complete`].
    More(ByteRange, Rest),
    /// The front does not tell: zarrs reads the chunk.
    Zarrs,
}

/// What the front holds of the stored bytes a read needs, and what the rest of them completes.
pub(super) enum Rest {
    /// The blocks `within` of the chunk of `table`: those the front holds of them.
    Blocks(Bytes, Arc<BlockTable>, Range<usize>),
    /// Stored bytes of this many, which decode as the [`Stored`] says: those the front holds
    /// of them (a Blosc buffer's elements stored without compression, or the whole chunk where the
    /// front has no Blosc table a part could be read by).
    Bytes(Bytes, usize, Stored),
}

/// Of the stored bytes `range` of a chunk at `offset` in its shard, those `front` holds, and the
/// request for the rest; `None` for the rest where the front holds them all.
fn held(front: &Bytes, offset: u64, range: &Range<usize>) -> (Bytes, Option<ByteRange>) {
    let held = front.slice(range.start.min(front.len())..range.end.min(front.len()));
    let from = range.start.max(front.len());
    let rest =
        (from < range.end).then(|| ByteRange::new(offset + from as u64..offset + range.end as u64));
    (held, rest)
}

/// What a read of the decompressed bytes `needed` of a chunk of `stored` bytes, at `offset` in
/// its shard, has once it fetched the chunk's `front`, and the chunk's block table where the
/// front held it; `size` is the bytes of one of the array's elements as stored.
pub(super) fn after_front(
    front: &Bytes,
    offset: u64,
    stored: usize,
    needed: Range<usize>,
    size: usize,
) -> (AfterFront, Option<Arc<BlockTable>>) {
    if offset.checked_add(stored as u64).is_none() {
        return (AfterFront::Zarrs, None);
    }
    if front.len() >= stored {
        return (
            AfterFront::Ready(front.slice(..stored), Stored::Whole),
            None,
        );
    }
    // A buffer Blosc stored without compression holds the elements as they are.
    if blocks::uncompressed(front, stored) {
        let range = HEADER + needed.start..HEADER + needed.end;
        if range.end > stored {
            return (AfterFront::Zarrs, None);
        }
        let how = Stored::Elements(needed.start / size.max(1));
        let (held, rest) = held(front, offset, &range);
        let done = match rest {
            None => AfterFront::Ready(held, how),
            Some(more) => AfterFront::More(more, Rest::Bytes(held, range.len(), how)),
        };
        return (done, None);
    }
    // Blosc decodes a part from its own element boundaries on: every element of the array's
    // must start at one, else the part would not decode by itself.
    let table =
        BlockTable::of_front(front, stored).filter(|table| size.is_multiple_of(table.type_size()));
    let Some((table, within)) = table.and_then(|table| {
        let within = table.blocks(needed)?;
        Some((Arc::new(table), within))
    }) else {
        let (held, rest) = held(front, offset, &(0..stored));
        let rest = rest.expect("the front is shorter than the chunk");
        let whole = Rest::Bytes(held, stored, Stored::Whole);
        return (AfterFront::More(rest, whole), None);
    };
    let (held, rest) = held(front, offset, &within);
    let done = match rest {
        None => match table.sparse(within, &[&held]) {
            Some(sparse) => AfterFront::Ready(sparse, Stored::Blocks),
            None => AfterFront::Zarrs,
        },
        Some(more) => AfterFront::More(more, Rest::Blocks(held, table.clone(), within)),
    };
    (done, Some(table))
}

impl Rest {
    /// The chunk as the read decodes it, and how it is stored, given `more`, the bytes
    /// [`AfterFront::More`] asked for; `None` where they are not as many.
    pub(super) fn complete(self, more: &[u8]) -> Option<(Bytes, Stored)> {
        match self {
            Rest::Blocks(held, table, within) => {
                let sparse = table.sparse(within, &[&held, more])?;
                Some((sparse, Stored::Blocks))
            }
            Rest::Bytes(held, len, how) => {
                let bytes = [&held[..], more].concat();
                (bytes.len() == len).then(|| (Bytes::from(bytes), how))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use zarrs::storage::Bytes;
    use zarrs::storage::byte_range::ByteRange;

    use super::super::blocks::tests::{blosc, compress, part_of};
    use super::super::pieces::Stored;
    use zarrs::metadata::v3::MetadataV3;

    use super::{AfterFront, MARGIN, after_front, block_size, front};

    #[test]
    fn fronts_reach_past_the_expected_end_or_are_the_whole_chunk() {
        // A chunk of 4 MiB stored in 2: the first tenth of its elements expected in the first
        // 200 KiB, then an eighth and 64 KiB more.
        let (stored, decoded) = (2 << 20, 4 << 20);
        assert_eq!(
            front(stored, decoded, decoded / 10, 1),
            Some(stored / 10 + stored / 8 + MARGIN)
        );
        assert_eq!(front(stored, decoded, 0, 1), Some(stored / 8 + MARGIN));
        // To the end of the block the end falls in.
        assert_eq!(
            front(stored, decoded, 1, 256 << 10),
            Some(stored / 16 + stored / 8 + MARGIN)
        );
        assert_eq!(
            front(stored, decoded, (256 << 10) + 1, 256 << 10),
            Some(stored / 8 + stored / 8 + MARGIN)
        );
        // Up to three quarters of the chunk, else none: the chunk is fetched whole.
        assert!(front(stored, decoded, decoded / 2, 1).is_some());
        assert_eq!(front(stored, decoded, decoded * 6 / 10, 1), None);
        assert_eq!(front(stored, decoded, decoded * 2, 1), None);
        assert_eq!(front(stored, decoded, 1, 4 << 20), None);
        // Small chunks are fetched whole.
        assert_eq!(front(100 << 10, 200 << 10, 0, 1), None);
        assert_eq!(front(0, 0, 0, 0), None);
        assert_eq!(
            front(u64::MAX, u64::MAX, u64::MAX / 100, 0).map(|f| f > u64::MAX / 8),
            Some(true)
        );
    }

    #[test]
    fn blocks_are_as_configured_or_as_c_blosc_chooses_them() {
        let blosc = |cname: &str, clevel: u8, blocksize: u64, typesize: &str| {
            let metadata: MetadataV3 = serde_json::from_str(&format!(
                r#"{{"name": "blosc", "configuration": {{"cname": "{cname}", "clevel": {clevel},
                    "shuffle": "bitshuffle", {typesize} "blocksize": {blocksize}}}}}"#
            ))
            .unwrap();
            block_size(&metadata, 2)
        };
        // zarr-python's default (zstd, level 5), and the band of docs/performance.md: 26 blocks
        // of 256 KiB to an inner chunk of 1830 x 1830 two-byte elements.
        assert_eq!(blosc("zstd", 5, 0, r#""typesize": 2,"#), 256 << 10);
        assert_eq!(blosc("zstd", 5, 4096, r#""typesize": 2,"#), 4096);
        assert_eq!(blosc("zlib", 9, 0, ""), 512 << 10);
        assert_eq!(blosc("zstd", 1, 0, ""), 32 << 10);
        // Split by byte: times the element size (of at most 256 KiB), at least 64 KiB, at most
        // 1 MiB; a block set in the configuration too.
        assert_eq!(blosc("lz4hc", 3, 0, r#""typesize": 2,"#), 256 << 10);
        assert_eq!(blosc("lz4", 5, 0, r#""typesize": 2,"#), 256 << 10);
        assert_eq!(blosc("blosclz", 1, 0, r#""typesize": 1,"#), 64 << 10);
        assert_eq!(blosc("blosclz", 9, 0, r#""typesize": 8,"#), 1 << 20);
        assert_eq!(blosc("lz4", 5, 100_000, r#""typesize": 2,"#), 200_000);
        assert_eq!(blosc("lz4", 5, 4096, r#""typesize": 2,"#), 64 << 10);
        assert_eq!(blosc("lz4", 5, 4096, r#""typesize": 32,"#), 4096);
        assert_eq!(blosc("lz4", 0, 4096, r#""typesize": 2,"#), 4096);
        // Another codec's configuration: L1.
        let gzip: MetadataV3 =
            serde_json::from_str(r#"{"name": "gzip", "configuration": {"level": 1}}"#).unwrap();
        assert_eq!(block_size(&gzip, 2), 32 << 10);
    }

    /// Elements that compress unevenly: the first half to almost nothing, the second hardly.
    fn uneven(n: u64) -> Vec<u8> {
        (0..n)
            .flat_map(|i| {
                let value = if i < n / 2 {
                    7
                } else {
                    (i * 7919 + i * i / 3) % 65_521
                };
                u16::try_from(value).unwrap().to_le_bytes()
            })
            .collect()
    }

    #[test]
    #[cfg_attr(miri, ignore = "Blosc is C code, which Miri does not run")]
    fn a_front_gives_the_blocks_it_holds_and_asks_for_those_it_does_not() {
        let decoded = uneven(200_000);
        let codec = blosc(16 << 10);
        let stored = compress(&codec, &decoded);
        let offset = 1000;
        let (mut ready, mut more) = (0, 0);
        for (front_len, needed) in [
            // The first blocks, within a front of a tenth of the chunk.
            (stored.len() / 10, 0..20_000),
            // The last blocks, beyond it: fetched from where they start.
            (stored.len() / 10, 380_000..400_000),
            // Blocks that begin in the front and end after it: the rest of them.
            (stored.len() / 2, 150_000..360_000),
            // The blocks on either side of where the elements stop compressing well: in the
            // front, though the elements are half way through the chunk.
            (stored.len() / 2, 198_000..202_000),
        ] {
            let held = stored.slice(..front_len);
            let (after, table) = after_front(&held, offset, stored.len(), needed.clone(), 2);
            let table = table.expect("the front holds the block table");
            let within = table.blocks(needed.clone()).unwrap();
            let sparse = match after {
                AfterFront::Ready(sparse, Stored::Blocks) => {
                    assert!(within.end <= front_len, "{needed:?}");
                    ready += 1;
                    sparse
                }
                AfterFront::More(range, rest) => {
                    let from = within.start.max(front_len);
                    assert_eq!(
                        range,
                        ByteRange::new(offset + from as u64..offset + within.end as u64),
                        "{needed:?}"
                    );
                    // Bytes short of the range complete nothing.
                    let (start, end) = (from, within.end);
                    let AfterFront::More(_, short) = after_front(
                        &stored.slice(..front_len),
                        offset,
                        stored.len(),
                        needed.clone(),
                        2,
                    )
                    .0
                    else {
                        unreachable!("the same front asks for the same bytes");
                    };
                    assert!(short.complete(&stored[start..end - 1]).is_none());
                    more += 1;
                    match rest.complete(&stored[start..end]) {
                        Some((sparse, Stored::Blocks)) => sparse,
                        _ => panic!("{needed:?}: the blocks"),
                    }
                }
                _ => panic!("{needed:?}: the front holds a Blosc table"),
            };
            let part = part_of(&codec, &sparse, decoded.len(), needed.clone());
            assert_eq!(
                part.as_deref(),
                Some(&decoded[needed.clone()]),
                "{needed:?}"
            );
        }
        assert_eq!((ready, more), (2, 2));
    }

    #[test]
    #[cfg_attr(miri, ignore = "Blosc is C code, which Miri does not run")]
    fn a_front_without_a_usable_table_asks_for_the_rest_of_the_chunk() {
        let decoded = uneven(20_000);
        let stored = compress(&blosc(4096), &decoded);
        let half = stored.len() / 2;
        // Not a Blosc buffer, or elements of 3 bytes that Blosc's of 2 do not divide: the chunk
        // whole, the front and then the rest.
        let mut other = stored.to_vec();
        other[0] = 9;
        let other = Bytes::from(other);
        for (chunk, size) in [(&other, 2), (&stored, 3)] {
            let (after, table) = after_front(&chunk.slice(..half), 10, chunk.len(), 0..6, size);
            assert!(table.is_none());
            let AfterFront::More(range, rest) = after else {
                panic!("the rest of the chunk");
            };
            assert_eq!(
                range,
                ByteRange::new(10 + half as u64..10 + chunk.len() as u64)
            );
            match rest.complete(&chunk[half..]) {
                Some((whole, Stored::Whole)) => assert_eq!(whole, chunk),
                _ => panic!("the whole chunk"),
            }
        }
        // A front as long as the chunk (a store that answered more): the chunk itself.
        let (after, _) = after_front(&stored, 0, stored.len(), 0..6, 2);
        assert!(matches!(after, AfterFront::Ready(whole, Stored::Whole) if whole == stored));
    }
}
