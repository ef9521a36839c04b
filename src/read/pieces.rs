//! One chunk's share of a read: the pieces of the output it fills ([`super::split`] cuts them),
//! and how it fills them.

use std::borrow::Cow;
use std::num::NonZeroU64;

use zarrs::array::codec::api::ArrayToBytesCodecTraits;
use zarrs::array::{Array, ArrayBytes, ArrayError, ArrayIndices, ArraySubset, CodecOptions};
use zarrs::storage::byte_range::ByteRange;
use zarrs::storage::{Bytes, ReadableStorageTraits};

use super::Plan;
use super::runs::runs;
use super::span::{decode_elements, decode_span, elements_part};
use crate::kernel::BLOCK;
use crate::kernel::driver::MIN_ELEMENTS_PER_TASK;
use crate::kernel::driver::Output;
use crate::parallel;

/// One chunk's share of a read.
pub(super) struct ChunkWork<'o> {
    pub(super) indices: ArrayIndices,
    /// The chunk's region within the array.
    pub(super) chunk: ArraySubset,
    /// The region the chunk shares with the read.
    pub(super) overlap: ArraySubset,
    /// The runs of the overlap in C order: the first element of each in the chunk, and the piece
    /// of the output it fills.
    pub(super) pieces: Vec<(usize, Output<'o>)>,
    /// The piece at which a fill on one thread starts, going on to the last and then from the
    /// first ([`super::split::stagger`]).
    pub(super) start: usize,
}

/// What the stored bytes fetched for a chunk hold.
#[derive(Clone, Copy)]
pub(super) enum Stored {
    /// The whole stored chunk.
    Whole,
    /// The Blosc blocks holding the pieces' elements, in a buffer the size of the stored chunk
    /// ([`super::blocks`]).
    Blocks,
    /// The stored elements from this one (of the chunk, in C order) to the last the pieces
    /// need, of a chunk stored by the `bytes` codec alone.
    Elements(usize),
}

/// How a chunk was filled.
pub(super) enum Filled {
    /// Every piece is written.
    Done,
    /// The chunk could not be decoded here (an element the kernels reject, a chunk of the wrong
    /// size): zarrs must read it, and report it with its own error if it fails too.
    ThroughZarrs,
}

impl<'o> ChunkWork<'o> {
    /// The elements this chunk fills (those of its overlap with the read, which its pieces
    /// partition).
    pub(super) fn elements(&self) -> usize {
        usize::try_from(self.overlap.num_elements()).expect("the output holds them")
    }

    /// The elements of the chunk from the first to the last the pieces need: the pieces are the
    /// chunk's runs in its own C order ([`super::split`]).
    pub(super) fn span(&self, out_size: usize) -> std::ops::Range<usize> {
        match (self.pieces.first(), self.pieces.last()) {
            (Some((first, _)), Some((last, piece))) => *first..last + piece.len() / out_size,
            _ => 0..0,
        }
    }

    /// The part of its chunk (of `chunk_shape`) that holds the pieces' elements, and the first
    /// of them, where the plan's chunks are stored by the `bytes` codec alone and the pieces need
    /// fewer elements than the chunk's.
    pub(super) fn stored_part(
        &self,
        plan: &Plan,
        chunk_shape: &[NonZeroU64],
    ) -> Option<(ByteRange, usize)> {
        if plan.compressed() {
            return None;
        }
        let span = self.span(plan.kernel.sizes().1);
        let elements = chunk_shape.iter().map(|n| n.get()).product();
        let (start, len) = elements_part(plan.stored.fixed_size()?, elements, &span)?;
        Some((ByteRange::FromStart(start, Some(len)), span.start))
    }

    /// Fills every piece with `fill` (the bytes of one element).
    pub(super) fn fill_with(&mut self, fill: &[u8]) {
        // A block of fill values, copied run by run.
        let block: Vec<u8> = fill.repeat(BLOCK);
        for (_, piece) in self.staggered() {
            piece.write_repeating(&block);
        }
    }

    /// The pieces from [`Self::start`] on, then those before it.
    fn staggered(&mut self) -> impl Iterator<Item = &mut (usize, Output<'o>)> {
        let start = self.start.min(self.pieces.len());
        let (before, after) = self.pieces.split_at_mut(start);
        after.iter_mut().chain(before)
    }

    /// Fills the pieces from `bytes`, the overlap's elements in C order (as zarrs reads them).
    ///
    /// # Panics
    /// If `bytes` does not hold exactly the pieces' bytes.
    pub(super) fn copy_from(&mut self, bytes: &[u8]) {
        let mut at = 0;
        for (_, piece) in &mut self.pieces {
            let len = piece.len();
            piece.write(&bytes[at..at + len]);
            at += len;
        }
        assert_eq!(at, bytes.len(), "zarrs read the overlap's elements");
    }

    /// Decodes `encoded`, stored bytes of a chunk of `chunk_shape` (`stored` says which), and
    /// fills the pieces through the plan's kernel, splitting the pieces over threads where
    /// `options` allow and the chunk is large. Where a part of the chunk cannot be decoded
    /// without the rest, zarrs reads the chunk.
    pub(super) fn decode(
        &mut self,
        plan: &Plan,
        chunk_shape: &[NonZeroU64],
        encoded: &Bytes,
        stored: Stored,
        options: &CodecOptions,
    ) -> Filled {
        let (in_size, out_size) = plan.kernel.sizes();
        let part = match stored {
            Stored::Elements(first) => decode_elements(plan, Cow::Borrowed(encoded), options)
                .map(|decoded| (decoded, first)),
            // Only the elements between the first and the last the pieces need, where the
            // chunk's compressor decodes a part for less.
            Stored::Whole | Stored::Blocks if plan.compressed() => {
                let span = self.span(out_size);
                decode_span(plan, encoded, chunk_shape, span.clone(), options)
                    .map(|decoded| (Cow::Owned(decoded), span.start))
            }
            Stored::Whole | Stored::Blocks => None,
        };
        let (decoded, base): (Cow<'_, [u8]>, usize) = match (part, stored) {
            (Some(part), _) => part,
            (None, Stored::Whole) => {
                let decoded = plan
                    .inner
                    .decode(
                        Cow::Borrowed(encoded),
                        chunk_shape,
                        &plan.stored,
                        &plan.stored_fill,
                        options,
                    )
                    .ok()
                    .and_then(|bytes| bytes.into_fixed().ok());
                let Some(decoded) = decoded else {
                    return Filled::ThroughZarrs;
                };
                (decoded, 0)
            }
            (None, Stored::Blocks | Stored::Elements(_)) => return Filled::ThroughZarrs,
        };
        let kernel = plan.kernel.as_ref();
        let elements = self.elements();
        let convert = |(input, piece): &mut (usize, Output<'_>)| {
            let (first, len) = (*input - base, piece.len() / out_size);
            let input = decoded.get(first * in_size..(first + len) * in_size);
            input.map_or(Err(()), |input| {
                piece.convert(kernel, input).map_err(|_| ())
            })
        };
        let tasks = options
            .concurrent_target()
            .min(elements / MIN_ELEMENTS_PER_TASK)
            .max(1);
        let converted = if tasks > 1 {
            let per_task = self.pieces.len().div_ceil(tasks);
            parallel::try_for_each(self.pieces.iter_mut().collect(), per_task, convert)
        } else {
            self.staggered().try_for_each(convert)
        };
        match converted {
            Ok(()) => Filled::Done,
            Err(()) => Filled::ThroughZarrs,
        }
    }

    /// Fills the pieces through zarrs, which reads `region` (this chunk's overlap with the read
    /// or, for an inner chunk of a shard, the shard's) from the chunk at `chunk` of the array's
    /// own grid, as zarrs' own read of the subset reads it: zarrs reports the error where it fails
    /// too.
    pub(super) fn read_through_zarrs<TStorage: ?Sized + ReadableStorageTraits + 'static>(
        &mut self,
        array: &Array<TStorage>,
        chunk: &[u64],
        region: &ArraySubset,
        options: &CodecOptions,
    ) -> Result<(), ArrayError> {
        let bytes: ArrayBytes<'static> = match zarrs_read(array, chunk, region)? {
            None => array.retrieve_chunk_opt(chunk, options)?,
            Some(within) => array.retrieve_chunk_subset_opt(chunk, &within, options)?,
        };
        self.copy_from_region(region, &bytes.into_fixed()?);
        Ok(())
    }

    /// Fills the pieces from `bytes`, the elements of `region` (which holds the overlap) in C
    /// order.
    pub(super) fn copy_from_region(&mut self, region: &ArraySubset, bytes: &[u8]) {
        if *region == self.overlap {
            self.copy_from(bytes);
            return;
        }
        let size = bytes.len() / usize::try_from(region.num_elements()).unwrap_or(1).max(1);
        let (start, shape) = (self.overlap.start(), self.overlap.shape());
        let mut part = vec![0; self.elements() * size];
        for (from, to, len) in runs(
            (start, shape),
            (region.start(), region.shape()),
            (start, shape),
        ) {
            part[to * size..(to + len) * size]
                .copy_from_slice(&bytes[from * size..(from + len) * size]);
        }
        self.copy_from(&part);
    }
}

/// How zarrs' own read of a subset reads `region` of the chunk at `chunk`: `None` where it is the
/// whole chunk (decoded in one go), else the region within the chunk (read through zarrs'
/// partial decoders, which read only the bytes they need).
///
/// # Errors
/// Returns an [`ArrayError`] if the chunk is not in the array's grid.
pub(super) fn zarrs_read<TStorage: ?Sized>(
    array: &Array<TStorage>,
    chunk: &[u64],
    region: &ArraySubset,
) -> Result<Option<ArraySubset>, ArrayError> {
    let whole = array.chunk_subset(chunk)?;
    Ok(if *region == whole {
        None
    } else {
        Some(region.relative_to(whole.start())?)
    })
}
