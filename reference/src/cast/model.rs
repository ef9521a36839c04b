//! The reference `cast_value` between two data types: `scalar_map`, then the reference casts.

use std::cmp::Ordering;

use super::Reference;
use crate::{OutOfRangeMode, RefFault, RefValue, RoundingMode, compare};

/// Whether an element matches a `scalar_map` key: numerically, NaN matching NaN, -0 matching +0.
#[expect(clippy::float_cmp, reason = "exact numeric equality")]
fn matches_key(key: RefValue, x: RefValue) -> bool {
    match (key, x) {
        (RefValue::Float(a), RefValue::Float(b)) => a == b,
        (RefValue::Int(a), RefValue::Float(b)) | (RefValue::Float(b), RefValue::Int(a)) => {
            compare(RefValue::Int(a), b) == Ordering::Equal
        }
        (key, x) => key == x,
    }
}

/// The reference `cast_value` between two data types, both directions.
pub struct CastModel {
    forward: Reference,
    back: Reference,
    rounding: RoundingMode,
    out_of_range: Option<OutOfRangeMode>,
    /// `(key, value)` entries, first occurrence first.
    encode_map: Vec<(RefValue, RefValue)>,
    decode_map: Vec<(RefValue, RefValue)>,
}

impl CastModel {
    /// The cast from `from` to `to`.
    pub fn new(
        from: &'static str,
        to: &'static str,
        rounding: RoundingMode,
        out_of_range: Option<OutOfRangeMode>,
    ) -> Self {
        Self {
            forward: Reference::new(to),
            back: Reference::new(from),
            rounding,
            out_of_range,
            encode_map: Vec::new(),
            decode_map: Vec::new(),
        }
    }

    /// The same with `scalar_map` entries.
    #[must_use]
    pub fn with_maps(
        mut self,
        encode: Vec<(RefValue, RefValue)>,
        decode: Vec<(RefValue, RefValue)>,
    ) -> Self {
        self.encode_map = encode;
        self.decode_map = decode;
        self
    }

    fn cast(
        reference: &Reference,
        map: &[(RefValue, RefValue)],
        x: RefValue,
        rounding: RoundingMode,
        oor: Option<OutOfRangeMode>,
    ) -> Result<RefValue, RefFault> {
        match map.iter().find(|(key, _)| matches_key(*key, x)) {
            Some(&(_, value)) => Ok(value),
            None => reference.cast(x, rounding, oor),
        }
    }

    /// The encode of `x`; its result must decode again.
    pub fn encode(&self, x: RefValue) -> Result<RefValue, RefFault> {
        let y = self.encode_unchecked(x)?;
        self.decode(y).map_err(|_| RefFault::Unreadable)?;
        Ok(y)
    }

    /// The encode of `x` without the guard (the decode direction of a chain, say).
    pub fn encode_unchecked(&self, x: RefValue) -> Result<RefValue, RefFault> {
        Self::cast(
            &self.forward,
            &self.encode_map,
            x,
            self.rounding,
            self.out_of_range,
        )
    }

    /// The decode of `y`.
    pub fn decode(&self, y: RefValue) -> Result<RefValue, RefFault> {
        Self::cast(
            &self.back,
            &self.decode_map,
            y,
            self.rounding,
            self.out_of_range,
        )
    }
}
