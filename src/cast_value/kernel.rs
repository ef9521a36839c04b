//! The `cast_value` kernel: the specification's procedure for each element of a block.
//!
//! A block is converted in three passes, each a simple loop that vectorises:
//! 1. the fast path of the type pair converts every element it can and flags the rest (NaN,
//!    infinities, values out of range, or anything its hardware shortcut cannot decide exactly);
//! 2. the `scalar_map` overwrites the elements matching a key and clears their flags (step 1 of
//!    the procedure wins over everything);
//! 3. the flagged elements go through the exact element function (steps 2 and 3: exact values,
//!    else rounding and the out-of-range mode), which also names the first failure.

use std::fmt::Debug;
use std::marker::PhantomData;

use super::scalar_map::ScalarMap;
use crate::chunk::{BLOCK, BlockKernel};
use crate::error::ElementFault;
use crate::numeric::{Element, MapInput, OutOfRangeMode, RoundingMode};

/// The first pass of a cast.
pub(crate) trait FastPath: Send + Sync + Debug + 'static {
    /// The input element type.
    type From: MapInput;
    /// The output element type.
    type To: Element;

    /// Converts the elements it can decide exactly and sets the flag (to 1) of every other element.
    /// Returns whether any flag is set.
    fn convert(
        &self,
        input: &[<Self::From as Element>::Storage],
        output: &mut [<Self::To as Element>::Storage],
        flags: &mut [u8],
    ) -> bool;
}

/// A complete cast between two element types.
#[derive(Debug)]
pub(crate) struct CastKernel<P: FastPath> {
    fast: P,
    map: ScalarMap<P::From, P::To>,
    rounding: RoundingMode,
    out_of_range: Option<OutOfRangeMode>,
}

impl<P: FastPath> CastKernel<P> {
    pub(crate) fn new(
        fast: P,
        map: ScalarMap<P::From, P::To>,
        rounding: RoundingMode,
        out_of_range: Option<OutOfRangeMode>,
    ) -> Self {
        Self {
            fast,
            map,
            rounding,
            out_of_range,
        }
    }
}

impl<P: FastPath> BlockKernel for CastKernel<P> {
    type In = <P::From as Element>::Storage;
    type Out = <P::To as Element>::Storage;

    fn convert(&self, input: &[Self::In], output: &mut [Self::Out]) -> Result<(), ElementFault> {
        let mut flags = [0u8; BLOCK];
        let flags = &mut flags[..input.len()];
        // Pass 1: the fast path.
        let mut pending = self.fast.convert(input, output, flags);
        // Pass 2, procedure step 1: the scalar map.
        if !self.map.is_empty() {
            self.map.apply(input, output, flags);
            pending = pending && flags.iter().fold(0, |any, &f| any | f) != 0;
        }
        // Pass 3, procedure steps 2 and 3 for the flagged elements.
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

    fn convert(&self, _input: &[S::Storage], _output: &mut [D::Storage], flags: &mut [u8]) -> bool {
        flags.fill(1);
        !flags.is_empty()
    }
}
