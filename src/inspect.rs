//! What an array holds: its codec chain step by step, whether this crate's codecs accept it, and
//! for arrays that use them, statistics of the decoded values. The `inspect` command (cargo
//! feature `cli`) prints this for every array under a path.

use std::num::NonZeroU64;

use zarrs::array::{Array, ArrayBytes, ArrayError, CodecOptions, DataType, FillValue};
use zarrs::metadata::v3::MetadataV3;
use zarrs::plugin::ZarrVersion;
use zarrs::storage::ReadableStorageTraits;

use crate::numeric::{NumericType, Value, decode, element_bits, numeric_type};
use crate::validate_array;

/// One step of a codec chain: the codec, and the data type and fill value after it.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// The codec's metadata (name and configuration), as JSON.
    pub codec: String,
    /// The data type after the codec (for array-to-array codecs).
    pub data_type: Option<String>,
    /// The fill value after the codec (for array-to-array codecs), as JSON.
    pub fill_value: Option<String>,
}

/// Statistics of the decoded values of an array.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Statistics {
    /// Elements read.
    pub elements: u64,
    /// Elements that are NaN.
    pub nan: u64,
    /// The smallest and the largest value that is not NaN, if any.
    pub min: Option<f64>,
    /// See `min`.
    pub max: Option<f64>,
    /// The distance from the value of largest magnitude to the next value the codecs can store
    /// (the largest quantisation step within the data's range), where the codecs quantise.
    pub largest_step: Option<f64>,
}

/// What [`inspect_array`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The array's data type and fill value (JSON).
    pub data_type: String,
    /// The array's fill value, as JSON.
    pub fill_value: String,
    /// The codec chain, step by step.
    pub steps: Vec<Step>,
    /// What [`validate_array`] says.
    pub validation: Result<(), String>,
    /// Statistics of the decoded values, for arrays that use this crate's codecs.
    pub statistics: Option<Statistics>,
}

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

fn fill_json(data_type: &DataType, fill_value: &FillValue) -> String {
    data_type
        .metadata_fill_value(fill_value)
        .map_or_else(|_| format!("{:?}", fill_value.as_ne_bytes()), |m| json(&m))
}

fn codec_json(
    name: Option<String>,
    configuration: Option<zarrs::metadata::Configuration>,
) -> String {
    let name = name.unwrap_or_default();
    let metadata = match configuration {
        Some(configuration) if !configuration.is_empty() => {
            MetadataV3::new_with_configuration(name, configuration)
        }
        _ => MetadataV3::new(name),
    };
    json(&metadata)
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
    let chain = array.codecs();
    let options = zarrs::array::codec::api::CodecMetadataOptions::default();
    let mut steps = Vec::new();
    let (mut data_type, mut fill_value) = (array.data_type().clone(), array.fill_value().clone());
    // The codecs may also sit inside `sharding_indexed`: look for their names anywhere.
    let metadata = serde_json::to_value(array.metadata()).unwrap_or_default();
    let uses_these_codecs = names_any_of(
        &metadata["codecs"],
        &[crate::scale_offset::NAME, crate::cast_value::NAME],
    );
    for codec in chain.array_to_array_codecs() {
        let mut step = Step {
            codec: codec_json(
                codec.name(ZarrVersion::V3).map(|n| n.to_string()),
                codec.configuration(ZarrVersion::V3, &options),
            ),
            data_type: None,
            fill_value: None,
        };
        if let (Ok(encoded_fill), Ok(encoded_type)) = (
            codec.encoded_fill_value(&data_type, &fill_value),
            codec.encoded_data_type(&data_type),
        ) {
            step.fill_value = Some(fill_json(&encoded_type, &encoded_fill));
            step.data_type = encoded_type.name_v3().map(|n| n.to_string());
            (data_type, fill_value) = (encoded_type, encoded_fill);
        }
        steps.push(step);
    }
    // The array-to-bytes and bytes-to-bytes codecs: no data type or fill value after them.
    let plain = |codec: &dyn zarrs::array::codec::api::CodecTraits| Step {
        codec: codec_json(
            codec.name(ZarrVersion::V3).map(|n| n.to_string()),
            codec.configuration(ZarrVersion::V3, &options),
        ),
        data_type: None,
        fill_value: None,
    };
    steps.push(plain(chain.array_to_bytes_codec().as_ref()));
    steps.extend(
        chain
            .bytes_to_bytes_codecs()
            .iter()
            .map(|c| plain(c.as_ref())),
    );
    let validation = validate_array(array).map_err(|error| error.to_string());
    let statistics = if uses_these_codecs && validation.is_ok() {
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

/// Whether `codecs` (codec metadata, possibly nested in configurations) names any of `names`.
fn names_any_of(codecs: &serde_json::Value, names: &[&str]) -> bool {
    match codecs {
        serde_json::Value::String(name) => names.contains(&name.as_str()),
        serde_json::Value::Array(items) => items.iter().any(|item| names_any_of(item, names)),
        serde_json::Value::Object(map) => {
            map.get("name")
                .and_then(|n| n.as_str())
                .is_some_and(|n| names.contains(&n))
                || map.values().any(|value| names_any_of(value, names))
        }
        _ => false,
    }
}

/// The value of an element as a float64 (rounded for integers beyond 2^53).
fn as_f64(value: Value) -> f64 {
    match value {
        Value::Nan => f64::NAN,
        Value::Infinity { negative } => {
            if negative {
                f64::NEG_INFINITY
            } else {
                f64::INFINITY
            }
        }
        Value::Finite {
            negative,
            significand,
            exponent,
        } => {
            #[expect(clippy::cast_precision_loss, reason = "statistics")]
            let magnitude = significand as f64 * 2f64.powi(exponent);
            if negative { -magnitude } else { magnitude }
        }
    }
}

fn statistics<TStorage: ?Sized + ReadableStorageTraits + 'static>(
    array: &Array<TStorage>,
    progress: &mut dyn FnMut(u64, u64),
) -> Result<Statistics, ArrayError> {
    let t = numeric_type(array.data_type())
        .ok_or_else(|| ArrayError::Other("not a numeric data type".into()))?;
    let grid = array.chunk_grid_shape().to_vec();
    let chunks = zarrs::array::ArraySubset::new_with_shape(grid);
    let total = chunks.num_elements();
    let mut statistics = Statistics::default();
    let mut largest: Option<(f64, u64)> = None;
    for (done, indices) in chunks.indices().into_iter().enumerate() {
        let subset = array.chunk_subset_bounded(&indices)?;
        let bytes: ArrayBytes<'static> = array.retrieve_array_subset(&subset)?;
        for element in bytes.into_fixed()?.chunks_exact(t.size()) {
            let bits = element_bits(element);
            let x = as_f64(decode(t.kind(), bits));
            statistics.elements += 1;
            if x.is_nan() {
                statistics.nan += 1;
                continue;
            }
            statistics.min = Some(statistics.min.map_or(x, |m| m.min(x)));
            statistics.max = Some(statistics.max.map_or(x, |m| m.max(x)));
            if x.is_finite() && largest.is_none_or(|(l, _)| x.abs() > l) {
                largest = Some((x.abs(), bits));
            }
        }
        progress(done as u64 + 1, total);
    }
    // Computed through the array-to-array codecs of the array's own chain (not inside shards).
    let quantised_here = !array.codecs().array_to_array_codecs().is_empty();
    statistics.largest_step = largest
        .filter(|_| quantised_here)
        .and_then(|(_, bits)| largest_step(array, t, bits));
    Ok(statistics)
}

/// The distance between the value `bits` reads back as and the value of the next stored element
/// away from zero, through the array-to-array codecs.
fn largest_step<TStorage: ?Sized>(
    array: &Array<TStorage>,
    t: NumericType,
    bits: u64,
) -> Option<f64> {
    let chain = array.codecs();
    let codecs = chain.array_to_array_codecs();
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
    let mut bytes = vec![0u8; t.size()];
    crate::numeric::write_element_bits(bits, &mut bytes);
    let mut encoded = ArrayBytes::new_flen(bytes);
    for (codec, (data_type, fill)) in codecs.iter().zip(&types) {
        encoded = codec
            .encode(encoded, &shape, data_type, fill, &options)
            .ok()?
            .into_owned();
    }
    let stored_type = numeric_type(&types.last()?.0)?;
    let stored = encoded.into_fixed().ok()?.to_vec();
    let next = next_away_from_zero(stored_type, element_bits(&stored))?;
    let decode_back = |bits: u64| -> Option<f64> {
        let mut bytes = vec![0u8; stored_type.size()];
        crate::numeric::write_element_bits(bits, &mut bytes);
        let mut decoded = ArrayBytes::new_flen(bytes);
        for (codec, (data_type, fill)) in codecs.iter().zip(&types).rev() {
            decoded = codec
                .decode(decoded, &shape, data_type, fill, &options)
                .ok()?
                .into_owned();
        }
        Some(as_f64(decode(
            t.kind(),
            element_bits(&decoded.into_fixed().ok()?),
        )))
    };
    let (a, b) = (decode_back(element_bits(&stored))?, decode_back(next)?);
    let step = (b - a).abs();
    step.is_finite().then_some(step)
}

/// The bits of the next stored value of larger magnitude (or smaller, at the end of the range).
fn next_away_from_zero(t: NumericType, bits: u64) -> Option<u64> {
    let value = decode(t.kind(), bits);
    match (t.kind(), value) {
        (
            crate::numeric::Kind::Int(format),
            Value::Finite {
                negative,
                significand,
                ..
            },
        ) => {
            let v = i128::from(significand) * if negative { -1 } else { 1 };
            let away = if negative { v - 1 } else { v + 1 };
            let toward = if negative { v + 1 } else { v - 1 };
            [away, toward]
                .into_iter()
                .find(|n| (format.min()..=format.max()).contains(n))
                .map(crate::numeric::twos_complement_bits)
        }
        (crate::numeric::Kind::Float(_), Value::Finite { .. }) => {
            // Sign and magnitude: one more is one step away from zero.
            [bits.wrapping_add(1), bits.wrapping_sub(1)]
                .into_iter()
                .map(|b| b & mask(t))
                .find(|&b| {
                    t.is_encoding(b)
                        && matches!(decode(t.kind(), b), Value::Finite { .. })
                        && decode(t.kind(), b) != value
                })
        }
        _ => None,
    }
}

fn mask(t: NumericType) -> u64 {
    if t.size() >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * t.size())) - 1
    }
}
