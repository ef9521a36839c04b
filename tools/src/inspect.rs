//! What an array holds: its codec chain step by step, whether this crate's codecs accept it, and
//! for arrays that use them, statistics of the decoded values. The `inspect` command (cargo
//! feature `cli`) prints this for every array under a path.

use std::num::NonZeroU64;
use std::sync::Arc;

use zarrs::array::codec::api::ArrayToArrayCodecTraits;
use zarrs::array::{Array, ArrayBytes, ArrayError, CodecChain, CodecOptions, DataType, FillValue};
use zarrs::metadata::v3::MetadataV3;
use zarrs::plugin::ZarrVersion;
use zarrs::storage::ReadableStorageTraits;

use zarrs_scale_offset_cast::validate_array;

use crate::int_type::IntType;
use crate::values::to_f64;

/// One step of a codec chain: the codec, and the data type and fill value after it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Step {
    codec: String,
    data_type: Option<String>,
    fill_value: Option<String>,
    depth: usize,
}

impl Step {
    /// How deep inside `sharding_indexed` codecs the codec sits: 0 in the array's own chain, 1 in
    /// the inner chain of its sharding codec, and so on.
    #[must_use]
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The codec's metadata (name and configuration), as JSON.
    #[must_use]
    pub fn codec(&self) -> &str {
        &self.codec
    }

    /// The data type after the codec (for array-to-array codecs).
    #[must_use]
    pub fn data_type(&self) -> Option<&str> {
        self.data_type.as_deref()
    }

    /// The fill value after the codec (for array-to-array codecs), as JSON.
    #[must_use]
    pub fn fill_value(&self) -> Option<&str> {
        self.fill_value.as_deref()
    }
}

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
    /// (the largest quantisation step within the data's range), where the codecs quantise.
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

/// Each codec as the metadata `written` writes it at `position` (zarrs may hold its numbers in
/// another type: the legacy codec's offset as float32), else as zarrs describes it.
fn written_json(
    written: &serde_json::Value,
    position: usize,
    codec: &dyn zarrs::array::codec::api::CodecTraits,
) -> String {
    let name = codec.name(ZarrVersion::V3).map(|n| n.to_string());
    written
        .as_array()
        .and_then(|codecs| codecs.get(position))
        .filter(|written| {
            written["name"]
                .as_str()
                .is_some_and(|n| Some(n) == name.as_deref())
        })
        .map_or_else(
            || {
                let options = zarrs::array::codec::api::CodecMetadataOptions::default();
                codec_json(name, codec.configuration(ZarrVersion::V3, &options))
            },
            json,
        )
}

/// The inner codecs of a `sharding_indexed` codec written as `written`: its chain, the codecs'
/// metadata, and the codec's own metadata without them.
fn inner_chain(written: &serde_json::Value) -> Option<(CodecChain, serde_json::Value, String)> {
    if written["name"].as_str() != Some("sharding_indexed") {
        return None;
    }
    let inner = written["configuration"]["codecs"].clone();
    let metadata: Vec<MetadataV3> = serde_json::from_value(inner.clone()).ok()?;
    let chain = CodecChain::from_metadata(&metadata).ok()?;
    let mut outer = written.clone();
    outer["configuration"].as_object_mut()?.remove("codecs");
    Some((chain, inner, json(&outer)))
}

/// The steps of `chain` (written as `written`) entered with `(data type, fill value)`, the inner
/// chains of `sharding_indexed` codecs after their codec, one level deeper.
fn chain_steps(
    chain: &CodecChain,
    written: &serde_json::Value,
    (mut data_type, mut fill_value): (DataType, FillValue),
    depth: usize,
    steps: &mut Vec<Step>,
) {
    for (position, codec) in chain.array_to_array_codecs().iter().enumerate() {
        let mut step = Step {
            codec: written_json(written, position, codec.as_ref()),
            data_type: None,
            fill_value: None,
            depth,
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
    let plain = |codec: String| Step {
        codec,
        data_type: None,
        fill_value: None,
        depth,
    };
    let first = chain.array_to_array_codecs().len();
    let to_bytes = &written.as_array().and_then(|codecs| codecs.get(first));
    match to_bytes.and_then(inner_chain) {
        Some((inner, inner_written, outer)) => {
            steps.push(plain(outer));
            chain_steps(
                &inner,
                &inner_written,
                (data_type, fill_value),
                depth + 1,
                steps,
            );
        }
        None => steps.push(plain(written_json(
            written,
            first,
            chain.array_to_bytes_codec().as_ref(),
        ))),
    }
    steps.extend(
        chain
            .bytes_to_bytes_codecs()
            .iter()
            .enumerate()
            .map(|(i, c)| plain(written_json(written, first + 1 + i, c.as_ref()))),
    );
}

/// The array-to-array codecs an element passes through when written: the array's own, then
/// those of the inner chain of its `sharding_indexed` codec (and so on, for nested sharding).
fn array_to_array_codecs<TStorage: ?Sized>(
    array: &Array<TStorage>,
) -> Vec<Arc<dyn ArrayToArrayCodecTraits>> {
    let metadata = serde_json::to_value(array.metadata()).unwrap_or_default();
    let mut codecs = array.codecs().array_to_array_codecs().to_vec();
    let mut written = metadata["codecs"].clone();
    let mut first = codecs.len();
    while let Some((inner, inner_written, _)) = written
        .as_array()
        .and_then(|w| w.get(first))
        .and_then(inner_chain)
    {
        codecs.extend(inner.array_to_array_codecs().iter().cloned());
        first = inner.array_to_array_codecs().len();
        written = inner_written;
    }
    codecs
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
    step.is_finite().then_some(step)
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
