//! Where a conversion's output goes: bytes written or not yet written.

use std::mem::MaybeUninit;

use super::{convert_range, is_aligned, is_aligned_uninit, write_uninit};
use crate::engine::{BLOCK, Kernel};
use crate::numeric::fault::ElementFault;

/// Where the output of a range of elements goes: written where it is when aligned for the output
/// type, else converted in a staging block and copied there. Initialised bytes stay initialised;
/// bytes not yet written are each written when a conversion succeeds.
#[derive(Debug)]
pub(crate) enum Output<'o> {
    /// Initialised bytes.
    Init(&'o mut [u8]),
    /// Bytes not yet written.
    Uninit(&'o mut [MaybeUninit<u8>]),
}

impl Default for Output<'_> {
    fn default() -> Self {
        Self::Init(&mut [])
    }
}

impl Output<'_> {
    pub(crate) fn len(&self) -> usize {
        match self {
            Self::Init(bytes) => bytes.len(),
            Self::Uninit(slots) => slots.len(),
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The first `mid` bytes and the rest.
    ///
    /// # Panics
    /// If `mid` is beyond the end.
    pub(crate) fn split_at(self, mid: usize) -> (Self, Self) {
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

    /// The same bytes, borrowed for a shorter time.
    fn reborrow(&mut self) -> Output<'_> {
        match self {
            Self::Init(bytes) => Output::Init(bytes),
            Self::Uninit(slots) => Output::Uninit(slots),
        }
    }

    /// Writes `source`, of the same length.
    ///
    /// # Panics
    /// If the lengths differ.
    pub(crate) fn write(&mut self, source: &[u8]) {
        match self {
            Self::Init(bytes) => bytes.copy_from_slice(source),
            Self::Uninit(slots) => write_uninit(slots, source),
        }
    }

    /// Writes `block` over and over, the last copy cut short where the bytes end.
    pub(crate) fn write_repeating(&mut self, block: &[u8]) {
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

    /// Writes the conversion of `input` through `kernel` (block by block, as [`apply_into`](super::apply_into) does).
    ///
    /// # Errors
    /// Returns the first element without an acceptable result; the bytes are then partly written.
    pub(crate) fn convert(
        &mut self,
        kernel: &dyn Kernel,
        input: &[u8],
    ) -> Result<(), ElementFault> {
        // Where both sides are aligned (the usual case), straight through the kernel a block at
        // a time: a fused read converts many short runs, for which the staging checks of
        // `convert_range` cost about a tenth of the read (sharded 1024²/256², one thread).
        let (in_size, out_size) = kernel.sizes();
        assert_eq!(
            input.len() / in_size,
            self.len() / out_size,
            "a run converts its input into an output of as many elements"
        );
        let n = input.len() / in_size;
        let aligned_in = is_aligned(input, in_size);
        // A plain loop over the blocks (most runs are one block): iterator adapters here were
        // left out of line in some builds, at a third of a sharded read's time.
        let blocks = |convert: &mut dyn FnMut(usize, usize) -> Result<(), ElementFault>| {
            let mut start = 0;
            while start < n {
                let end = n.min(start + BLOCK);
                convert(start, end).map_err(|fault| fault.offset(start))?;
                start = end;
            }
            Ok(())
        };
        match self {
            Self::Init(out) if aligned_in && is_aligned(out, out_size) => blocks(&mut |a, b| {
                let output = &mut out[a * out_size..b * out_size];
                kernel.convert_init(&input[a * in_size..b * in_size], output)
            }),
            Self::Uninit(out) if aligned_in && is_aligned_uninit(out, out_size) => {
                blocks(&mut |a, b| {
                    let output = &mut out[a * out_size..b * out_size];
                    kernel.convert(&input[a * in_size..b * in_size], output)
                })
            }
            _ => convert_range(kernel, input, self.reborrow()),
        }
    }
}
