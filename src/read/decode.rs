//! A chunk's stored bytes decoded into its pieces of the output: by the stored chunks' own codecs
//! (zarrs' `bytes` and compressors; only the part the pieces need where the compressor decodes a
//! part for less), then through the kernel of the crate's codecs, straight into the output.

use std::borrow::Cow;
use std::num::NonZeroU64;
use std::ops::Range;
use std::sync::Arc;

use zarrs::array::codec::api::{
    ArrayToBytesCodecTraits, BytesPartialDecoderTraits, BytesRepresentation,
};
use zarrs::array::{ArrayBytesRaw, CodecError, CodecOptions};
use zarrs::storage::byte_range::{ByteRange, ByteRangeIterator, InvalidByteRangeError};
use zarrs::storage::{Bytes, StorageError};

use super::Fallback;
use super::blosc::{self, BlockTable};
use super::layout::{Layout, stored_part};
use super::output::ChunkWork;
use super::shard::Kept;
use crate::engine::blockwise::{MIN_ELEMENTS_PER_TASK, Output};
use crate::parallel;

/// Whether `len` elements of a chunk of `elements` are few enough to be decoded without the rest
/// (at most half of them: decoding a part costs more per element than decoding the whole).
pub(super) fn worth_a_part(len: usize, elements: u64) -> bool {
    len as u64 * 2 <= elements
}

/// What the stored bytes fetched for a chunk hold.
pub(super) enum Stored {
    /// The whole stored chunk.
    Whole,
    /// The stored elements from this one (of the chunk, in C order) to the last the pieces need,
    /// of a chunk stored by the `bytes` codec alone.
    Elements(usize),
    /// The Blosc blocks `within` the stored chunk, by its block table.
    Blocks(Arc<BlockTable>, Range<usize>),
}

/// What a request for a chunk's bytes is for.
pub(super) enum Part {
    /// The stored bytes [`Stored`] says, after these, which an earlier answer brought.
    Bytes(Stored, Bytes),
    /// The front of a Blosc chunk of this many stored bytes at this offset of its shard, whose
    /// block table the reader does not know; the decompressed bytes the read needs.
    Front(usize, u64, Range<usize>),
}

/// The range of its shard a read of the inner chunk of `work`, `at` this offset and size, fetches
/// (its first byte and length), and what it gets: the stored elements it needs of an uncompressed
/// chunk; of a chunk Blosc alone compresses, where the read needs few enough of its elements, the
/// blocks holding them where the reader kept the chunk's block table, else the chunk's front;
/// else the whole chunk.
pub(super) fn chunk_range(
    layout: &Layout,
    kept: Option<&Kept>,
    shard: &[u64],
    work: &ChunkWork<'_>,
    (offset, size): (u64, u64),
) -> (u64, u64, Part) {
    let bytes = |stored| Part::Bytes(stored, Bytes::new());
    if let Some((start, len, first)) = stored_part(layout, work, Some((offset, size))) {
        return (start, len, bytes(Stored::Elements(first)));
    }
    let (elements, span) = (
        work.chunk.num_elements(),
        work.span(layout.kernel.sizes().1),
    );
    let part = layout
        .blocks
        .zip(usize::try_from(size).ok())
        .filter(|_| worth_a_part(span.len(), elements));
    let Some(((element, block), stored)) = part else {
        return (offset, size, bytes(Stored::Whole));
    };
    let needed = span.start * element..span.end * element;
    let sharding = layout.shards.as_ref().expect("a sharded array");
    let table = kept.and_then(|kept| kept.table(shard, sharding.position(&work.indices)));
    let decoded = elements.saturating_mul(element as u64);
    match table.filter(|table| table.stored_size() == stored) {
        Some(table) => match table.blocks(needed, element) {
            Some(w) => (
                offset + w.start as u64,
                w.len() as u64,
                bytes(Stored::Blocks(table, w)),
            ),
            None => (offset, size, bytes(Stored::Whole)),
        },
        None => match blosc::front(size, decoded, needed.end as u64, block) {
            Some(front) => (offset, front, Part::Front(stored, offset, needed)),
            None => (offset, size, bytes(Stored::Whole)),
        },
    }
}

/// Decodes `encoded`, the stored bytes of the chunk of `work` (`stored` says which), into its
/// pieces through the layout's kernel, splitting the pieces over threads where `options` allow
/// and the chunk is large.
///
/// # Errors
/// The reason zarrs must read the chunk: its stored bytes do not decode (or not to its size), or
/// an element does not (zarrs then reports it as it does).
pub(super) fn decode(
    work: &mut ChunkWork<'_>,
    layout: &Layout,
    encoded: &Bytes,
    stored: &Stored,
    options: &CodecOptions,
) -> Result<(), Fallback> {
    let (in_size, out_size) = layout.kernel.sizes();
    let shape: Vec<NonZeroU64> = work
        .chunk
        .shape()
        .iter()
        .filter_map(|&n| NonZeroU64::new(n))
        .collect();
    let span = work.span(out_size);
    let (decoded, base) = match stored {
        Stored::Elements(first) => (elements(layout, Cow::Borrowed(encoded), options)?, *first),
        Stored::Blocks(table, within) => {
            let sparse = table.sparse(within, encoded).ok_or(Fallback::StoredBytes)?;
            let part = span_of(layout, &sparse, &shape, span.clone(), options)?;
            (Cow::Owned(part.ok_or(Fallback::StoredBytes)?), span.start)
        }
        Stored::Whole => {
            if let Some(part) = span_of(layout, encoded, &shape, span.clone(), options)? {
                (Cow::Owned(part), span.start)
            } else {
                let (stored, fill) = (&layout.stored, &layout.stored_fill);
                let decoded = (layout.inner)
                    .decode(Cow::Borrowed(encoded), &shape, stored, fill, options)
                    .ok()
                    .and_then(|decoded| decoded.into_fixed().ok());
                (decoded.ok_or(Fallback::StoredBytes)?, 0)
            }
        }
    };
    let kernel = layout.kernel.as_ref();
    let convert = |(input, piece): &mut (usize, Output<'_>)| {
        let (first, len) = (*input - base, piece.len() / out_size);
        let input = decoded
            .get(first * in_size..(first + len) * in_size)
            .ok_or(Fallback::StoredBytes)?;
        piece.convert(kernel, input).map_err(|_| Fallback::Element)
    };
    let tasks = options
        .concurrent_target()
        .min(work.elements() / MIN_ELEMENTS_PER_TASK)
        .max(1);
    if tasks > 1 {
        let per_task = work.pieces.len().div_ceil(tasks);
        parallel::try_for_each(work.pieces.iter_mut().collect(), per_task, convert)
    } else {
        work.staggered().try_for_each(convert)
    }
}

/// The elements `span` of the stored chunk `encoded` (of `shape`) decoded through the layout's
/// stored codecs, in C order; `None` where a part is not worth it or cannot be had: no
/// compressor, a span of most of the chunk, a compressor that decodes no part, or Blosc parts that
/// would not start at an element (the whole chunk is then decoded).
///
/// # Errors
/// [`Fallback::StoredBytes`] where the part does not decode (or not to its size): zarrs then reads
/// the chunk, and reports what it finds.
fn span_of(
    layout: &Layout,
    encoded: &Bytes,
    shape: &[NonZeroU64],
    span: Range<usize>,
    options: &CodecOptions,
) -> Result<Option<Vec<u8>>, Fallback> {
    let compressors = layout.inner.bytes_to_bytes_codecs();
    let count = shape.iter().map(|n| n.get()).product::<u64>();
    let Some(size) = layout.stored.fixed_size() else {
        return Ok(None);
    };
    if compressors.is_empty() || !worth_a_part(span.len(), count) || span.end as u64 > count {
        return Ok(None);
    }
    // Each compressor's partial decoder, over the one after it (the stored bytes last).
    let mut representations = vec![BytesRepresentation::FixedSize(count * size as u64)];
    for codec in compressors {
        let last = representations.last().expect("one representation");
        representations.push(codec.encoded_representation(last));
    }
    let mut handle: Arc<dyn BytesPartialDecoderTraits> = Arc::new(Held(encoded.clone()));
    for (codec, decoded) in compressors.iter().zip(&representations).rev() {
        // Blosc decodes a part from a multiple of its own element size (its header's type size)
        // on, so a part of elements that do not start at its boundaries would come out shifted.
        if layout.blosc_first && Arc::ptr_eq(codec, &compressors[0]) {
            let header = ByteRange::FromStart(0, Some(blosc::HEADER as u64));
            let header = handle
                .partial_decode(header, options)
                .map_err(|_| Fallback::StoredBytes)?
                .ok_or(Fallback::StoredBytes)?;
            let type_size = blosc::type_size(&header).ok_or(Fallback::StoredBytes)?;
            if !size.is_multiple_of(type_size) {
                return Ok(None);
            }
        }
        handle = Arc::clone(codec)
            .partial_decoder(handle, decoded, options)
            .map_err(|_| Fallback::StoredBytes)?;
    }
    if !handle.supports_partial_decode() {
        return Ok(None);
    }
    let range = ByteRange::FromStart((span.start * size) as u64, Some((span.len() * size) as u64));
    let raw = match handle.partial_decode(range, options) {
        Ok(Some(part)) if part.len() == span.len() * size => part.into_owned(),
        _ => return Err(Fallback::StoredBytes),
    };
    elements(layout, Cow::Owned(raw), options).map(|part| Some(part.into_owned()))
}

/// `raw`, stored elements as the `bytes` codec wrote them, decoded by it (into native order).
///
/// # Errors
/// [`Fallback::StoredBytes`] where they are not whole elements or fail to decode.
fn elements<'a>(
    layout: &Layout,
    raw: Cow<'a, [u8]>,
    options: &CodecOptions,
) -> Result<Cow<'a, [u8]>, Fallback> {
    let size = layout.stored.fixed_size().unwrap_or(0);
    let shape = (size != 0 && raw.len().is_multiple_of(size))
        .then(|| NonZeroU64::new((raw.len() / size) as u64))
        .flatten()
        .ok_or(Fallback::StoredBytes)?;
    let (stored, fill) = (&layout.stored, &layout.stored_fill);
    let decoded =
        (layout.inner.array_to_bytes_codec()).decode(raw, &[shape], stored, fill, options);
    decoded
        .ok()
        .and_then(|d| d.into_fixed().ok())
        .ok_or(Fallback::StoredBytes)
}

/// A chunk's stored bytes as the input of the compressors' partial decoders, which lend the
/// ranges asked for rather than copying them (zarrs' own inputs copy them, the whole chunk for
/// each part a compressor decodes).
struct Held(Bytes);

impl BytesPartialDecoderTraits for Held {
    fn exists(&self) -> Result<bool, StorageError> {
        Ok(true)
    }

    fn size_held(&self) -> usize {
        self.0.len()
    }

    fn partial_decode_many(
        &self,
        decoded_regions: ByteRangeIterator,
        _options: &CodecOptions,
    ) -> Result<Option<Vec<ArrayBytesRaw<'_>>>, CodecError> {
        let len = self.0.len() as u64;
        // A bound beyond a usize lies beyond the held bytes: the range is then invalid.
        let to_usize = |n: u64| usize::try_from(n).ok();
        decoded_regions
            .map(|range| {
                let bounds = match range {
                    ByteRange::FromStart(start, None) => Some((start, len)),
                    ByteRange::FromStart(start, Some(n)) => Some((start, start.saturating_add(n))),
                    ByteRange::Suffix(n) => len.checked_sub(n).map(|start| (start, len)),
                };
                let at = bounds.and_then(|(start, end)| Some(to_usize(start)?..to_usize(end)?));
                let part = at.and_then(|range| self.0.get(range));
                part.map(Cow::Borrowed)
                    .ok_or_else(|| InvalidByteRangeError::new(range, len).into())
            })
            .collect::<Result<_, CodecError>>()
            .map(Some)
    }

    fn supports_partial_decode(&self) -> bool {
        true
    }
}
