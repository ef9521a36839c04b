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

pub(crate) mod dispatch;
mod float_to_float;
mod float_to_int;
mod float_to_int64;
mod int_to_float;
mod int_to_int;

use std::fmt::Debug;
use std::mem::MaybeUninit;

use crate::element::cast_value::CheckedCast;
use crate::element::scalar_map::ScalarMap;
use crate::engine::simd::Isa;
use crate::engine::{Slots, Typed, Written};
use crate::numeric::fault::ElementFault;
use crate::numeric::{MapInput, NumericType, Storage, decode};

/// The first pass of a cast.
pub(crate) trait FastPath: Send + Sync + Debug + 'static {
    /// The input storage.
    type In: MapInput;
    /// The output storage.
    type Out: Storage;

    /// Converts every element, correctly for all but those it cannot decide exactly; returns
    /// whether there are any of those.
    fn convert<'a>(
        &self,
        input: &[Self::In],
        output: Slots<'a, Self::Out>,
    ) -> (Written<'a, Self::Out>, bool);
}

/// A complete cast between two storage types.
#[derive(Debug)]
pub(crate) struct CastKernel<P: FastPath> {
    fast: P,
    map: ScalarMap,
    /// The exact path; its input type is the storage type (`storage`).
    exact: CheckedCast,
    /// The numeric type the input storage holds (for reporting values).
    storage: NumericType,
    isa: Isa,
}

impl<P: FastPath> CastKernel<P> {
    pub(crate) fn new(fast: P, map: ScalarMap, exact: CheckedCast, isa: Isa) -> Self {
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
    fn settle_each(&self, input: &[P::In], output: &mut [P::Out]) -> Result<(), ElementFault> {
        for (index, (&x, y)) in input.iter().zip(output.iter_mut()).enumerate() {
            let mut slot = [MaybeUninit::uninit()];
            let (written, undecided) = self
                .fast
                .convert(std::slice::from_ref(&x), Slots::new(&mut slot));
            let mut one = [written.into_elements()[0]];
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

/// Passes 1 and 2 in the block loop, pass 3 where it left elements undecided.
impl<P: FastPath> Typed for CastKernel<P> {
    type In = P::In;
    type Out = P::Out;

    fn isa(&self) -> Isa {
        self.isa
    }

    #[inline(always)]
    fn block<'a>(&self, input: &[P::In], output: Slots<'a, P::Out>) -> (Written<'a, P::Out>, bool) {
        let (mut written, undecided) = self.fast.convert(input, output);
        let poisoned = self.map.overwrite(input, written.elements());
        (written, undecided | poisoned)
    }

    fn settle(&self, input: &[P::In], output: &mut [P::Out]) -> Result<(), ElementFault> {
        self.settle_each(input, output)
    }
}
