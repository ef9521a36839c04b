//! Blosc-compressed inner chunks read in part: where a chunk's blocks lie (its block table), and
//! the front a read fetches where it does not know that yet.
//!
//! A Blosc buffer (format 2, as zarr-python and zarrs write it) starts with a 16-byte header and
//! the start of each compressed block, which runs to the next start above it or to the end.
//! Blosc's partial decompression reads only the header, the starts and the blocks asked for (the
//! rest may be zeros). Where the table is not known, a read fetches the chunk's front (header,
//! starts, and blocks up to where those it needs are expected to end) in the request the whole
//! chunk would take, and the rest after where its blocks end further on.

use std::ops::Range;
use std::sync::Arc;

use zarrs::metadata::v3::MetadataV3;
use zarrs::storage::Bytes;
use zarrs_metadata_ext::codec::blosc::{BloscCodecConfiguration, BloscCompressor};

/// Blosc's format version 2 (c-blosc 1.x).
const FORMAT: u8 = 2;
/// Blosc's header flag of a buffer stored without compression (no block starts).
const MEMCPYED: u8 = 0x2;
/// The bytes of Blosc's header.
pub(super) const HEADER: usize = 16;
/// Bytes fetched past where the blocks a read needs are expected to end ([`front`]).
const MARGIN: u64 = 64 << 10;
/// L1, the cache size c-blosc 1.x sizes its automatic blocks by.
const L1: u64 = 32 << 10;

/// The header and block starts of one stored chunk.
pub(super) struct BlockTable {
    /// The header and the block starts, as stored (a copy, not a slice of what was fetched).
    head: Bytes,
    /// The stored chunk's size.
    stored: usize,
    /// The bytes of one element, as Blosc counts them.
    type_size: usize,
    /// Decompressed bytes per block (the last may hold fewer).
    block_size: usize,
    /// The stored bytes of each block.
    blocks: Vec<Range<usize>>,
}

/// The bytes of one element as the Blosc buffer starting with `header` counts them; `None` where
/// `header` is too short or says 0.
pub(super) fn type_size(header: &[u8]) -> Option<usize> {
    header.get(3).map(|&n| usize::from(n)).filter(|&n| n > 0)
}

/// The little-endian 32-bit number at `at` of `bytes`, which holds at least `at + 4` bytes.
fn word(bytes: &[u8], at: usize) -> usize {
    let word: [u8; 4] = bytes[at..at + 4].try_into().expect("4 bytes");
    u32::from_le_bytes(word) as usize
}

impl BlockTable {
    /// The table of a chunk of `size` stored bytes from its first bytes `front`; `None` where it
    /// is no Blosc buffer with block starts, of another size, or `front` is too short.
    pub(super) fn of_front(front: &[u8], size: usize) -> Option<Self> {
        let header = front.get(..HEADER)?;
        let (flags, type_size) = (header[2], type_size(header)?);
        let (decoded, block_size, stored) = (word(header, 4), word(header, 8), word(header, 12));
        if header[0] != FORMAT || flags & MEMCPYED != 0 || block_size == 0 || stored != size {
            return None;
        }
        let count = decoded.div_ceil(block_size);
        let head_len = HEADER.checked_add(count.checked_mul(4)?)?;
        let starts: Vec<usize> = front
            .get(HEADER..head_len)?
            .chunks_exact(4)
            .map(|s| word(s, 0))
            .collect();
        if count == 0 || starts.iter().any(|&start| start < head_len || start > size) {
            return None;
        }
        let mut sorted = starts.clone();
        sorted.sort_unstable();
        let blocks = starts
            .iter()
            .map(|&start| {
                start
                    ..sorted
                        .get(sorted.partition_point(|&o| o <= start))
                        .copied()
                        .unwrap_or(size)
            })
            .collect();
        let head = Bytes::copy_from_slice(&front[..head_len]);
        Some(Self {
            head,
            stored: size,
            type_size,
            block_size,
            blocks,
        })
    }

    /// The bytes the table holds in memory.
    pub(super) fn bytes(&self) -> usize {
        self.head.len() + self.blocks.len() * size_of::<Range<usize>>() + size_of::<Self>()
    }

    /// The stored chunk's size.
    pub(super) fn stored_size(&self) -> usize {
        self.stored
    }

    /// The stored bytes (from the first block to the last) holding the decompressed bytes
    /// `decoded`; `None` where those are empty or beyond the chunk, or elements of `element` bytes
    /// do not start at Blosc's own element boundaries (from which it decodes a part).
    pub(super) fn blocks(&self, decoded: Range<usize>, element: usize) -> Option<Range<usize>> {
        if !element.is_multiple_of(self.type_size) {
            return None;
        }
        let first = (decoded.start - decoded.start % self.type_size) / self.block_size;
        let end = decoded.end.div_ceil(self.block_size);
        let touched = self
            .blocks
            .get(first..end)
            .filter(|blocks| !blocks.is_empty())?;
        let start = touched.iter().map(|block| block.start).min()?;
        let end = touched.iter().map(|block| block.end).max()?;
        Some(start..end)
    }

    /// The stored chunk as Blosc reads the blocks `within` from it: header and starts, `blocks`
    /// (the bytes `within`), zeros elsewhere; `None` where `blocks` do not fit `within`.
    pub(super) fn sparse(&self, within: &Range<usize>, blocks: &[u8]) -> Option<Bytes> {
        if blocks.len() != within.len()
            || within.end > self.stored
            || within.start < self.head.len()
        {
            return None;
        }
        let mut chunk = vec![0; self.stored];
        chunk[..self.head.len()].copy_from_slice(&self.head);
        chunk[within.clone()].copy_from_slice(blocks);
        Some(Bytes::from(chunk))
    }
}

/// The decompressed bytes of a block of a chunk Blosc compresses as `codec` says, of elements of
/// `element` bytes, as c-blosc 1.x chooses them for chunks of at least [`L1`] bytes: `blocksize`
/// where set, else `L1` (twice for LZ4HC, zlib, zstd) times a quarter to 16 by the level, and but
/// for zstd times the element size (clamped to 64 KiB..1 MiB); [`L1`] for other configurations.
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

/// How much of a Blosc chunk of `stored` bytes (`decoded` decompressed, in blocks of `block`) a
/// read of its decompressed bytes up to `end` fetches first: to where the block holding `end` is
/// expected to end at the mean ratio, plus an eighth of the chunk and [`MARGIN`]; `None` where
/// that is over three quarters of the chunk, which is then fetched whole.
pub(super) fn front(stored: u64, decoded: u64, end: u64, block: u64) -> Option<u64> {
    if decoded == 0 {
        return None;
    }
    let end = end.div_ceil(block.max(1)).saturating_mul(block.max(1));
    let expected = u128::from(stored) * u128::from(end.min(decoded)) / u128::from(decoded);
    let front = expected + u128::from(stored / 8 + MARGIN);
    (front * 4 <= u128::from(stored) * 3).then(|| u64::try_from(front).expect("below `stored`"))
}

/// The block table a read of the decompressed bytes `needed` of a chunk of `stored` bytes
/// (elements of `element` bytes) finds in the chunk's `front`, and the stored bytes `within` it
/// of the blocks it needs; `None` where the front is the whole chunk or holds no usable table.
pub(super) fn after_front(
    front: &[u8],
    stored: usize,
    needed: Range<usize>,
    element: usize,
) -> Option<(Arc<BlockTable>, Range<usize>)> {
    let table = BlockTable::of_front(front, stored).filter(|_| front.len() < stored)?;
    let within = table.blocks(needed, element)?;
    Some((Arc::new(table), within))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fronts_reach_past_the_expected_end_or_are_the_whole_chunk() {
        let (stored, decoded) = (2 << 20, 4 << 20);
        let front_of = |end, block| front(stored, decoded, end, block);
        assert_eq!(
            front_of(decoded / 10, 1),
            Some(stored / 10 + stored / 8 + MARGIN)
        );
        assert_eq!(
            front_of(1, 256 << 10),
            Some(stored / 16 + stored / 8 + MARGIN)
        );
        assert!(front_of(decoded / 2, 1).is_some());
        assert_eq!(front_of(decoded * 6 / 10, 1), None);
        assert_eq!(front(100 << 10, 200 << 10, 0, 1), None);
        assert_eq!(front(0, 0, 0, 0), None);
    }

    #[test]
    fn blocks_are_as_configured_or_as_c_blosc_chooses_them() {
        let blosc = |cname: &str, clevel: u8, blocksize: u64, typesize: u64| {
            let metadata: MetadataV3 = serde_json::from_str(&format!(
                r#"{{"name": "blosc", "configuration": {{"cname": "{cname}", "clevel": {clevel},
                    "shuffle": "bitshuffle", "typesize": {typesize}, "blocksize": {blocksize}}}}}"#
            ))
            .unwrap();
            block_size(&metadata, 2)
        };
        // zarr-python's default (zstd, level 5): 26 blocks of 256 KiB to a 1830² uint16 chunk.
        assert_eq!(blosc("zstd", 5, 0, 2), 256 << 10);
        assert_eq!(blosc("zstd", 5, 4096, 2), 4096);
        assert_eq!(blosc("zlib", 9, 0, 2), 512 << 10);
        assert_eq!(blosc("lz4", 5, 0, 2), 256 << 10);
        assert_eq!(blosc("blosclz", 9, 0, 8), 1 << 20);
        assert_eq!(blosc("lz4", 5, 4096, 2), 64 << 10);
        assert_eq!(blosc("lz4", 0, 4096, 2), 4096);
        let gzip = r#"{"name": "gzip", "configuration": {"level": 1}}"#;
        assert_eq!(block_size(&serde_json::from_str(gzip).unwrap(), 2), L1);
    }

    #[test]
    fn chunks_without_a_usable_table() {
        // A Blosc header and the starts of three blocks of 8 bytes (24 bytes, type size 2).
        let mut stored = vec![2, 1, 1, 2];
        for word in [24u32, 8, 48] {
            stored.extend(word.to_le_bytes());
        }
        for start in [28u32, 36, 40] {
            stored.extend(start.to_le_bytes());
        }
        stored.resize(48, 0);
        let table = BlockTable::of_front(&stored, 48).unwrap();
        assert_eq!(table.blocks(0..2, 2), Some(28..36));
        assert_eq!(table.blocks(9..17, 2), Some(36..48));
        assert_eq!(table.blocks(0..2, 3), None);
        assert_eq!(table.blocks(24..26, 2), None);
        assert!(table.sparse(&(28..36), &[1; 7]).is_none());
        assert!(
            table
                .sparse(&(28..36), &[1; 8])
                .is_some_and(|s| s[..28] == stored[..28])
        );
        let changed = |at: usize, value: u8| {
            let mut bytes = stored.clone();
            bytes[at] = value;
            bytes
        };
        // Truncated, another format, stored uncompressed, another size, a block beyond the end.
        assert!(BlockTable::of_front(&stored[..20], 48).is_none());
        assert!(BlockTable::of_front(&stored, 47).is_none());
        for (at, value) in [(0, 3), (2, 1 | MEMCPYED), (12, 45), (HEADER + 3, 0x7f)] {
            assert!(
                BlockTable::of_front(&changed(at, value), 48).is_none(),
                "{at}"
            );
        }
    }
}
