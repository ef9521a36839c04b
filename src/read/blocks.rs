//! Where the blocks of a Blosc-compressed inner chunk lie, so that a later read of part of the
//! chunk fetches only the blocks holding that part (a reader that keeps shard indexes keeps these
//! too).
//!
//! A Blosc buffer (format version 2, as zarr-python and zarrs write it) starts with a 16-byte
//! header (format versions, flags, type size, decompressed size, block size, compressed size) and
//! the start of each compressed block; a block's bytes run from its start to the next start
//! above it, or to the end of the buffer (threads may store blocks out of order). Blosc's
//! partial decompression reads only the header, the starts and the blocks asked for, so the rest
//! of the buffer may be zeros.

use std::ops::Range;

use zarrs::storage::Bytes;

/// The header and block starts of one stored chunk, as read from its front or the whole chunk.
pub(super) struct BlockTable {
    /// The header and the block starts, as stored.
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

/// Blosc's format version 2 (c-blosc 1.x).
const FORMAT: u8 = 2;
/// Blosc's header flag of a buffer stored without compression (no block starts).
const MEMCPYED: u8 = 0x2;
/// The bytes of Blosc's header.
pub(super) const HEADER: usize = 16;

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

/// Whether `front`, the first bytes of a chunk of `size` bytes as stored, begins a Blosc buffer
/// stored without compression: its decompressed bytes as they are, after the header.
pub(super) fn uncompressed(front: &[u8], size: usize) -> bool {
    let Some(header) = front.get(..HEADER) else {
        return false;
    };
    let (decoded, stored) = (word(header, 4), word(header, 12));
    header[0] == FORMAT
        && header[2] & MEMCPYED != 0
        && stored == size
        && decoded.checked_add(HEADER) == Some(size)
}

impl BlockTable {
    /// The table of `stored`, a whole chunk as stored; `None` where it is no Blosc buffer with
    /// block starts (one stored uncompressed, another format), or the header does not match the
    /// buffer.
    pub(super) fn of(stored: &Bytes) -> Option<Self> {
        Self::of_front(stored, stored.len())
    }

    /// The table of a chunk of `size` bytes as stored, from `front`, its first bytes (at least
    /// its header and block starts); `None` where it is no Blosc buffer with block starts, the
    /// header does not match `size`, or `front` is too short.
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
            .map(|start| word(start, 0))
            .collect();
        if count == 0 || starts.iter().any(|&start| start < head_len || start > size) {
            return None;
        }
        let mut sorted = starts.clone();
        sorted.sort_unstable();
        let blocks = starts
            .iter()
            .map(|&start| {
                let above = sorted.partition_point(|&other| other <= start);
                start..sorted.get(above).copied().unwrap_or(size)
            })
            .collect();
        Some(Self {
            // A copy: a slice would hold the whole buffer fetched (the chunk, or more) as long as
            // the table is kept.
            head: Bytes::copy_from_slice(&front[..head_len]),
            stored: size,
            type_size,
            block_size,
            blocks,
        })
    }

    /// The stored chunk's size.
    pub(super) fn stored_size(&self) -> usize {
        self.stored
    }

    /// The bytes of one element, as Blosc counts them.
    pub(super) fn type_size(&self) -> usize {
        self.type_size
    }

    /// The stored bytes holding the decompressed bytes `decoded` of the chunk: from the first
    /// byte of any block they touch to the last; `None` where `decoded` is empty or beyond the
    /// chunk.
    pub(super) fn blocks(&self, decoded: Range<usize>) -> Option<Range<usize>> {
        // Blosc starts a partial decompression at an element boundary.
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

    /// The stored chunk as Blosc reads the blocks `within` from it: its header and block starts,
    /// then `parts` (the stored bytes `within`, in order), zeros elsewhere; `None` where `parts`
    /// are not the size of `within`.
    pub(super) fn sparse(&self, within: Range<usize>, parts: &[&[u8]]) -> Option<Bytes> {
        let len: usize = parts.iter().map(|part| part.len()).sum();
        if len != within.len() || within.end > self.stored || within.start < self.head.len() {
            return None;
        }
        let mut chunk = vec![0; self.stored];
        chunk[..self.head.len()].copy_from_slice(&self.head);
        let mut at = within.start;
        for part in parts {
            chunk[at..at + part.len()].copy_from_slice(part);
            at += part.len();
        }
        Some(Bytes::from(chunk))
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::borrow::Cow;
    use std::sync::Arc;

    use zarrs::array::CodecOptions;
    use zarrs::array::codec::CodecChain;
    use zarrs::array::codec::api::{BytesRepresentation, BytesToBytesCodecTraits};
    use zarrs::metadata::v3::MetadataV3;
    use zarrs::storage::Bytes;
    use zarrs::storage::byte_range::ByteRange;

    use super::{BlockTable, HEADER};

    /// A Blosc codec (zstd, byte shuffle of 2-byte elements) with blocks of `block_size` bytes.
    pub(in crate::read) fn blosc(block_size: usize) -> Arc<dyn BytesToBytesCodecTraits> {
        let metadata: Vec<MetadataV3> = serde_json::from_str(&format!(
            r#"[{{"name": "bytes", "configuration": {{"endian": "little"}}}},
               {{"name": "blosc", "configuration": {{"cname": "zstd", "clevel": 3,
                 "shuffle": "shuffle", "typesize": 2, "blocksize": {block_size}}}}}]"#
        ))
        .unwrap();
        let chain = CodecChain::from_metadata(&metadata).unwrap();
        Arc::clone(&chain.bytes_to_bytes_codecs()[0])
    }

    /// `decoded` compressed by `codec`.
    pub(in crate::read) fn compress(
        codec: &Arc<dyn BytesToBytesCodecTraits>,
        decoded: &[u8],
    ) -> Bytes {
        let encoded = codec
            .encode(Cow::Borrowed(decoded), &CodecOptions::default())
            .unwrap();
        Bytes::from(encoded.into_owned())
    }

    /// The bytes `range` of the chunk `stored` decompresses to, as Blosc decodes a part.
    pub(in crate::read) fn part_of(
        codec: &Arc<dyn BytesToBytesCodecTraits>,
        stored: &Bytes,
        decoded_len: usize,
        range: std::ops::Range<usize>,
    ) -> Option<Vec<u8>> {
        let options = CodecOptions::default();
        let decoder = Arc::clone(codec)
            .partial_decoder(
                Arc::new(stored.to_vec()),
                &BytesRepresentation::FixedSize(decoded_len as u64),
                &options,
            )
            .unwrap();
        let range = ByteRange::FromStart(range.start as u64, Some(range.len() as u64));
        decoder
            .partial_decode(range, &options)
            .ok()
            .flatten()
            .map(Cow::into_owned)
    }

    /// `stored` with its blocks stored in the opposite order (as threads may store them).
    fn reversed(stored: &Bytes, table: &BlockTable) -> Bytes {
        let mut out = stored[..table.head.len()].to_vec();
        for (i, block) in table.blocks.iter().enumerate().rev() {
            let start = u32::try_from(out.len()).unwrap().to_le_bytes();
            out[HEADER + 4 * i..HEADER + 4 * i + 4].copy_from_slice(&start);
            out.extend_from_slice(&stored[block.clone()]);
        }
        Bytes::from(out)
    }

    #[test]
    #[cfg_attr(miri, ignore = "Blosc is C code, which Miri does not run")]
    fn the_blocks_of_a_part_decode_as_the_whole_chunk() {
        // 40,000 two-byte elements, varied enough for blocks of different compressed sizes.
        let decoded: Vec<u8> = (0..40_000u32)
            .flat_map(|i| {
                u16::try_from((i * i / 7 + i % 13) % 65_521)
                    .unwrap()
                    .to_le_bytes()
            })
            .collect();
        let ranges = [
            0..2,
            0..8192,
            8190..8194,
            10_000..30_002,
            70_000..80_000,
            79_998..80_000,
        ];
        let mut cases = 0;
        for block_size in [8192, 0] {
            let codec = blosc(block_size);
            let stored = compress(&codec, &decoded);
            let table = BlockTable::of(&stored).expect("a Blosc chunk with block starts");
            // The table holds a copy of the head, not the chunk's buffer.
            assert!(!stored.as_ptr_range().contains(&table.head.as_ptr()));
            assert_eq!(table.head, stored[..table.head.len()]);
            assert_eq!(table.blocks.len(), decoded.len().div_ceil(table.block_size));
            let shuffled = reversed(&stored, &table);
            let shuffled_table = BlockTable::of(&shuffled).unwrap();
            assert_eq!(
                codec
                    .decode(
                        Cow::Borrowed(&shuffled),
                        &BytesRepresentation::FixedSize(80_000),
                        &CodecOptions::default()
                    )
                    .unwrap(),
                decoded,
                "the blocks reversed are a Blosc chunk of the same elements"
            );
            for (stored, table) in [(&stored, &table), (&shuffled, &shuffled_table)] {
                for range in ranges.clone() {
                    let within = table.blocks(range.clone()).unwrap();
                    let sparse = table
                        .sparse(within.clone(), &[&stored[within.clone()]])
                        .unwrap();
                    assert_eq!(sparse.len(), stored.len());
                    let part = part_of(&codec, &sparse, decoded.len(), range.clone());
                    assert_eq!(part.as_deref(), Some(&decoded[range.clone()]), "{range:?}");
                    if table.blocks.len() > 1 && range.len() < table.block_size {
                        assert!(within.len() < stored.len() - table.head.len(), "{range:?}");
                    }
                    cases += 1;
                }
            }
        }
        assert_eq!(cases, 24);
    }

    #[test]
    #[cfg_attr(miri, ignore = "Blosc is C code, which Miri does not run")]
    fn chunks_without_a_usable_table() {
        let decoded: Vec<u8> = (0..4096u16).flat_map(u16::to_le_bytes).collect();
        let stored = compress(&blosc(1024), &decoded);
        assert!(BlockTable::of(&stored).is_some());
        let changed = |at: usize, value: u8| {
            let mut bytes = stored.to_vec();
            bytes[at] = value;
            Bytes::from(bytes)
        };
        // Truncated, another format, stored uncompressed, a size that is not the chunk's, a
        // block starting beyond the chunk.
        assert!(BlockTable::of(&stored.slice(..stored.len() - 1)).is_none());
        assert!(BlockTable::of(&stored.slice(..10)).is_none());
        assert!(BlockTable::of(&changed(0, 3)).is_none());
        assert!(BlockTable::of(&changed(2, stored[2] | super::MEMCPYED)).is_none());
        assert!(BlockTable::of(&changed(12, stored[12].wrapping_add(1))).is_none());
        assert!(BlockTable::of(&changed(HEADER + 3, 0x7f)).is_none());
        // A part of the wrong size, or outside the chunk.
        let table = BlockTable::of(&stored).unwrap();
        let within = table.blocks(0..2).unwrap();
        assert!(
            table
                .sparse(within.clone(), &[&stored[within.start..within.end - 1]])
                .is_none()
        );
        assert!(table.sparse(0..4, &[&stored[..4]]).is_none());
        assert!(table.blocks(decoded.len()..decoded.len() + 2).is_none());
    }
}
