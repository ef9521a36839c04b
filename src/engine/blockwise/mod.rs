//! Feeds the bytes of a chunk to a [`Kernel`], block by block.
//!
//! - Owned input whose output is not wider is converted in place: at equal width where it is when
//!   the kernel can, else block by block through a staged copy where the output of a block would
//!   overwrite its own input.
//! - Otherwise the output goes to one new buffer that is never zero-filled: each block is
//!   converted straight into the buffer's spare capacity (the kernels write every output element),
//!   which becomes the vector's contents only once every block succeeded (see
//!   [`buffer`](super::buffer)).
//! - Borrowed input is read where it is; nothing assumes alignment (misaligned blocks pass
//!   through a staging block).
//! - Large chunks are split over rayon threads when asked for.
//!
//! Nothing here is generic: the driver is compiled once for every kernel.

use std::borrow::Cow;
use std::mem::MaybeUninit;

mod output;

pub(crate) use output::Output;

use super::{BLOCK, Kernel};
use crate::numeric::fault::ElementFault;
use crate::parallel;

/// Fewest elements worth giving to another thread.
#[cfg(not(miri))]
pub(crate) const MIN_ELEMENTS_PER_TASK: usize = 1 << 17;
/// Under Miri, tasks of 512 elements, so that the tests split chunks over threads in little time.
#[cfg(miri)]
pub(crate) const MIN_ELEMENTS_PER_TASK: usize = 1 << 9;

/// A block of any element type (as `u64`s, aligned for all of them), allocated only when first
/// used (most calls never need one), as large as that use needs, and never zeroed: it is written
/// before it is read.
#[derive(Default)]
struct Stage(Box<[MaybeUninit<u64>]>);

impl Stage {
    /// `len` bytes not yet written.
    fn slots(&mut self, len: usize) -> &mut [MaybeUninit<u8>] {
        let words = len.div_ceil(size_of::<u64>());
        if self.0.len() < words {
            self.0 = Box::new_uninit_slice(words);
        }
        let slots: &mut [MaybeUninit<u64>] = &mut self.0;
        // SAFETY: the same memory as bytes, borrowed mutably for as long as `self`; bytes have no
        // alignment requirement and `MaybeUninit<u8>` may hold anything; `len` bytes fit in
        // `words` words.
        unsafe { std::slice::from_raw_parts_mut(slots.as_mut_ptr().cast(), len) }
    }

    /// A copy of `source`.
    fn copy(&mut self, source: &[u8]) -> &mut [u8] {
        let slots = self.slots(source.len());
        write_uninit(slots, source);
        // SAFETY: every byte was just written.
        unsafe { super::assume_init(slots) }
    }

    /// The output of `kernel` for `input`, converted here.
    fn convert(&mut self, kernel: &dyn Kernel, input: &[u8]) -> Result<&mut [u8], ElementFault> {
        let (in_size, out_size) = kernel.sizes();
        let slots = self.slots(input.len() / in_size * out_size);
        kernel.convert(input, slots)?;
        // SAFETY: a kernel that succeeds writes every output element (`Kernel`'s contract).
        Ok(unsafe { super::assume_init(slots) })
    }
}

/// Converts the elements in `bytes` (native-endian elements of the kernel's input type; a whole
/// number of them), using at most `concurrency` threads.
///
/// # Errors
/// Returns the first element without an acceptable result; nothing is returned then.
pub(crate) fn apply<'a>(
    kernel: &dyn Kernel,
    bytes: Cow<'a, [u8]>,
    concurrency: usize,
) -> Result<Cow<'a, [u8]>, ElementFault> {
    let (in_size, out_size) = kernel.sizes();
    let n = bytes.len() / in_size;
    let tasks = concurrency.min(n / MIN_ELEMENTS_PER_TASK).max(1);
    match bytes {
        // In place when owned and not wider; with several threads only at equal width, where
        // every thread's output covers exactly its own input.
        Cow::Owned(mut buffer) if out_size == in_size || (out_size < in_size && tasks == 1) => {
            in_place(kernel, &mut buffer[..n * in_size], tasks)?;
            buffer.truncate(n * out_size);
            Ok(Cow::Owned(buffer))
        }
        bytes => {
            let mut output = super::buffer::uninit(n * out_size);
            let spare = &mut output.spare_capacity_mut()[..n * out_size];
            convert_parts(kernel, &bytes[..n * in_size], spare, tasks)?;
            // SAFETY: `convert_parts` succeeded, so every one of the `n * out_size` bytes of the
            // spare capacity was written (each block writes its whole output there, or copies it).
            unsafe { output.set_len(n * out_size) };
            Ok(Cow::Owned(output))
        }
    }
}

/// Converts `input` into `output`, which the caller owns and may reuse (the output of each block
/// is written directly where it is aligned for the output type).
///
/// # Errors
/// Returns the first element without an acceptable result; `output` is then partly written.
pub(crate) fn apply_into(
    kernel: &dyn Kernel,
    input: &[u8],
    output: &mut [u8],
) -> Result<(), ElementFault> {
    convert_range(kernel, input, Output::Init(output))
}

/// Converts one element given by its bits; an encode whose result the codec's own decode rejects
/// gives that result, as a write against the whole chain may take it.
///
/// # Errors
/// Returns the element's fault otherwise.
pub(crate) fn one(
    kernel: &dyn Kernel,
    bits: u64,
    output_kind: crate::numeric::Kind,
) -> Result<u64, ElementFault> {
    let (in_size, out_size) = kernel.sizes();
    let mut input = [0u8; 8];
    let mut output = [0u8; 8];
    crate::numeric::write_element_bits(bits, &mut input[..in_size]);
    match apply_into(kernel, &input[..in_size], &mut output[..out_size]) {
        Ok(()) => Ok(crate::numeric::element_bits(&output[..out_size])),
        Err(fault) => match fault.fault.encoded {
            Some(encoded) => crate::numeric::encode(
                encoded,
                output_kind,
                crate::numeric::RoundingMode::NearestEven,
                None,
            )
            .map_err(|_| fault),
            None => Err(fault),
        },
    }
}

/// Splits the conversion of `input` into `output` over `tasks` threads (ranges of whole blocks).
fn convert_parts(
    kernel: &dyn Kernel,
    input: &[u8],
    output: &mut [MaybeUninit<u8>],
    tasks: usize,
) -> Result<(), ElementFault> {
    let (in_size, out_size) = kernel.sizes();
    if tasks == 1 {
        return convert_range(kernel, input, Output::Uninit(output));
    }
    let per_task = task_len(input.len() / in_size, tasks);
    let parts: Vec<_> = input
        .chunks(per_task * in_size)
        .zip(output.chunks_mut(per_task * out_size))
        .collect();
    let results = parallel::map(parts, 1, |(i, o)| {
        convert_range(kernel, i, Output::Uninit(o))
    });
    first_fault(results, per_task)
}

/// Splits `n` elements into ranges of whole blocks for `tasks` threads.
fn task_len(n: usize, tasks: usize) -> usize {
    n.div_ceil(tasks).next_multiple_of(BLOCK).max(BLOCK)
}

fn first_fault(
    results: Vec<Result<(), ElementFault>>,
    task_elements: usize,
) -> Result<(), ElementFault> {
    for (task, result) in results.into_iter().enumerate() {
        if let Err(fault) = result {
            return Err(fault.offset(task * task_elements));
        }
    }
    Ok(())
}

fn in_place(kernel: &dyn Kernel, buffer: &mut [u8], tasks: usize) -> Result<(), ElementFault> {
    let in_size = kernel.sizes().0;
    if tasks == 1 {
        return in_place_range(kernel, buffer);
    }
    let per_task = task_len(buffer.len() / in_size, tasks);
    let parts: Vec<_> = buffer.chunks_mut(per_task * in_size).collect();
    let results = parallel::map(parts, 1, |part| in_place_range(kernel, part));
    first_fault(results, per_task)
}

pub(super) fn is_aligned(bytes: &[u8], size: usize) -> bool {
    bytes.as_ptr().align_offset(size) == 0
}

pub(super) fn is_aligned_uninit(bytes: &[MaybeUninit<u8>], size: usize) -> bool {
    bytes.as_ptr().align_offset(size) == 0
}

/// Converts the elements of `input` into `output`, block by block.
pub(super) fn convert_range(
    kernel: &dyn Kernel,
    input: &[u8],
    mut output: Output<'_>,
) -> Result<(), ElementFault> {
    let (in_size, out_size) = kernel.sizes();
    let n = input.len() / in_size;
    let input_aligned = is_aligned(input, in_size);
    let (mut staged_in, mut staged_out) = (Stage::default(), Stage::default());
    let mut start = 0;
    while start < n {
        let len = BLOCK.min(n - start);
        let bytes_in = &input[start * in_size..(start + len) * in_size];
        let block: &[u8] = if input_aligned {
            bytes_in
        } else {
            staged_in.copy(bytes_in)
        };
        let out_range = start * out_size..(start + len) * out_size;
        let result = match &mut output {
            Output::Init(out) if is_aligned(&out[out_range.clone()], out_size) => {
                kernel.convert_init(block, &mut out[out_range])
            }
            Output::Uninit(out) if is_aligned_uninit(&out[out_range.clone()], out_size) => {
                kernel.convert(block, &mut out[out_range])
            }
            output => staged_out
                .convert(kernel, block)
                .map(|staged| match output {
                    Output::Init(out) => out[out_range].copy_from_slice(staged),
                    Output::Uninit(out) => write_uninit(&mut out[out_range], staged),
                }),
        };
        result.map_err(|f| f.offset(start))?;
        start += len;
    }
    Ok(())
}

/// Copies `source` into `target`, of the same length.
///
/// # Panics
/// If the lengths differ.
pub(crate) fn write_uninit(target: &mut [MaybeUninit<u8>], source: &[u8]) {
    assert_eq!(target.len(), source.len());
    // SAFETY: both slices have `source.len()` bytes, `target` is borrowed mutably so nothing else
    // aliases it, and `u8` has no invalid bit patterns; `MaybeUninit<u8>` has the layout of `u8`.
    unsafe {
        std::ptr::copy_nonoverlapping(source.as_ptr(), target.as_mut_ptr().cast(), source.len());
    }
}

/// Converts the elements whose input bytes fill `buffer`, writing the output from the beginning
/// of `buffer` (output elements are not wider than input elements).
///
/// The output of a block ends before the input of the next block begins, so blocks are converted
/// in order. At equal width, a block is converted where it is if the kernel can, else through a
/// staged copy. When narrowing, a block whose output overlaps its own input (the first ones) is
/// read through a staged copy; the others are read where they are.
fn in_place_range(kernel: &dyn Kernel, buffer: &mut [u8]) -> Result<(), ElementFault> {
    let (in_size, out_size) = kernel.sizes();
    let n = buffer.len() / in_size;
    let aligned = is_aligned(buffer, in_size);
    let mut staged = Stage::default();
    let mut start = 0;
    while start < n {
        let len = BLOCK.min(n - start);
        let (head, tail) = buffer.split_at_mut(start * in_size);
        let output_end = (start + len) * out_size;
        let result = if in_size == out_size {
            let data = &mut tail[..len * in_size];
            let done = if aligned {
                kernel.convert_in_place(data)
            } else {
                0
            };
            let rest = &mut data[done * in_size..];
            let input = staged.copy(rest);
            convert_aligned_input(kernel, input, rest).map_err(|f| f.offset(done))
        } else if aligned && output_end <= head.len() {
            let input = &tail[..len * in_size];
            convert_aligned_input(kernel, input, &mut head[start * out_size..output_end])
        } else {
            let input = staged.copy(&tail[..len * in_size]);
            convert_aligned_input(kernel, input, &mut buffer[start * out_size..output_end])
        };
        result.map_err(|f| f.offset(start))?;
        start += len;
    }
    Ok(())
}

/// Converts an aligned `input` block into `output` (written directly when aligned, else through
/// a staging block).
fn convert_aligned_input(
    kernel: &dyn Kernel,
    input: &[u8],
    output: &mut [u8],
) -> Result<(), ElementFault> {
    if input.is_empty() {
        return Ok(());
    }
    if is_aligned(output, kernel.sizes().1) {
        return kernel.convert_init(input, output);
    }
    let mut stage = Stage::default();
    output.copy_from_slice(stage.convert(kernel, input)?);
    Ok(())
}

#[cfg(test)]
mod tests;
