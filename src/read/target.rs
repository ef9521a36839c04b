//! The memory a fused read writes: the caller's elements (initialised) or a new vector's room
//! (not yet written), kept apart by type down to the kernels, as the driver keeps them.

use std::mem::MaybeUninit;

use crate::kernel::driver::write_uninit;
use crate::kernel::{BLOCK, Kernel, as_uninit};
use crate::numeric::fault::ElementFault;

/// Bytes of a fused read's output: the caller's (`Init`) or a new vector's room (`Uninit`).
#[derive(Debug)]
pub(super) enum Target<'o> {
    /// Initialised bytes, which stay initialised.
    Init(&'o mut [u8]),
    /// Bytes not yet written, every one of which a successful read writes.
    Uninit(&'o mut [MaybeUninit<u8>]),
}

impl Default for Target<'_> {
    fn default() -> Self {
        Self::Init(&mut [])
    }
}

impl Target<'_> {
    pub(super) fn len(&self) -> usize {
        match self {
            Self::Init(bytes) => bytes.len(),
            Self::Uninit(slots) => slots.len(),
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first `mid` bytes and the rest.
    ///
    /// # Panics
    /// If `mid` is beyond the end.
    pub(super) fn split_at(self, mid: usize) -> (Self, Self) {
        match self {
            Self::Init(bytes) => {
                let (head, tail) = bytes.split_at_mut(mid);
                (Self::Init(head), Self::Init(tail))
            }
            Self::Uninit(slots) => {
                let (head, tail) = slots.split_at_mut(mid);
                (Self::Uninit(head), Self::Uninit(tail))
            }
        }
    }

    /// Writes `source`, of the same length.
    ///
    /// # Panics
    /// If the lengths differ.
    pub(super) fn write(&mut self, source: &[u8]) {
        match self {
            Self::Init(bytes) => bytes.copy_from_slice(source),
            Self::Uninit(slots) => write_uninit(slots, source),
        }
    }

    /// Writes `block` over and over (its length a multiple of the element size), the last copy cut
    /// short where the bytes end.
    pub(super) fn write_repeating(&mut self, block: &[u8]) {
        match self {
            Self::Init(bytes) => {
                for part in bytes.chunks_mut(block.len()) {
                    part.copy_from_slice(&block[..part.len()]);
                }
            }
            Self::Uninit(slots) => {
                for part in slots.chunks_mut(block.len()) {
                    write_uninit(part, &block[..part.len()]);
                }
            }
        }
    }

    /// Writes the conversion of `input` through `kernel`.
    ///
    /// # Errors
    /// Returns the first element the kernel rejects (the bytes are then partly written: as
    /// before, initialised bytes stay initialised).
    ///
    /// # Panics
    /// If `input` and the output do not hold the same number of elements.
    pub(super) fn convert(
        &mut self,
        kernel: &dyn Kernel,
        input: &[u8],
    ) -> Result<(), ElementFault> {
        match self {
            // SAFETY: the kernels write only initialised bytes (every output element is a
            // converted value), so the caller's bytes stay initialised.
            Self::Init(bytes) => convert_run(kernel, input, unsafe { as_uninit(bytes) }),
            Self::Uninit(slots) => convert_run(kernel, input, slots),
        }
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
    assert_eq!(
        input.len() / in_size,
        output.len() / out_size,
        "a run converts its input into an output of as many elements"
    );
    let aligned =
        input.as_ptr().align_offset(in_size) == 0 && output.as_ptr().align_offset(out_size) == 0;
    if !aligned {
        return crate::kernel::driver::apply_uninit(kernel, input, output);
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
