//! A part of a stored chunk decoded without the rest, where its compressor can: Blosc
//! decompresses only the blocks holding the elements asked for, so a window of a large chunk
//! costs what the window's rows cost, and the rows are split over threads.

use std::borrow::Cow;
use std::num::NonZeroU64;
use std::ops::Range;
use std::sync::Arc;

use zarrs::array::codec::api::{BytesPartialDecoderTraits, BytesRepresentation};
use zarrs::array::{ArrayBytesRaw, CodecError, CodecOptions};
use zarrs::storage::byte_range::{ByteRange, ByteRangeIterator, InvalidByteRangeError};
use zarrs::storage::{Bytes, StorageError};

use super::Plan;
use crate::parallel;

/// The fewest bytes a thread decompresses on its own.
const MIN_BYTES_PER_TASK: usize = 256 << 10;

/// The elements `span` of the stored chunk `encoded` (of `chunk_shape`) decoded through the
/// plan's stored codecs, in C order; `None` where they would decode the whole chunk to give them
/// (no compressor, or one that cannot decode a part, or a span of most of the chunk), or fail to
/// decode (the whole chunk is then decoded, and fails as zarrs' read fails).
pub(super) fn decode_span(
    plan: &Plan,
    encoded: &Bytes,
    chunk_shape: &[NonZeroU64],
    span: Range<usize>,
    options: &CodecOptions,
) -> Option<Vec<u8>> {
    let compressors = plan.inner.bytes_to_bytes_codecs();
    let elements = usize::try_from(chunk_shape.iter().map(|n| n.get()).product::<u64>()).ok()?;
    if compressors.is_empty() || !worth_a_part(span.len(), elements) || span.end > elements {
        return None;
    }
    let size = plan.stored.fixed_size()?;
    // Each compressor's partial decoder, over the one after it (the stored bytes last).
    let mut representations = vec![BytesRepresentation::FixedSize((elements * size) as u64)];
    for codec in compressors {
        let last = representations.last().expect("one representation");
        representations.push(codec.encoded_representation(last));
    }
    let mut handle: Arc<dyn BytesPartialDecoderTraits> = Arc::new(Stored(encoded.clone()));
    for (codec, decoded) in compressors.iter().zip(&representations).rev() {
        if plan.blosc_first && Arc::ptr_eq(codec, &compressors[0]) {
            blosc_aligned(&handle, size, options)?;
        }
        handle = Arc::clone(codec)
            .partial_decoder(handle, decoded, options)
            .ok()?;
    }
    if !handle.supports_partial_decode() {
        return None;
    }
    let bytes = span.len() * size;
    let tasks = options
        .concurrent_target()
        .min(bytes / MIN_BYTES_PER_TASK)
        .max(1);
    let per_task = span.len().div_ceil(tasks);
    let part = |start: usize| {
        let len = per_task.min(span.end - start);
        let range = ByteRange::FromStart((start * size) as u64, Some((len * size) as u64));
        let part = handle.partial_decode(range, options).ok()??;
        (part.len() == len * size).then_some(part)
    };
    let starts = span.clone().step_by(per_task);
    let parts: Vec<Cow<'_, [u8]>> = if tasks > 1 {
        parallel::map(starts.collect(), 1, part)
            .into_iter()
            .collect::<Option<_>>()?
    } else {
        starts.map(part).collect::<Option<_>>()?
    };
    let raw = if parts.len() == 1 {
        parts.into_iter().next().expect("one part").into_owned()
    } else {
        parts.concat()
    };
    decode_elements(plan, Cow::Owned(raw), options).map(Cow::into_owned)
}

/// `raw`, stored elements as the `bytes` codec wrote them, decoded by it (into native order);
/// `None` where they are not whole elements or fail to decode.
pub(super) fn decode_elements<'a>(
    plan: &Plan,
    raw: Cow<'a, [u8]>,
    options: &CodecOptions,
) -> Option<Cow<'a, [u8]>> {
    let size = plan.stored.fixed_size()?;
    if size == 0 || !raw.len().is_multiple_of(size) {
        return None;
    }
    let shape = [NonZeroU64::new((raw.len() / size) as u64)?];
    let decoded = plan
        .inner
        .array_to_bytes_codec()
        .decode(raw, &shape, &plan.stored, &plan.stored_fill, options)
        .ok()?;
    decoded.into_fixed().ok()
}

/// `Some` where Blosc decodes parts of the chunk `input` (the Blosc buffer) exactly as asked for
/// when they are of whole elements of `size` bytes: Blosc starts a part at the multiple of its
/// own element size (its header's type size) at or below the start asked for, so a part of
/// elements that do not start at its element boundaries would come out shifted.
fn blosc_aligned(
    input: &Arc<dyn BytesPartialDecoderTraits>,
    size: usize,
    options: &CodecOptions,
) -> Option<()> {
    let header = input
        .partial_decode(
            ByteRange::FromStart(0, Some(super::blocks::HEADER as u64)),
            options,
        )
        .ok()??;
    size.is_multiple_of(super::blocks::type_size(&header)?)
        .then_some(())
}

/// Where the elements `span` of a chunk of `elements` elements of `size` bytes lie in it, where
/// the chunk is stored by the `bytes` codec alone (its elements one after the other, in C order)
/// and they are fewer than the chunk's: the first byte and the number of bytes, the part of the
/// chunk a read of them fetches.
pub(super) fn elements_part(size: usize, elements: u64, span: &Range<usize>) -> Option<(u64, u64)> {
    let (start, len) = (span.start as u64, span.len() as u64);
    let size = size as u64;
    (start.checked_add(len)? <= elements && len < elements)
        .then(|| Some((start.checked_mul(size)?, len.checked_mul(size)?)))
        .flatten()
}

/// Whether `len` elements of a chunk of `elements` are few enough to be decoded without the rest
/// (at most half of them: decoding a part costs more per element than decoding the whole).
pub(super) fn worth_a_part(len: usize, elements: usize) -> bool {
    len * 2 <= elements
}

/// A chunk's stored bytes as the input of the compressors' partial decoders, which lend the
/// ranges asked for rather than copying them (zarrs' own inputs copy them, the whole chunk for
/// each part a compressor decodes).
struct Stored(Bytes);

impl BytesPartialDecoderTraits for Stored {
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
        decoded_regions
            .map(|range| {
                let bounds = match range {
                    ByteRange::FromStart(start, None) => Some((start, len)),
                    ByteRange::FromStart(start, Some(n)) => Some((start, start.saturating_add(n))),
                    ByteRange::Suffix(n) => len.checked_sub(n).map(|start| (start, len)),
                };
                let part = bounds.and_then(|(start, end)| {
                    let start = usize::try_from(start).ok()?;
                    self.0.get(start..usize::try_from(end).ok()?)
                });
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
