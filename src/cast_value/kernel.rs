//! The `cast_value` kernel around a fast path: the specification's procedure for a block.
//!
//! A block is converted in passes, each a simple loop that vectorises:
//! 1. the fast path of the storage pair converts every element, exactly for all but NaN,
//!    infinities, values out of range and anything else its hardware shortcut cannot decide, and
//!    says whether there were any of those (a fast path may apply a `scalar_map` entry for NaN
//!    itself);
//! 2. the `scalar_map` overwrites the elements matching a key (step 1 of the procedure wins over
//!    everything);
//! 3. only if the fast path left elements undecided: each element the fast path cannot decide and
//!    the map does not settle goes through the exact element function (steps 2 and 3: exact
//!    values, else rounding and the out-of-range mode, and for encoding the guard), which also
//!    names the first failure. This pass runs element by element, on the portable path only.

use std::fmt::Debug;
use std::mem::MaybeUninit;

use super::element::CheckedCast;
use super::scalar_map::ScalarMap;
use crate::fault::ElementFault;
use crate::kernel::simd::{BlockLoop, Isa};
use crate::kernel::{Typed, assume_init};
use crate::numeric::{MapInput, NumericType, Storage, decode};

/// The first pass of a cast.
///
/// # Safety
/// [`Self::convert`] writes every output element, with initialised values.
pub(crate) unsafe trait FastPath: Send + Sync + Debug + 'static {
    /// The input storage.
    type In: MapInput;
    /// The output storage.
    type Out: Storage;

    /// Converts every element (writing every output element), correctly for all but those it
    /// cannot decide exactly; returns whether there are any of those.
    fn convert(&self, input: &[Self::In], output: &mut [MaybeUninit<Self::Out>]) -> bool;

    /// [`Self::convert`] by a loop written for `isa` with intrinsics, where there is one: then
    /// it writes every output element and returns `Some` of what `convert` returns.
    fn convert_on(
        &self,
        isa: Isa,
        input: &[Self::In],
        output: &mut [MaybeUninit<Self::Out>],
    ) -> Option<bool> {
        let _ = (isa, input, output);
        None
    }
}

/// A complete cast between two storage types.
#[derive(Debug)]
pub(crate) struct CastKernel<P: FastPath> {
    fast: P,
    map: ScalarMap<P::In, P::Out>,
    /// The exact path; its input type is the storage type (`storage`).
    exact: CheckedCast,
    /// The numeric type the input storage holds (for reporting values).
    storage: NumericType,
    isa: Isa,
}

impl<P: FastPath> CastKernel<P> {
    pub(crate) fn new(
        fast: P,
        map: ScalarMap<P::In, P::Out>,
        exact: CheckedCast,
        isa: Isa,
    ) -> Self {
        let storage = exact.forward.from;
        Self {
            fast,
            map,
            exact,
            storage,
            isa,
        }
    }

    /// Pass 3: the elements left undecided, one by one.
    #[inline(never)]
    fn settle(&self, input: &[P::In], output: &mut [P::Out]) -> Result<(), ElementFault> {
        for (index, (&x, y)) in input.iter().zip(output.iter_mut()).enumerate() {
            let mut slot = [MaybeUninit::uninit()];
            let undecided = self.fast.convert(std::slice::from_ref(&x), &mut slot);
            // SAFETY: the fast path writes every output element (its trait's contract).
            let mut one = [unsafe { slot[0].assume_init() }];
            if undecided && !self.map.settles(x) || self.map.overwrite(&[x], &mut one) {
                let bits = x.to_bits();
                *y = self
                    .exact
                    .element(bits)
                    .map(P::Out::from_bits)
                    .map_err(|fault| ElementFault {
                        index,
                        fault,
                        value: decode(self.storage.kind(), bits),
                    })?;
            }
        }
        Ok(())
    }
}

// SAFETY: the fast pass writes every output element (`FastPath`'s contract); the later passes
// overwrite some of them with values.
unsafe impl<P: FastPath> Typed for CastKernel<P> {
    type In = P::In;
    type Out = P::Out;

    fn convert(
        &self,
        input: &[Self::In],
        output: &mut [MaybeUninit<Self::Out>],
    ) -> Result<(), ElementFault> {
        let undecided = self.isa.run_block(self, input, &mut *output);
        // SAFETY: the fast pass wrote every element.
        let output = unsafe { assume_init(output) };
        if undecided {
            self.settle(input, output)?;
        }
        Ok(())
    }
}

/// Passes 1 and 2 of a block.
// SAFETY: the fast path writes every output element (`FastPath`'s contract); the map overwrites
// some with values.
unsafe impl<P: FastPath> BlockLoop for CastKernel<P> {
    type In = P::In;
    type Out = P::Out;
    type Output = bool;

    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    fn block(&self, input: &[P::In], output: &mut [MaybeUninit<P::Out>]) -> bool {
        // The loop written with intrinsics where there is one for this instruction set.
        let undecided = match self.fast.convert_on(self.isa, input, &mut *output) {
            Some(undecided) => undecided,
            None => self.fast.convert(input, &mut *output),
        };
        // SAFETY: the fast path wrote every element (its trait's contract).
        let output = unsafe { assume_init(output) };
        let poisoned = self.map.overwrite(input, output);
        undecided | poisoned
    }
}
