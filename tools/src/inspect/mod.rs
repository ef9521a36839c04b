//! What an array holds: its codec chain step by step, whether this crate's codecs accept it, and
//! for arrays that use them, statistics of the decoded values. The `inspect` command (cargo
//! feature `cli`) prints this for every array under a path.

mod steps;

use std::num::NonZeroU64;
use std::sync::Arc;

use zarrs::array::codec::api::ArrayToArrayCodecTraits;
use zarrs::array::{Array, ArrayBytes, ArrayError, CodecOptions, DataType};
use zarrs::storage::ReadableStorageTraits;

use zarrs_scale_offset_cast::validate_array;

pub use steps::Step;
use steps::{array_to_array_codecs, chain_steps, fill_json, names_any_of};

use crate::int_type::IntType;
use crate::values::to_f64;

/// Statistics of the decoded values of an array.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Statistics {
    elements: u64,
    nan: u64,
    min: Option<f64>,
    max: Option<f64>,
    largest_step: Option<f64>,
}

impl Statistics {
    /// Elements read.
    #[must_use]
    pub fn elements(&self) -> u64 {
        self.elements
    }

    /// Elements that are NaN.
    #[must_use]
    pub fn nan(&self) -> u64 {
        self.nan
    }

    /// The smallest value that is not NaN, if any.
    #[must_use]
    pub fn min(&self) -> Option<f64> {
        self.min
    }

    /// The largest value that is not NaN, if any.
    #[must_use]
    pub fn max(&self) -> Option<f64> {
        self.max
    }

    /// The distance from the value of largest magnitude to the next value the codecs can store
    /// (the largest quantisation step within the data's range), where the codecs quantise,
    /// rounded to the digits it carries.
    #[must_use]
    pub fn largest_step(&self) -> Option<f64> {
        self.largest_step
    }
}

/// What [`inspect_array`] found.
#[derive(Debug)]
#[non_exhaustive]
pub struct Report {
    data_type: String,
    fill_value: String,
    steps: Vec<Step>,
    validation: Option<ArrayError>,
    statistics: Option<Statistics>,
}

impl Report {
    /// The array's data type.
    #[must_use]
    pub fn data_type(&self) -> &str {
        &self.data_type
    }

    /// The array's fill value, as JSON.
    #[must_use]
    pub fn fill_value(&self) -> &str {
        &self.fill_value
    }

    /// The codec chain, step by step.
    #[must_use]
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// What [`validate_array`] says.
    ///
    /// # Errors
    /// Returns its error, if it found one.
    pub fn validation(&self) -> Result<(), &ArrayError> {
        self.validation.as_ref().map_or(Ok(()), Err)
    }

    /// Statistics of the decoded values, for arrays that use the codecs.
    #[must_use]
    pub fn statistics(&self) -> Option<&Statistics> {
        self.statistics.as_ref()
    }
}

/// Inspects `array`: its chain, [`validate_array`], and for arrays that use `scale_offset` or
/// `cast_value`, statistics of every decoded value, chunk by chunk (`progress` is called with the
/// chunks read and the chunks in all).
///
/// # Errors
/// Returns an [`ArrayError`] if a chunk cannot be read.
pub fn inspect_array<TStorage: ?Sized + ReadableStorageTraits + 'static>(
    array: &Array<TStorage>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Report, ArrayError> {
    let metadata = serde_json::to_value(array.metadata()).unwrap_or_default();
    let uses_these_codecs = names_any_of(
        &metadata["codecs"],
        &[
            zarrs_scale_offset_cast::scale_offset::NAME,
            zarrs_scale_offset_cast::cast_value::NAME,
        ],
    );
    let mut steps = Vec::new();
    chain_steps(
        &array.codecs(),
        &metadata["codecs"],
        (array.data_type().clone(), array.fill_value().clone()),
        0,
        &mut steps,
    );
    let validation = validate_array(array).err();
    let statistics = if uses_these_codecs && validation.is_none() {
        Some(statistics(array, progress)?)
    } else {
        None
    };
    Ok(Report {
        data_type: array
            .data_type()
            .name_v3()
            .map(|n| n.to_string())
            .unwrap_or_default(),
        fill_value: fill_json(array.data_type(), array.fill_value()),
        steps,
        validation,
        statistics,
    })
}

fn statistics<TStorage: ?Sized + ReadableStorageTraits + 'static>(
    array: &Array<TStorage>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Statistics, ArrayError> {
    let not_numeric = || ArrayError::Other("not a numeric data type".into());
    let size = array.data_type().fixed_size().ok_or_else(not_numeric)?;
    let grid = array.chunk_grid_shape().to_vec();
    let chunks = zarrs::array::ArraySubset::new_with_shape(grid);
    let total = chunks.num_elements();
    let mut statistics = Statistics::default();
    let mut largest: Option<(f64, Vec<u8>)> = None;
    for (done, indices) in chunks.indices().into_iter().enumerate() {
        let subset = array.chunk_subset_bounded(&indices)?;
        let bytes: ArrayBytes<'static> = array.retrieve_array_subset(&subset)?;
        let bytes = bytes.into_fixed()?;
        let values = to_f64(array.data_type(), &bytes).ok_or_else(not_numeric)?;
        for (x, element) in values.into_iter().zip(bytes.chunks_exact(size)) {
            statistics.elements += 1;
            if x.is_nan() {
                statistics.nan += 1;
                continue;
            }
            statistics.min = Some(statistics.min.map_or(x, |m| m.min(x)));
            statistics.max = Some(statistics.max.map_or(x, |m| m.max(x)));
            if x.is_finite() && largest.as_ref().is_none_or(|(l, _)| x.abs() > *l) {
                largest = Some((x.abs(), element.to_vec()));
            }
        }
        progress(done as u64 + 1, total);
    }
    // Computed through the array-to-array codecs, those inside shards included.
    let codecs = array_to_array_codecs(array);
    statistics.largest_step = largest
        .filter(|_| !codecs.is_empty())
        .and_then(|(_, element)| largest_step(array, &codecs, element));
    Ok(statistics)
}

/// The distance between the value `element` reads back as and the value of the next stored
/// element away from zero, through the array-to-array codecs.
fn largest_step<TStorage: ?Sized>(
    array: &Array<TStorage>,
    codecs: &[Arc<dyn ArrayToArrayCodecTraits>],
    element: Vec<u8>,
) -> Option<f64> {
    let shape = [NonZeroU64::MIN];
    let options = CodecOptions::default();
    // The data types and fill values entering each codec.
    let mut types = vec![(array.data_type().clone(), array.fill_value().clone())];
    for codec in codecs {
        let (data_type, fill) = types.last()?.clone();
        types.push((
            codec.encoded_data_type(&data_type).ok()?,
            codec.encoded_fill_value(&data_type, &fill).ok()?,
        ));
    }
    let mut encoded = ArrayBytes::new_flen(element);
    for (codec, (data_type, fill)) in codecs.iter().zip(&types) {
        encoded = codec
            .encode(encoded, &shape, data_type, fill, &options)
            .ok()?
            .into_owned();
    }
    let stored_type = &types.last()?.0;
    let stored = encoded.into_fixed().ok()?.to_vec();
    let next = next_away_from_zero(stored_type, &stored)?;
    let decode_back = |bytes: Vec<u8>| -> Option<f64> {
        let mut decoded = ArrayBytes::new_flen(bytes);
        for (codec, (data_type, fill)) in codecs.iter().zip(&types).rev() {
            decoded = codec
                .decode(decoded, &shape, data_type, fill, &options)
                .ok()?
                .into_owned();
        }
        to_f64(array.data_type(), &decoded.into_fixed().ok()?)?
            .first()
            .copied()
    };
    let (a, b) = (decode_back(stored)?, decode_back(next)?);
    let step = (b - a).abs();
    step.is_finite()
        .then(|| carried(step, a.abs().max(b.abs())))
}

/// `difference`, of two values of magnitude up to `magnitude`, rounded to the significant digits
/// it carries: each value is within half a unit in the last place of float64, so the difference
/// is within one such unit (0.0001 for the 9.999999999998899e-5 between 1.1999 and 1.2).
fn carried(difference: f64, magnitude: f64) -> f64 {
    let unit = magnitude * f64::EPSILON;
    if difference == 0.0 || unit == 0.0 {
        return difference;
    }
    #[expect(clippy::cast_possible_truncation, reason = "a count of decimal digits")]
    #[expect(clippy::cast_sign_loss, reason = "at least one")]
    let digits = ((difference / unit).log10().floor().max(1.0) as usize).min(17);
    format!("{difference:.prec$e}", prec = digits - 1)
        .parse()
        .unwrap_or(difference)
}

/// The next stored element of larger magnitude (or smaller, at the end of the range).
fn next_away_from_zero(data_type: &DataType, element: &[u8]) -> Option<Vec<u8>> {
    if let Some(t) = IntType::from_name(&data_type.name_v3()?) {
        let v = *t.values(element).first()?;
        let (away, toward) = if v < 0 {
            (v - 1, v + 1)
        } else {
            (v + 1, v - 1)
        };
        return [away, toward]
            .into_iter()
            .find(|n| (t.min()..=t.max()).contains(n))
            .map(|n| t.bytes(n));
    }
    // Floats are sign and magnitude: one more is one step away from zero.
    let value = *to_f64(data_type, element)?.first()?;
    let mut wide = [0u8; 8];
    wide[..element.len()].copy_from_slice(element);
    let bits = u64::from_ne_bytes(wide);
    [bits.wrapping_add(1), bits.wrapping_sub(1)]
        .into_iter()
        .map(|b| b.to_ne_bytes()[..element.len()].to_vec())
        .find(|candidate| {
            to_f64(data_type, candidate)
                .and_then(|v| v.first().copied())
                .is_some_and(|x| x.is_finite() && x.to_bits() != value.to_bits())
        })
}

#[cfg(test)]
mod tests {
    use super::carried;

    #[test]
    fn a_step_keeps_the_digits_its_values_carry() {
        // 1.1999 - 1.2 in float64, and steps whose values carry every digit.
        let step = (1.1999f64 - 1.2).abs();
        assert_eq!(step.to_string(), "0.00009999999999998899");
        assert_eq!(carried(step, 1.2).to_string(), "0.0001");
        assert_eq!(carried(10.0, 2540.0).to_string(), "10");
        assert_eq!(carried(0.1, 0.1).to_string(), "0.1");
        assert_eq!(carried(0.0, 3.0).to_string(), "0");
    }
}
