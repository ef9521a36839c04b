//! The adapter from chunk bytes to typed slices.
//!
//! A kernel converts a block of typed input elements into a block of typed output elements. This
//! module feeds it from the bytes of a chunk:
//! - owned input with an output that is not wider is converted in place: at equal width where it
//!   is when the kernel can, else block by block through a copy on the stack where the output of a
//!   block would overwrite its own input; otherwise the output goes to one new buffer (see
//!   [`buffer`](crate::buffer));
//! - nothing assumes alignment: misaligned bytes pass through the same stack blocks;
//! - large chunks are split over rayon threads when asked for.

use std::borrow::Cow;
use std::fmt::Debug;
use std::ops::Range;

use bytemuck::Zeroable;
use rayon::prelude::*;

use crate::error::ElementFault;
use crate::numeric::Storage;

/// Elements per block: large enough to amortise per-block work, small enough that a block of
/// input, output and flags stays in L1 cache.
pub(crate) const BLOCK: usize = 1024;

/// Chunks with more input bytes than this are assumed to come from memory rather than cache, and
/// each block asks for the next one to be loaded while it is converted.
const PREFETCH_MIN_BYTES: usize = 1 << 20;

/// Input bytes converted between two rounds of prefetching: a burst of prefetches for a whole
/// block would queue the block's own loads behind it.
const PIECE_BYTES: usize = 2048;

/// Fewest elements worth giving to another thread.
pub(crate) const MIN_ELEMENTS_PER_TASK: usize = 1 << 17;

/// The concurrency a chunk of `shape` can use: one thread per [`MIN_ELEMENTS_PER_TASK`] elements.
pub(crate) fn recommended_concurrency(
    shape: &[std::num::NonZeroU64],
) -> zarrs::array::codec::api::RecommendedConcurrency {
    use zarrs::array::codec::api::RecommendedConcurrency;
    let elements = shape.iter().map(|d| d.get()).product::<u64>();
    let tasks = usize::try_from(elements / MIN_ELEMENTS_PER_TASK as u64).unwrap_or(usize::MAX);
    if tasks > 1 {
        RecommendedConcurrency::new(1..tasks)
    } else {
        RecommendedConcurrency::new_maximum(1)
    }
}

/// A conversion of blocks of elements.
pub(crate) trait BlockKernel: Send + Sync + Debug + 'static {
    /// The input element storage.
    type In: Storage;
    /// The output element storage.
    type Out: Storage;

    /// Converts `input` into `output` (same length, at most [`BLOCK`]).
    ///
    /// # Errors
    /// Returns the first element without an acceptable result, indexed within the block.
    fn convert(&self, input: &[Self::In], output: &mut [Self::Out]) -> Result<(), ElementFault>;

    /// Converts a leading part of `data` in place, exactly as [`Self::convert`] would, for a
    /// kernel whose output type is its input type, and returns its length; the rest of `data` is
    /// left unchanged and goes through [`Self::convert`]. The default converts nothing.
    ///
    /// The part must end before any element that [`Self::convert`] rejects.
    fn convert_in_place(&self, data: &mut [Self::In]) -> usize {
        let _ = data;
        0
    }
}

/// A kernel applied to whole chunks, with its element types erased.
pub(crate) trait ChunkKernel: Send + Sync + Debug {
    /// Converts the elements in `bytes` (native-endian elements of the input type).
    ///
    /// `concurrency` is the most threads the conversion may use.
    ///
    /// # Errors
    /// Returns the first element without an acceptable result; nothing is returned then.
    fn apply<'a>(
        &self,
        bytes: Cow<'a, [u8]>,
        concurrency: usize,
    ) -> Result<Cow<'a, [u8]>, ElementFault>;

    /// The result of every element of `bytes` on its own: its output bits or its fault.
    #[cfg(test)]
    fn apply_each(&self, bytes: &[u8]) -> Vec<Result<u64, crate::error::FaultKind>>;
}

impl<K: BlockKernel> ChunkKernel for K {
    fn apply<'a>(
        &self,
        bytes: Cow<'a, [u8]>,
        concurrency: usize,
    ) -> Result<Cow<'a, [u8]>, ElementFault> {
        let in_size = size_of::<K::In>();
        let out_size = size_of::<K::Out>();
        let n = bytes.len() / in_size;
        let tasks = concurrency.min(n / MIN_ELEMENTS_PER_TASK).max(1);
        match bytes {
            // In place when owned and not wider; with several threads only at equal width, where
            // every thread's output covers exactly its own input.
            Cow::Owned(mut buffer) if out_size == in_size || (out_size < in_size && tasks == 1) => {
                convert_in_place(self, &mut buffer, n, tasks)?;
                buffer.truncate(n * out_size);
                Ok(Cow::Owned(buffer))
            }
            bytes => {
                let mut output = crate::buffer::zeroed(n * out_size);
                convert_to(self, &bytes, &mut output, n, tasks)?;
                Ok(Cow::Owned(output))
            }
        }
    }

    #[cfg(test)]
    fn apply_each(&self, bytes: &[u8]) -> Vec<Result<u64, crate::error::FaultKind>> {
        let input: Vec<K::In> = bytes
            .chunks_exact(size_of::<K::In>())
            .map(bytemuck::pod_read_unaligned)
            .collect();
        let mut results = Vec::with_capacity(input.len());
        for block in input.chunks(BLOCK) {
            let mut output = vec![K::Out::zeroed(); block.len()];
            let converted = self.convert(block, &mut output);
            // The in-place conversion, where the kernel offers one, must agree, stop before any
            // rejected element, and leave the rest unchanged.
            let mut data = block.to_vec();
            let done = self.convert_in_place(&mut data);
            if done > 0 {
                if let Err(fault) = &converted {
                    assert!(fault.index >= done, "in place took a rejected element");
                }
                let bits =
                    |values: &[K::In]| values.iter().map(|y| y.to_bits()).collect::<Vec<_>>();
                let expected: Vec<u64> = output[..done].iter().map(|y| y.to_bits()).collect();
                assert_eq!(
                    bits(&data[..done]),
                    expected,
                    "in place and convert disagree"
                );
                assert_eq!(
                    bits(&data[done..]),
                    bits(&block[done..]),
                    "in place changed the rest"
                );
            }
            if converted.is_ok() {
                results.extend(output.iter().map(|y| Ok(y.to_bits())));
            } else {
                for x in block {
                    let mut y = [K::Out::zeroed()];
                    let result = self.convert(std::slice::from_ref(x), &mut y);
                    results.push(result.map(|()| y[0].to_bits()).map_err(|fault| fault.kind));
                }
            }
        }
        results
    }
}

/// Splits `n` elements into `tasks` ranges of whole blocks.
fn task_len(n: usize, tasks: usize) -> usize {
    n.div_ceil(tasks).next_multiple_of(BLOCK).max(BLOCK)
}

fn first_fault(
    results: Vec<Result<(), ElementFault>>,
    task_elements: usize,
) -> Result<(), ElementFault> {
    for (task, result) in results.into_iter().enumerate() {
        if let Err(mut fault) = result {
            fault.index += task * task_elements;
            return Err(fault);
        }
    }
    Ok(())
}

fn convert_in_place<K: BlockKernel>(
    kernel: &K,
    buffer: &mut [u8],
    n: usize,
    tasks: usize,
) -> Result<(), ElementFault> {
    let in_size = size_of::<K::In>();
    if tasks == 1 {
        return convert_range_in_place(kernel, &mut buffer[..n * in_size], n);
    }
    let per_task = task_len(n, tasks);
    let results = buffer[..n * in_size]
        .par_chunks_mut(per_task * in_size)
        .map(|part| convert_range_in_place(kernel, part, part.len() / in_size))
        .collect();
    first_fault(results, per_task)
}

fn convert_to<K: BlockKernel>(
    kernel: &K,
    input: &[u8],
    output: &mut [u8],
    n: usize,
    tasks: usize,
) -> Result<(), ElementFault> {
    let (in_size, out_size) = (size_of::<K::In>(), size_of::<K::Out>());
    let input = &input[..n * in_size];
    if tasks == 1 {
        return convert_range(kernel, input, output);
    }
    let per_task = task_len(n, tasks);
    let results = input
        .par_chunks(per_task * in_size)
        .zip(output.par_chunks_mut(per_task * out_size))
        .map(|(i, o)| convert_range(kernel, i, o))
        .collect();
    first_fault(results, per_task)
}

/// Converts `n` elements whose input bytes start at the beginning of `buffer`, writing the output
/// from the beginning of `buffer` (output elements are not wider than input elements).
///
/// The output of a block ends before the input of the next block begins, so blocks are converted
/// in order. At equal width, a block is converted where it is if the kernel can, else through a
/// copy on the stack. When narrowing, a block whose output overlaps its own input (the first ones)
/// is read through a copy on the stack; the others are read where they are.
fn convert_range_in_place<K: BlockKernel>(
    kernel: &K,
    buffer: &mut [u8],
    n: usize,
) -> Result<(), ElementFault> {
    let (in_size, out_size) = (size_of::<K::In>(), size_of::<K::Out>());
    let mut staged = [K::In::zeroed(); BLOCK];
    let prefetch = n * in_size > PREFETCH_MIN_BYTES;
    let mut start = 0;
    while start < n {
        let len = BLOCK.min(n - start);
        let (head, tail) = buffer.split_at_mut(start * in_size);
        let ahead = next_block(prefetch, &tail[len * in_size..], len * in_size);
        let output_end = (start + len) * out_size;
        let result = if in_size == out_size {
            convert_block_in_place(kernel, &mut tail[..len * in_size], ahead)
        } else if let Ok(input) = bytemuck::try_cast_slice::<u8, K::In>(&tail[..len * in_size])
            && output_end <= head.len()
        {
            convert_block(
                kernel,
                input,
                &mut head[start * out_size..output_end],
                ahead,
            )
        } else {
            let input = &mut staged[..len];
            bytemuck::cast_slice_mut(input).copy_from_slice(&tail[..len * in_size]);
            convert_block(
                kernel,
                input,
                &mut buffer[start * out_size..output_end],
                ahead,
            )
        };
        result.map_err(|f| f.offset(start))?;
        start += len;
    }
    Ok(())
}

/// Converts the elements of `input` into `output`.
fn convert_range<K: BlockKernel>(
    kernel: &K,
    input: &[u8],
    output: &mut [u8],
) -> Result<(), ElementFault> {
    let (in_size, out_size) = (size_of::<K::In>(), size_of::<K::Out>());
    let n = input.len() / in_size;
    let typed = bytemuck::try_cast_slice::<u8, K::In>(input).ok();
    let mut staged = [K::In::zeroed(); BLOCK];
    let prefetch = input.len() > PREFETCH_MIN_BYTES;
    let mut start = 0;
    while start < n {
        let len = BLOCK.min(n - start);
        let block: &[K::In] = if let Some(typed) = typed {
            &typed[start..start + len]
        } else {
            // Misaligned input: copy the block to the stack.
            let block = &mut staged[..len];
            bytemuck::cast_slice_mut(block)
                .copy_from_slice(&input[start * in_size..(start + len) * in_size]);
            block
        };
        let ahead = next_block(prefetch, &input[(start + len) * in_size..], len * in_size);
        let out = &mut output[start * out_size..(start + len) * out_size];
        convert_block(kernel, block, out, ahead).map_err(|f| f.offset(start))?;
        start += len;
    }
    Ok(())
}

/// The addresses of the block after the current one, to load while the current one is converted:
/// `next` from its start, at most `len` bytes; empty when not prefetching.
fn next_block(prefetch: bool, next: &[u8], len: usize) -> Range<*const u8> {
    if prefetch {
        next[..len.min(next.len())].as_ptr_range()
    } else {
        next[..0].as_ptr_range()
    }
}

/// The elements of a block converted between two rounds of prefetching, and the byte range of
/// `ahead` to prefetch before each.
fn pieces<T>(
    ahead: &Range<*const u8>,
    elements: usize,
) -> impl Iterator<Item = (Range<usize>, Range<*const u8>)> {
    let ahead_len = ahead.end as usize - ahead.start as usize;
    let piece_len = if ahead_len == 0 {
        BLOCK
    } else {
        (PIECE_BYTES / size_of::<T>()).clamp(1, BLOCK)
    };
    let start = ahead.start;
    (0..elements).step_by(piece_len).map(move |first| {
        let last = (first + piece_len).min(elements);
        let from = (first * size_of::<T>()).min(ahead_len);
        let to = (last * size_of::<T>()).min(ahead_len);
        (
            first..last,
            start.wrapping_add(from)..start.wrapping_add(to),
        )
    })
}

/// Converts one block into output bytes, directly when they are aligned for the output type.
///
/// The block goes through the kernel in pieces, each preceded by the prefetch of the matching
/// part of `ahead`, so that the loads of the next block overlap the arithmetic of this one
/// rather than queueing in one burst.
fn convert_block<K: BlockKernel>(
    kernel: &K,
    input: &[K::In],
    output: &mut [u8],
    ahead: Range<*const u8>,
) -> Result<(), ElementFault> {
    if let Ok(out) = bytemuck::try_cast_slice_mut::<u8, K::Out>(output) {
        return convert_pieces(kernel, input, out, &ahead);
    }
    // Misaligned output: convert into a block on the stack, then copy.
    let mut staged = [K::Out::zeroed(); BLOCK];
    let out = &mut staged[..input.len()];
    convert_pieces(kernel, input, out, &ahead)?;
    output.copy_from_slice(bytemuck::cast_slice(out));
    Ok(())
}

/// Converts `input` into `output` in pieces, each preceded by the prefetch of the matching part
/// of `ahead`.
fn convert_pieces<K: BlockKernel>(
    kernel: &K,
    input: &[K::In],
    output: &mut [K::Out],
    ahead: &Range<*const u8>,
) -> Result<(), ElementFault> {
    for (range, next) in pieces::<K::In>(ahead, input.len()) {
        crate::simd::prefetch(next);
        let first = range.start;
        kernel
            .convert(&input[range.clone()], &mut output[range])
            .map_err(|f| f.offset(first))?;
    }
    Ok(())
}

/// Converts one block in place, input and output of equal width: as far as the kernel can where
/// it is (a single pass, which the hardware prefetcher follows unaided), the rest through a copy
/// on the stack, prefetching `ahead`.
fn convert_block_in_place<K: BlockKernel>(
    kernel: &K,
    data: &mut [u8],
    ahead: Range<*const u8>,
) -> Result<(), ElementFault> {
    let size = size_of::<K::In>();
    let done = bytemuck::try_cast_slice_mut::<u8, K::In>(data)
        .map_or(0, |typed| kernel.convert_in_place(typed));
    let rest = &mut data[done * size..];
    if rest.is_empty() {
        return Ok(());
    }
    let mut staged = [K::In::zeroed(); BLOCK];
    let input = &mut staged[..rest.len() / size];
    bytemuck::cast_slice_mut(input).copy_from_slice(rest);
    convert_block(kernel, input, rest, ahead).map_err(|f| f.offset(done))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::FaultKind;
    use crate::numeric::Value;

    /// Narrows u32 to u16, failing on values above `u16::MAX`.
    #[derive(Debug)]
    struct Narrow;
    impl BlockKernel for Narrow {
        type In = u32;
        type Out = u16;
        fn convert(&self, input: &[u32], output: &mut [u16]) -> Result<(), ElementFault> {
            for (i, (&x, y)) in input.iter().zip(output.iter_mut()).enumerate() {
                *y = u16::try_from(x).map_err(|_| ElementFault {
                    index: i,
                    kind: FaultKind::OutOfRange,
                    value: Value::from_u64(u64::from(x)),
                })?;
            }
            Ok(())
        }
    }

    /// Halves u32, failing on odd values; in place only up to the first value of a million or
    /// more (or the first odd one).
    #[derive(Debug)]
    struct Halve;
    impl BlockKernel for Halve {
        type In = u32;
        type Out = u32;
        fn convert(&self, input: &[u32], output: &mut [u32]) -> Result<(), ElementFault> {
            for (i, (&x, y)) in input.iter().zip(output.iter_mut()).enumerate() {
                if x % 2 == 1 {
                    return Err(ElementFault {
                        index: i,
                        kind: FaultKind::NotExact,
                        value: Value::from_u64(u64::from(x)),
                    });
                }
                *y = x / 2;
            }
            Ok(())
        }
        fn convert_in_place(&self, data: &mut [u32]) -> usize {
            let done = data
                .iter()
                .position(|&x| x >= 1_000_000 || x % 2 == 1)
                .unwrap_or(data.len());
            data[..done].iter_mut().for_each(|x| *x /= 2);
            done
        }
    }

    #[test]
    fn in_place_at_equal_width_finishes_what_the_kernel_leaves() {
        let n = 2 * MIN_ELEMENTS_PER_TASK + 100;
        let value = |i: usize| {
            u32::try_from(if i % 1000 == 7 {
                2_000_000 + 2 * i
            } else {
                2 * i
            })
            .unwrap()
        };
        let input = bytes((0..n).map(value));
        let expected = bytes((0..n).map(|i| value(i) / 2));
        for tasks in [1, 2] {
            let owned = Halve.apply(Cow::Owned(input.clone()), tasks).unwrap();
            assert_eq!(owned.as_ref(), expected.as_slice());
            let borrowed = Halve.apply(Cow::Borrowed(&input), tasks).unwrap();
            assert_eq!(borrowed.as_ref(), expected.as_slice());
        }
        for odd in [3, BLOCK + 8, n - 1] {
            let input = bytes((0..n).map(|i| if i == odd { 2_000_001 } else { value(i) }));
            for tasks in [1, 2] {
                let fault = Halve.apply(Cow::Owned(input.clone()), tasks).unwrap_err();
                assert_eq!(fault.index, odd);
                assert_eq!(fault.value, Value::from_u64(2_000_001));
            }
        }
    }

    fn bytes(values: impl Iterator<Item = u32>) -> Vec<u8> {
        values.flat_map(u32::to_ne_bytes).collect()
    }

    #[test]
    fn in_place_borrowed_misaligned_and_parallel_conversions_agree() {
        let n = 3 * MIN_ELEMENTS_PER_TASK + 17;
        let expected: Vec<u8> = (0..n)
            .flat_map(|i| u16::try_from(i % 65_536).unwrap().to_ne_bytes())
            .collect();
        let input = bytes((0..n).map(|i| u32::try_from(i % 65_536).unwrap()));
        for tasks in [1, 3] {
            let owned = Narrow.apply(Cow::Owned(input.clone()), tasks).unwrap();
            assert_eq!(owned.as_ref(), expected.as_slice());
            let borrowed = Narrow.apply(Cow::Borrowed(&input), tasks).unwrap();
            assert_eq!(borrowed.as_ref(), expected.as_slice());
        }
        let mut shifted = vec![0u8; input.len() + 1];
        shifted[1..].copy_from_slice(&input);
        let misaligned = Narrow.apply(Cow::Borrowed(&shifted[1..]), 1).unwrap();
        assert_eq!(misaligned.as_ref(), expected.as_slice());
    }

    #[test]
    fn large_chunks_recommend_one_thread_per_task_and_small_ones_one_thread() {
        let concurrency = |elements: u64| {
            recommended_concurrency(&[std::num::NonZeroU64::new(elements).unwrap()]).max()
        };
        assert_eq!(concurrency(65_536), 1);
        assert_eq!(concurrency(2 * MIN_ELEMENTS_PER_TASK as u64 - 1), 1);
        assert_eq!(concurrency(2 * MIN_ELEMENTS_PER_TASK as u64), 2);
        assert_eq!(concurrency(1 << 24), (1 << 24) / MIN_ELEMENTS_PER_TASK);
    }

    #[test]
    fn the_first_faulty_element_is_reported_by_its_chunk_index() {
        let n = 2 * MIN_ELEMENTS_PER_TASK;
        let bad = [n / 2 + 5, n - 1];
        let input = bytes((0..n).map(|i| if bad.contains(&i) { 70_000 } else { 1 }));
        for tasks in [1, 2] {
            let fault = Narrow.apply(Cow::Owned(input.clone()), tasks).unwrap_err();
            assert_eq!(fault.index, bad[0]);
            assert_eq!(fault.value, Value::from_u64(70_000));
        }
    }
}
