//! Decisions about a codec chain as a whole.
//!
//! zarrs shows an array-to-array codec neither its neighbours nor the chain, so each codec checks
//! on its own what it can: that the values it encodes its own decode takes back, and that its
//! fill value comes back from it bit for bit. [`validate_array`](crate::validate_array) sees the
//! whole array and decides the rest, changing nothing:
//! - [`safety`]: whether every value a later codec can hand back (rounded, clamped, wrapped or
//!   mapped) the decodes of the codecs before it take;
//! - the fill value rule: whether the fill value comes back from the whole chain bit for bit.
//!
//! [`CheckedArray`](crate::CheckedArray) builds copies of the codecs that know their place in
//! the chain ([`Place`]), so that its writes are checked against the whole chain: an element is
//! refused only where the chain as a whole could not read it back, and the fill value only where
//! the chain changes it.

mod fill;
mod link;
pub(crate) mod safety;
pub(crate) mod step;
mod values;

pub(crate) use fill::{check_fill_rule, fill_changes};
pub(crate) use link::{Context, FillRule, Place, convert_chunk};

use std::sync::Arc;

use zarrs::array::codec::api::ArrayToArrayCodecTraits;
use zarrs::array::{DataType, FillValue};

use crate::error::{Direction, Error};
use step::Step;

/// What the chain checks need of each of the crate's codecs.
pub(crate) trait ElementCodec {
    /// The codec's exact element functions for its input data type.
    ///
    /// # Errors
    /// Returns the codec's error if it cannot take `data_type`.
    fn step(&self, data_type: &DataType) -> Result<Step, Error>;

    /// Checks the codec against its input data type and fill value, as a write would, and
    /// returns the encoded data type and fill value.
    ///
    /// # Errors
    /// Returns the codec's error.
    fn check(
        &self,
        data_type: &DataType,
        fill_value: &FillValue,
    ) -> Result<(DataType, FillValue), Error>;

    /// One element through the codec's kernel, as a chunk's elements go (an encode whose result
    /// the codec's own decode rejects gives that result).
    ///
    /// # Errors
    /// Returns the codec's error if the element has no result.
    fn convert_one(
        &self,
        data_type: &DataType,
        direction: Direction,
        bits: u64,
    ) -> Result<u64, Error>;

    /// A copy of the codec that knows its place in the chain (`context`), for
    /// [`CheckedArray`](crate::CheckedArray).
    fn in_chain(&self, context: Context) -> Arc<dyn ArrayToArrayCodecTraits>;
}
