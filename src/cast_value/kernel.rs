//! The `cast_value` kernel: the specification's procedure for each element of a block.
//!
//! A block is converted in passes, each a simple loop that vectorises:
//! 1. the fast path of the type pair converts every element, exactly for all but NaN, infinities,
//!    values out of range and anything else its hardware shortcut cannot decide, and says whether
//!    there were any of those (a fast path may apply a `scalar_map` entry for NaN itself);
//! 2. the `scalar_map` overwrites the elements matching a key (step 1 of the procedure wins over
//!    everything);
//! 3. only if the fast path left elements undecided: those are flagged, the map takes its matches
//!    off the list, and the rest go through the exact element function (steps 2 and 3: exact
//!    values, else rounding and the out-of-range mode), which also names the first failure.

use std::fmt::Debug;
use std::marker::PhantomData;

use super::scalar_map::ScalarMap;
use crate::chunk::{BLOCK, BlockKernel};
use crate::error::ElementFault;
use crate::numeric::{Element, MapInput, OutOfRangeMode, RoundingMode};
use crate::simd::{Isa, Vectorized};

/// The first pass of a cast.
pub(crate) trait FastPath: Send + Sync + Debug + 'static {
    /// The input element type.
    type From: MapInput;
    /// The output element type.
    type To: Element;

    /// Converts every element, correctly for all but those it cannot decide exactly; returns
    /// whether there are any of those.
    fn convert(
        &self,
        input: &[<Self::From as Element>::Storage],
        output: &mut [<Self::To as Element>::Storage],
    ) -> bool;

    /// Sets the flag (to 1) of every element that `convert` cannot decide exactly, by converting
    /// each element on its own (this runs only for blocks that hold such elements, and then the
    /// exact path costs far more).
    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn mark(&self, input: &[<Self::From as Element>::Storage], flags: &mut [u8]) {
        let mut scratch = [<Self::To as Element>::Storage::default()];
        for (x, flag) in input.iter().zip(flags.iter_mut()) {
            *flag = u8::from(self.convert(std::slice::from_ref(x), &mut scratch));
        }
    }
}

/// A complete cast between two element types.
#[derive(Debug)]
pub(crate) struct CastKernel<P: FastPath> {
    fast: P,
    map: ScalarMap<P::From, P::To>,
    rounding: RoundingMode,
    out_of_range: Option<OutOfRangeMode>,
    isa: Isa,
}

impl<P: FastPath> CastKernel<P> {
    pub(crate) fn new(
        fast: P,
        map: ScalarMap<P::From, P::To>,
        rounding: RoundingMode,
        out_of_range: Option<OutOfRangeMode>,
        isa: Isa,
    ) -> Self {
        Self {
            fast,
            map,
            rounding,
            out_of_range,
            isa,
        }
    }
}

impl<P: FastPath> BlockKernel for CastKernel<P> {
    type In = <P::From as Element>::Storage;
    type Out = <P::To as Element>::Storage;

    fn convert(&self, input: &[Self::In], output: &mut [Self::Out]) -> Result<(), ElementFault> {
        // Pass 1: the fast path; pass 2, procedure step 1: the scalar map.
        let undecided = self.isa.run(FastPass {
            kernel: self,
            input,
            output: &mut *output,
        });
        if !undecided {
            return Ok(());
        }
        // Pass 3: the undecided elements the map does not cover, through the exact element
        // function (procedure steps 2 and 3).
        let mut flags = [0u8; BLOCK];
        let flags = &mut flags[..input.len()];
        let pending = self.isa.run(MarkPass {
            kernel: self,
            input,
            flags: &mut *flags,
        });
        if pending {
            for (index, ((&x, y), &flag)) in input
                .iter()
                .zip(output.iter_mut())
                .zip(flags.iter())
                .enumerate()
            {
                if flag != 0 {
                    let value = P::From::value(x);
                    *y = P::To::from_value(value, self.rounding, self.out_of_range)
                        .map_err(|kind| ElementFault { index, kind, value })?;
                }
            }
        }
        Ok(())
    }
}

/// Passes 1 and 2 of a block.
struct FastPass<'a, P: FastPath> {
    kernel: &'a CastKernel<P>,
    input: &'a [<P::From as Element>::Storage],
    output: &'a mut [<P::To as Element>::Storage],
}

impl<P: FastPath> Vectorized for FastPass<'_, P> {
    type Output = bool;

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn run(self) -> bool {
        let undecided = self.kernel.fast.convert(self.input, self.output);
        self.kernel.map.overwrite(self.input, self.output);
        undecided
    }
}

/// The flags of pass 3; whether any element is left for the exact path.
struct MarkPass<'a, P: FastPath> {
    kernel: &'a CastKernel<P>,
    input: &'a [<P::From as Element>::Storage],
    flags: &'a mut [u8],
}

impl<P: FastPath> Vectorized for MarkPass<'_, P> {
    type Output = bool;

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn run(self) -> bool {
        self.kernel.fast.mark(self.input, self.flags);
        self.kernel.map.unflag(self.input, self.flags);
        self.flags.iter().fold(0, |any, &f| any | f) != 0
    }
}

/// A fast path that leaves everything to the exact element function: for the type pairs without
/// a hardware shortcut (casts into float16, bfloat16 and the small floats).
#[derive(Debug)]
pub(crate) struct ExactOnly<S, D>(PhantomData<fn() -> (S, D)>);

impl<S, D> ExactOnly<S, D> {
    pub(crate) fn new() -> Self {
        Self(PhantomData)
    }
}

impl<S: MapInput, D: Element> FastPath for ExactOnly<S, D> {
    type From = S;
    type To = D;

    fn convert(&self, input: &[S::Storage], _output: &mut [D::Storage]) -> bool {
        !input.is_empty()
    }
}
