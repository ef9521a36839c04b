//! Choosing the encoding for the user: the quantisation planner, and rewriting an array with it.
//!
//! Given the range of the data ([`DataRange`], from known bounds or read chunk by chunk with
//! [`DataRange::scan`]), the array's float data type and the wanted [`Precision`], [`plan`]
//! returns the smallest integer storage type and the `scale_offset` + `cast_value` configuration
//! that meets it, with the error it guarantees:
//!
//! ```rust
//! use zarrs::array::data_type;
//! use zarrs_scale_offset_cast_tools::quantize::{DataRange, Precision, plan};
//! let mut range = DataRange::new(0.0, 1.2);
//! range.nan = true; // some reflectances are missing
//! let plan = plan(&data_type::float64(), &range, Precision::MaxError(1e-4), None)?;
//! assert_eq!(plan.storage().name_v3().unwrap(), "uint16");
//! assert_eq!((plan.offset(), plan.scale()), (0.0, 10000.0));
//! assert!(plan.max_error() <= 1e-4);
//! let codecs = plan.codecs()?; // for ArrayBuilder::array_to_array_codecs
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The plan
//! - `scale` is the smallest of 1, 2 and 5 times a power of ten (as the nearest value of the data
//!   type) whose guaranteed error meets the bound; `offset` is the array's fill value if that is
//!   finite (so that it decodes bit for bit, see the fill value rule in the crate docs), else the
//!   smallest value of the data rounded down to a multiple of `1 / scale`.
//! - Values are stored as integers: `cast_value` with `nearest-even` rounding and no
//!   `out_of_range` mode, into the first of uint8, int8, uint16, int16, uint32, int32, uint64 and
//!   int64 that holds every code of the range and the codes reserved at its top for NaN,
//!   +Infinity and -Infinity (in that order, only those that occur or are the fill value), which
//!   `scalar_map` maps both ways.
//!
//! # The guarantee
//! For every value `x` of the data type in the planned range, decoding the encoding of `x`
//! gives a value within [`Plan::max_error`] of `x`; NaN and the infinities decode as themselves.
//! The bound is derived from the rounding of each operation of the codecs (see the source of
//! `bound.rs`) and covers subnormals; the tests check it exhaustively for float16 and bfloat16
//! and on random float64 ranges.
//!
//! A value outside the planned range either fails to encode (beyond the storage type) or, if it
//! rounds to a code reserved for NaN or an infinity, reads back as that special value: plan with
//! the range of everything the array will hold.

mod bound;
mod format;
mod layout;
mod range;
mod rewrite;

use std::sync::Arc;

use zarrs::array::codec::api::ArrayToArrayCodecTraits;
use zarrs::array::{DataType, FillValueMetadata, data_type};

use zarrs_scale_offset_cast::{
    CastValueCodec, CastValueError, CastValueRoundingMode, ScaleOffsetCodec, ScaleOffsetError,
};

use crate::int_type::IntType;
use format::Format;
pub use layout::{Chunking, Layout};
pub use range::DataRange;
pub(crate) use range::{chunk_indices, to_f64};
pub use rewrite::{
    Quantization, QuantizeError, QuantizeOptions, QuantizeReport, Stage, prepare_quantization,
    quantize_array,
};

/// How close the decoded values must be to the original ones.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Precision {
    /// The largest absolute error.
    MaxError(f64),
    /// Significant decimal digits of the value of largest magnitude: the largest absolute error is
    /// half a unit of the last of these digits (3 digits of 273.15 allow 0.5).
    SignificantDigits(u32),
}

impl Precision {
    /// Checks that the precision can be planned for: a positive, finite error, or at least one
    /// digit.
    ///
    /// # Errors
    /// Returns [`PlanError::InvalidPrecision`], naming the option to change.
    pub fn check(self) -> Result<(), PlanError> {
        requested_error(self, 1.0).map(drop)
    }
}

/// A quantisation: the codecs to store an array's values as integers, and what they guarantee.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Plan {
    data_type: DataType,
    storage: DataType,
    offset: f64,
    scale: f64,
    max_error: f64,
    range: (f64, f64),
    codes: (i128, i128),
    nan: Option<i128>,
    positive_infinity: Option<i128>,
    negative_infinity: Option<i128>,
}

/// Why no plan meets the request.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PlanError {
    /// The data type is not one the planner quantises.
    #[error("data type {0} is not a float type (float16, bfloat16, float32, float64)")]
    UnsupportedDataType(String),
    /// The precision is not a positive, finite error or a positive number of digits.
    #[error(
        "{0}: give a positive, finite error (such as --max-error 1e-4) or at least one digit (--digits 3)"
    )]
    InvalidPrecision(String),
    /// The fill value cannot come back unchanged.
    #[error("fill value {0} cannot come back unchanged (-0.0 decodes as +0.0); use 0.0 or NaN")]
    FillValue(f64),
    /// The rounding of the data type alone errs by more than the bound.
    #[error(
        "a largest error of {requested:e} is finer than {data_type} computes at this range; the best is about {best:e}"
    )]
    BelowPrecision {
        /// The data type.
        data_type: String,
        /// The requested bound.
        requested: f64,
        /// The smallest bound found.
        best: f64,
    },
    /// No integer type holds the codes.
    #[error(
        "the range needs codes {0}..={1}, more than any integer type exactly held by the data type"
    )]
    TooManyCodes(i128, i128),
}

/// The integer storage types, in order of preference, with their ranges.
fn storage_types() -> impl Iterator<Item = (DataType, i128, i128)> {
    [
        data_type::uint8(),
        data_type::int8(),
        data_type::uint16(),
        data_type::int16(),
        data_type::uint32(),
        data_type::int32(),
        data_type::uint64(),
        data_type::int64(),
    ]
    .into_iter()
    .filter_map(|data_type| {
        let t = IntType::from_name(&data_type.name_v3()?)?;
        Some((data_type, t.min(), t.max()))
    })
}

/// The candidate scales `m * 10^k` (m in 1, 2, 5) from below `at_least` upwards.
fn scales(at_least: f64) -> impl Iterator<Item = f64> {
    #[expect(clippy::cast_possible_truncation, reason = "a decimal exponent")]
    let k0 = at_least.log10().floor() as i32 - 1;
    (k0..k0 + 40).flat_map(|k| {
        [1, 2, 5]
            .into_iter()
            .map(move |m| format!("{m}e{k}").parse::<f64>().unwrap_or(f64::NAN))
    })
}

/// Plans the quantisation of values of `data_type` in `range` to `precision`. `fill_value` is the
/// array's fill value (as `f64`): it is added to the range and comes back bit for bit. Without
/// one, use NaN (if the plan reserves a code for it) or [`Plan::offset`] as the fill value: other
/// values may not come back unchanged, which `cast_value` refuses.
///
/// # Errors
/// Returns a [`PlanError`] if the data type is not a float type, the precision is not valid, the
/// fill value is -0.0, or no integer type meets the bound.
pub fn plan(
    data_type: &DataType,
    range: &DataRange,
    precision: Precision,
    fill_value: Option<f64>,
) -> Result<Plan, PlanError> {
    let name = data_type
        .name_v3()
        .map(|n| n.to_string())
        .unwrap_or_default();
    let format =
        Format::of(data_type).ok_or_else(|| PlanError::UnsupportedDataType(name.clone()))?;
    let mut range = *range;
    if let Some(fill) = fill_value {
        if fill == 0.0 && fill.is_sign_negative() {
            return Err(PlanError::FillValue(fill));
        }
        range.add(format.nearest(fill));
    }
    let anchor = fill_value
        .filter(|f| f.is_finite())
        .map(|f| format.nearest(f));
    let (min, max) = range.finite.unwrap_or((0.0, 0.0));
    let (min, max) = (format.nearest(min), format.nearest(max));
    let magnitude = min.abs().max(max.abs());
    let requested = requested_error(precision, magnitude)?;
    let reserved = [range.nan, range.positive_infinity, range.negative_infinity];
    let reserved_count = reserved.iter().filter(|r| **r).count();
    let exact_codes = 2f64.powi(format.precision());
    let mut best = f64::INFINITY;
    for candidate in scales(0.5 / requested) {
        let scale = format.nearest(candidate);
        if !(scale.is_finite() && scale > 0.0) {
            continue;
        }
        let offset = anchor.unwrap_or_else(|| {
            let aligned = (min * scale).floor() / scale;
            let aligned = if aligned.is_finite() {
                aligned.min(min)
            } else {
                min
            };
            format.down(aligned)
        });
        let bound = bound::bound(format, min, max, offset, scale);
        best = best.min(bound.error);
        if bound.error > requested {
            continue;
        }
        let (lo, hi) = bound.codes;
        if lo.abs().max(hi.abs()) + f64::from(u8::try_from(reserved_count).unwrap_or(3))
            > exact_codes
        {
            #[expect(clippy::cast_possible_truncation, reason = "codes of at most 2^54")]
            return Err(PlanError::TooManyCodes(lo as i128, hi as i128));
        }
        #[expect(clippy::cast_possible_truncation, reason = "codes of at most 2^54")]
        let (lo, hi) = (lo as i128, hi as i128);
        let reserved_count = i128::try_from(reserved_count).unwrap_or(0);
        let Some((storage, _, top)) =
            storage_types().find(|(_, tmin, tmax)| *tmin <= lo && hi <= *tmax - reserved_count)
        else {
            return Err(PlanError::TooManyCodes(lo, hi));
        };
        let mut next = top;
        let mut reserve = |present: bool| {
            present.then(|| {
                next -= 1;
                next + 1
            })
        };
        return Ok(Plan {
            data_type: data_type.clone(),
            storage,
            offset,
            scale,
            max_error: bound.error,
            range: (min, max),
            codes: (lo, hi),
            nan: reserve(reserved[0]),
            positive_infinity: reserve(reserved[1]),
            negative_infinity: reserve(reserved[2]),
        });
    }
    Err(PlanError::BelowPrecision {
        data_type: name,
        requested,
        best,
    })
}

/// The largest absolute error `precision` asks for, for values of largest magnitude `magnitude`.
fn requested_error(precision: Precision, magnitude: f64) -> Result<f64, PlanError> {
    match precision {
        Precision::MaxError(error) if error > 0.0 && error.is_finite() => Ok(error),
        Precision::SignificantDigits(digits) if digits > 0 => {
            #[expect(clippy::cast_possible_truncation, reason = "a decimal exponent")]
            let exponent = if magnitude > 0.0 {
                magnitude.log10().floor() as i32
            } else {
                0
            };
            let digits = i32::try_from(digits).unwrap_or(i32::MAX);
            Ok(0.5 * 10f64.powi(exponent.saturating_sub(digits).saturating_add(1)))
        }
        Precision::MaxError(error) => {
            Err(PlanError::InvalidPrecision(format!("--max-error {error}")))
        }
        Precision::SignificantDigits(digits) => {
            Err(PlanError::InvalidPrecision(format!("--digits {digits}")))
        }
    }
}

/// A code as the JSON number of a `scalar_map` entry.
fn code_json(code: i128) -> FillValueMetadata {
    match (u64::try_from(code), i64::try_from(code)) {
        (Ok(code), _) => code.into(),
        (_, Ok(code)) => code.into(),
        _ => unreachable!("codes fit in 64 bits"),
    }
}

impl Plan {
    /// The array's data type, which `scale_offset` computes in.
    #[must_use]
    pub fn data_type(&self) -> &DataType {
        &self.data_type
    }

    /// The integer type the values are stored as.
    #[must_use]
    pub fn storage(&self) -> &DataType {
        &self.storage
    }

    /// The `scale_offset` offset (a value of the data type).
    #[must_use]
    pub fn offset(&self) -> f64 {
        self.offset
    }

    /// The `scale_offset` scale (a value of the data type).
    #[must_use]
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// The largest absolute error of any value in the range.
    #[must_use]
    pub fn max_error(&self) -> f64 {
        self.max_error
    }

    /// The finite range the guarantee covers.
    #[must_use]
    pub fn range(&self) -> (f64, f64) {
        self.range
    }

    /// The codes of the finite range.
    #[must_use]
    pub fn codes(&self) -> (i128, i128) {
        self.codes
    }

    /// The code reserved for NaN, if any.
    #[must_use]
    pub fn nan(&self) -> Option<i128> {
        self.nan
    }

    /// The code reserved for +Infinity, if any.
    #[must_use]
    pub fn positive_infinity(&self) -> Option<i128> {
        self.positive_infinity
    }

    /// The code reserved for -Infinity, if any.
    #[must_use]
    pub fn negative_infinity(&self) -> Option<i128> {
        self.negative_infinity
    }

    /// The `scale_offset` codec of the plan.
    ///
    /// # Errors
    /// Returns a [`ScaleOffsetError`] if the parameters are rejected (they never are for a plan
    /// that [`plan`] returned).
    pub fn scale_offset(&self) -> Result<ScaleOffsetCodec, ScaleOffsetError> {
        ScaleOffsetCodec::new(self.offset, self.scale)
    }

    /// The `cast_value` codec of the plan.
    ///
    /// # Errors
    /// Returns a [`CastValueError`] if the configuration is rejected (it never is for a plan that
    /// [`plan`] returned).
    pub fn cast_value(&self) -> Result<CastValueCodec, CastValueError> {
        let mut builder = CastValueCodec::builder(self.storage.clone());
        builder.rounding(CastValueRoundingMode::NearestEven);
        for (code, value) in [
            (self.nan, "NaN"),
            (self.positive_infinity, "Infinity"),
            (self.negative_infinity, "-Infinity"),
        ] {
            if let Some(code) = code {
                builder.map(value, code_json(code));
            }
        }
        builder.build()
    }

    /// Both codecs, for `ArrayBuilder::array_to_array_codecs`.
    ///
    /// # Errors
    /// Returns a [`zarrs_scale_offset_cast::Error`] if a codec is rejected (never for a plan that [`plan`]
    /// returned).
    pub fn codecs(
        &self,
    ) -> Result<Vec<Arc<dyn ArrayToArrayCodecTraits>>, zarrs_scale_offset_cast::Error> {
        Ok(vec![
            Arc::new(self.scale_offset()?),
            Arc::new(self.cast_value()?),
        ])
    }
}

#[cfg(test)]
mod tests;
