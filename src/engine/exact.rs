//! The exact element function applied to each element: for the conversions without a hardware
//! shortcut (casts into float16, bfloat16 and the small floats, `scale_offset` in float16 and
//! bfloat16). Not generic: elements are read and written by their byte width.

use std::fmt;
use std::mem::MaybeUninit;
use std::sync::Arc;

use super::Kernel;
use crate::numeric::fault::{ElementFault, Fault};
use crate::numeric::{NumericType, decode, element_bits, write_element_bits};

/// An element function: from the bits of an input element to the bits of its output.
pub(crate) type ElementFn = Arc<dyn Fn(u64) -> Result<u64, Fault> + Send + Sync>;

/// A kernel calling an element function for every element.
pub(crate) struct Exact {
    from: NumericType,
    out_size: usize,
    element: ElementFn,
}

impl Exact {
    /// Elements of `from` into elements of `out_size` bytes, by `element`.
    pub(crate) fn new(from: NumericType, out_size: usize, element: ElementFn) -> Self {
        Self {
            from,
            out_size,
            element,
        }
    }
}

impl fmt::Debug for Exact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Exact")
            .field("from", &self.from)
            .field("out_size", &self.out_size)
            .finish_non_exhaustive()
    }
}

// SAFETY: every output byte is written with an initialised value.
unsafe impl Kernel for Exact {
    fn sizes(&self) -> (usize, usize) {
        (self.from.size(), self.out_size)
    }

    fn convert(&self, input: &[u8], output: &mut [MaybeUninit<u8>]) -> Result<(), ElementFault> {
        assert!(
            input.len() / self.from.size() == output.len() / self.out_size
                && input.len().is_multiple_of(self.from.size())
                && output.len().is_multiple_of(self.out_size),
            "one whole output element per whole input element"
        );
        let inputs = input.chunks_exact(self.from.size());
        for (index, (x, y)) in inputs
            .zip(output.chunks_exact_mut(self.out_size))
            .enumerate()
        {
            let bits = element_bits(x);
            let result = (self.element)(bits).map_err(|fault| ElementFault {
                index,
                fault,
                value: decode(self.from.kind(), bits),
            })?;
            let mut bytes = [0; 8];
            write_element_bits(result, &mut bytes[..self.out_size]);
            for (slot, &byte) in y.iter_mut().zip(&bytes[..self.out_size]) {
                slot.write(byte);
            }
        }
        Ok(())
    }
}
