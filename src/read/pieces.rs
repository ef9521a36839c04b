//! A read split by chunk: the pieces of the output each chunk fills, and how a chunk fills them.
//!
//! The runs of all the chunks a read touches partition its output. They are cut from the output
//! with `split_at_mut`, so that each chunk owns its pieces and the chunks can be filled on
//! different threads without sharing anything.

use std::borrow::Cow;
use std::mem::MaybeUninit;

use rayon::prelude::*;
use zarrs::array::codec::api::ArrayToBytesCodecTraits;
use zarrs::array::{Array, ArrayError, ArrayIndices, ArraySubset, CodecOptions};

use super::Plan;
use super::runs::runs;
use crate::error::fault::ElementFault;
use crate::kernel::driver::{self, MIN_ELEMENTS_PER_TASK, write_uninit};
use crate::kernel::{BLOCK, Kernel};

/// One chunk's share of a read.
pub(super) struct ChunkWork<'o> {
    pub(super) indices: ArrayIndices,
    /// The chunk's region within the array.
    pub(super) chunk: ArraySubset,
    /// The region the chunk shares with the read.
    pub(super) overlap: ArraySubset,
    /// The runs of the overlap in C order: the first element of each in the chunk, and the piece
    /// of the output it fills.
    pub(super) pieces: Vec<(usize, &'o mut [MaybeUninit<u8>])>,
}

/// How a chunk was filled.
pub(super) enum Filled {
    /// Every piece is written.
    Done,
    /// The chunk could not be decoded here (an element the kernels reject, a chunk of the wrong
    /// size): zarrs must read it, and report it with its own error if it fails too.
    ThroughZarrs,
}

/// Splits `output` (the elements of `subset` in C order, `out_size` bytes each) into the pieces
/// of every chunk of `array` that `subset` touches.
///
/// # Errors
/// Returns an [`ArrayError`] if the subset is not within the array's chunk grid.
///
/// # Panics
/// If the runs of the chunks do not partition `output` exactly (they always do).
pub(super) fn split<'o, TStorage: ?Sized>(
    array: &Array<TStorage>,
    subset: &ArraySubset,
    output: &'o mut [MaybeUninit<u8>],
    out_size: usize,
) -> Result<Vec<ChunkWork<'o>>, ArrayError> {
    let chunks = array
        .chunks_in_array_subset(subset)?
        .ok_or_else(|| ArrayError::InvalidArraySubset(subset.clone(), array.shape().to_vec()))?;
    let mut works = Vec::new();
    // Every run: its first element in the output and its length, the chunk, its first element
    // in the chunk.
    let mut all = Vec::new();
    for indices in &chunks.indices() {
        let chunk = array.chunk_subset(&indices)?;
        let overlap = chunk.overlap(subset)?;
        let chunk_runs = runs(
            (overlap.start(), overlap.shape()),
            (chunk.start(), chunk.shape()),
            (subset.start(), subset.shape()),
        );
        all.extend(
            chunk_runs
                .iter()
                .map(|&(input, out, len)| (out, len, works.len(), input)),
        );
        works.push(ChunkWork {
            indices: indices.to_vec(),
            chunk,
            overlap,
            pieces: Vec::with_capacity(chunk_runs.len()),
        });
    }
    all.sort_unstable_by_key(|&(out, ..)| out);
    let mut rest = output;
    let mut at = 0;
    for (out, len, work, input) in all {
        assert_eq!(out, at, "the runs of the chunks partition the output");
        let (piece, tail) = std::mem::take(&mut rest).split_at_mut(len * out_size);
        works[work].pieces.push((input, piece));
        rest = tail;
        at += len;
    }
    assert!(rest.is_empty(), "the runs of the chunks cover the output");
    Ok(works)
}

impl ChunkWork<'_> {
    /// The elements this chunk fills.
    fn elements(&self, out_size: usize) -> usize {
        self.pieces
            .iter()
            .map(|(_, piece)| piece.len())
            .sum::<usize>()
            / out_size
    }

    /// Fills every piece with `fill` (the bytes of one element).
    pub(super) fn fill_with(&mut self, fill: &[u8]) {
        // A block of fill values, copied run by run.
        let block: Vec<u8> = fill.repeat(BLOCK);
        for (_, piece) in &mut self.pieces {
            for part in piece.chunks_mut(block.len()) {
                write_uninit(part, &block[..part.len()]);
            }
        }
    }

    /// Fills the pieces from `bytes`, the overlap's elements in C order (as zarrs reads them).
    ///
    /// # Panics
    /// If `bytes` does not hold exactly the pieces' bytes.
    pub(super) fn copy_from(&mut self, bytes: &[u8]) {
        let mut at = 0;
        for (_, piece) in &mut self.pieces {
            write_uninit(piece, &bytes[at..at + piece.len()]);
            at += piece.len();
        }
        assert_eq!(at, bytes.len(), "zarrs read the overlap's elements");
    }

    /// Decodes the chunk's stored bytes `encoded` and fills the pieces through the plan's kernel,
    /// splitting the pieces over threads where `options` allow and the chunk is large.
    pub(super) fn decode<TStorage: ?Sized>(
        &mut self,
        plan: &Plan,
        array: &Array<TStorage>,
        encoded: Vec<u8>,
        options: &CodecOptions,
    ) -> Result<Filled, ArrayError> {
        let chunk_shape = array.chunk_shape(&self.indices)?;
        let decoded = plan
            .inner
            .decode(
                Cow::Owned(encoded),
                &chunk_shape,
                &plan.stored,
                &plan.stored_fill,
                options,
            )
            .ok()
            .and_then(|bytes| bytes.into_fixed().ok());
        let Some(decoded) = decoded else {
            return Ok(Filled::ThroughZarrs);
        };
        let kernel = plan.kernel.as_ref();
        let (in_size, out_size) = kernel.sizes();
        let elements = self.elements(out_size);
        let convert = |(input, piece): &mut (usize, &mut [MaybeUninit<u8>])| {
            let len = piece.len() / out_size;
            let input = decoded.get(*input * in_size..(*input + len) * in_size);
            input.map_or(Err(()), |input| {
                convert_run(kernel, input, piece).map_err(|_| ())
            })
        };
        let tasks = options
            .concurrent_target()
            .min(elements / MIN_ELEMENTS_PER_TASK)
            .max(1);
        let converted = if tasks > 1 {
            let per_task = self.pieces.len().div_ceil(tasks);
            self.pieces
                .par_iter_mut()
                .with_min_len(per_task)
                .try_for_each(convert)
        } else {
            self.pieces.iter_mut().try_for_each(convert)
        };
        Ok(match converted {
            Ok(()) => Filled::Done,
            Err(()) => Filled::ThroughZarrs,
        })
    }

    /// The overlap relative to the chunk, as zarrs reads a chunk subset.
    pub(super) fn within(&self) -> Result<ArraySubset, ArrayError> {
        Ok(self.overlap.relative_to(self.chunk.start())?)
    }
}

/// Converts one run: straight through the kernel, a block at a time, where both sides are aligned
/// (the usual case, and the cheapest for short runs), else through the driver.
fn convert_run(
    kernel: &dyn Kernel,
    input: &[u8],
    output: &mut [MaybeUninit<u8>],
) -> Result<(), ElementFault> {
    let (in_size, out_size) = kernel.sizes();
    let aligned =
        input.as_ptr().align_offset(in_size) == 0 && output.as_ptr().align_offset(out_size) == 0;
    if !aligned {
        return driver::apply_uninit(kernel, input, output);
    }
    let blocks = input
        .chunks(BLOCK * in_size)
        .zip(output.chunks_mut(BLOCK * out_size));
    for (i, (input, output)) in blocks.enumerate() {
        kernel
            .convert(input, output)
            .map_err(|fault| fault.offset(i * BLOCK))?;
    }
    Ok(())
}
