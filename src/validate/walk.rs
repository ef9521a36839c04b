//! Following an array's codec chain, the inner chains of `sharding_indexed` included, and deciding
//! about it as a whole.

use std::fmt::Write as _;
use std::num::NonZeroU64;
use std::sync::Arc;

use zarrs::array::codec::CodecChain;
use zarrs::array::codec::api::{
    ArrayToArrayCodecTraits, ArrayToBytesCodecTraits, CodecError, CodecMetadataOptions,
};
use zarrs::array::{Array, ArrayError, DataType, FillValue};
use zarrs::plugin::ZarrVersion;
use zarrs_metadata_ext::codec::sharding::ShardingCodecConfigurationV1;

use super::element_codec;
use crate::chain::safety::{Unreadable, check};
use crate::chain::step::Step;
use crate::chain::{Context, ElementCodec, FillRule, fill_changes};
use crate::error::Error;
use crate::numeric::{OutOfRangeMode, element_bits, numeric_type};
use crate::{Direction, ElementErrorKind};

/// Array-to-array codecs that move or reshape elements without changing their values.
const TRANSPARENT: [&str; 3] = ["transpose", "reshape", "squeeze"];

/// One array-to-array codec of the chain, in encoding order.
struct Item {
    /// The codec (for the inner chains of `sharding_indexed`, one made from their metadata).
    codec: Arc<dyn ArrayToArrayCodecTraits>,
    /// What it receives when encoding.
    data_type: DataType,
    fill: FillValue,
    /// The element functions of one of the crate's codecs; `None` for other codecs.
    step: Option<Step>,
    /// Whether it keeps every value as it is (the crate's codecs aside).
    transparent: bool,
}

impl Item {
    fn element_codec(&self) -> Option<&dyn ElementCodec> {
        element_codec(&self.codec)
    }
}

/// Runs every check of the crate's codecs in `array`'s chain and decides the chain as a whole:
/// for each array-to-array codec, in the order [`walk`] meets them (the inner chains of
/// `sharding_indexed` after the codecs before it), what a copy of it built with its chain knows
/// (`None` for other codecs).
///
/// # Errors
/// Returns the first error found.
pub(crate) fn decide<TStorage: ?Sized>(
    array: &Array<TStorage>,
) -> Result<Vec<Option<Context>>, ArrayError> {
    let shape = array.chunk_shape(&vec![0; array.dimensionality()])?;
    let mut items = Vec::new();
    walk(
        &array.codecs(),
        &shape,
        array.data_type(),
        array.fill_value(),
        &mut items,
    )?;
    // Runs of codecs the checks can follow, split at any other value-changing codec.
    let runs: Vec<Vec<usize>> = items
        .split(|item| item.step.is_none() && !item.transparent)
        .scan(0, |offset, run| {
            let start = *offset;
            *offset += run.len() + 1;
            Some(
                (start..start + run.len())
                    .filter(|&i| items[i].step.is_some())
                    .collect(),
            )
        })
        .collect();
    for run in &runs {
        let steps: Vec<Step> = run.iter().filter_map(|&i| items[i].step.clone()).collect();
        check(&steps).map_err(|unreadable| chain_error(&items, run, &unreadable))?;
    }
    let followable = runs.len() == 1;
    let fill_rule = followable.then(|| fill_rule(&items, array.data_type(), array.fill_value()));
    let last_run = runs.last().map(Vec::as_slice).unwrap_or_default();
    let first_run = runs.first().map(Vec::as_slice).unwrap_or_default();
    if let Some(FillRule::Changes(error)) = fill_rule {
        return Err(error.into());
    }
    let mut contexts = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        if item.step.is_none() {
            contexts.push(None);
            continue;
        }
        let rest: Vec<Step> = last_run
            .iter()
            .filter(|&&j| j > i)
            .filter_map(|&j| items[j].step.clone())
            .collect();
        let in_last_run = last_run.contains(&i);
        let before: Vec<Step> = first_run
            .iter()
            .filter(|&&j| j < i)
            .filter_map(|&j| items[j].step.clone())
            .collect();
        let in_first_run = first_run.contains(&i);
        contexts.push(Some(Context {
            data_type: item.data_type.clone(),
            fill: item.fill.as_ne_bytes().to_vec(),
            rest: (in_last_run && !rest.is_empty()).then_some(rest),
            fill_rule: fill_rule.clone(),
            before: (in_first_run && !before.is_empty()).then_some(before),
        }));
    }
    Ok(contexts)
}

/// Appends the array-to-array codecs of `chain` (and of the inner chain of a `sharding_indexed`
/// codec) to `items`, checking each of the crate's codecs against what it receives.
fn walk(
    chain: &CodecChain,
    shape: &[NonZeroU64],
    data_type: &DataType,
    fill_value: &FillValue,
    items: &mut Vec<Item>,
) -> Result<(), ArrayError> {
    let mut shape = shape.to_vec();
    let mut data_type = data_type.clone();
    let mut fill_value = fill_value.clone();
    for codec in chain.array_to_array_codecs() {
        let (step, (encoded_type, encoded_fill)) = if let Some(element) = element_codec(codec) {
            (
                Some(element.step(&data_type)?),
                element.check(&data_type, &fill_value)?,
            )
        } else {
            let (_, encoded_type, encoded_fill) =
                codec.encoded_representation(&shape, &data_type, &fill_value)?;
            (None, (encoded_type, encoded_fill))
        };
        let name = codec.name(ZarrVersion::V3);
        items.push(Item {
            codec: Arc::clone(codec),
            data_type: data_type.clone(),
            fill: fill_value.clone(),
            step,
            transparent: name
                .as_deref()
                .is_some_and(|name| TRANSPARENT.contains(&name)),
        });
        shape = codec.encoded_shape(&shape)?;
        data_type = encoded_type;
        fill_value = encoded_fill;
    }
    let array_to_bytes = chain.array_to_bytes_codec();
    if let Some(sharding) = sharding_configuration(array_to_bytes)? {
        let inner = CodecChain::from_metadata(&sharding.codecs)
            .map_err(|error| CodecError::Other(error.to_string()))?;
        walk(
            &inner,
            &sharding.chunk_shape,
            &data_type,
            &fill_value,
            items,
        )
    } else {
        array_to_bytes.encoded_representation(&shape, &data_type, &fill_value)?;
        Ok(())
    }
}

/// The configuration of `codec` if it is `sharding_indexed`.
pub(crate) fn sharding_configuration(
    codec: &Arc<dyn ArrayToBytesCodecTraits>,
) -> Result<Option<ShardingCodecConfigurationV1>, ArrayError> {
    if codec.name(ZarrVersion::V3).as_deref() != Some("sharding_indexed") {
        return Ok(None);
    }
    let configuration = codec
        .configuration(ZarrVersion::V3, &CodecMetadataOptions::default())
        .ok_or_else(|| CodecError::Other("sharding_indexed has no configuration".into()))?;
    let sharding = configuration
        .to_typed()
        .map_err(|error| CodecError::Other(error.to_string()))?;
    Ok(Some(sharding))
}

/// Whether the fill value comes back from the whole chain bit for bit, each codec running its
/// kernels as it does for a chunk's elements.
fn fill_rule(items: &[Item], data_type: &DataType, fill_value: &FillValue) -> FillRule {
    let Some(t) = numeric_type(data_type) else {
        return FillRule::Survives;
    };
    let round_trip = |bits: u64| -> Option<u64> {
        let mut x = bits;
        for item in items {
            if let Some(codec) = item.element_codec() {
                x = codec
                    .convert_one(&item.data_type, Direction::Encode, x)
                    .ok()?;
            }
        }
        for item in items.iter().rev() {
            if let Some(codec) = item.element_codec() {
                x = codec
                    .convert_one(&item.data_type, Direction::Decode, x)
                    .ok()?;
            }
        }
        Some(x)
    };
    let fill = element_bits(fill_value.as_ne_bytes());
    match fill_changes(t, fill, "the codec chain", round_trip) {
        None => FillRule::Survives,
        Some(error) => FillRule::Changes(error),
    }
}

/// The error for a value that a codec of `run` cannot decode although a later one hands it back.
fn chain_error(items: &[Item], run: &[usize], unreadable: &Unreadable) -> ArrayError {
    let item = |i: usize| &items[run[i]];
    let describe = |i: usize| {
        let step = item(i).step.as_ref().expect("a codec of the crate");
        let position = run[i] + 1;
        match step {
            Step::ScaleOffset { .. } => format!("scale_offset (codec {position} of the chain)"),
            Step::CastValue { encode, .. } => format!(
                "cast_value from {} to {} (codec {position} of the chain)",
                encode.from, encode.to
            ),
        }
    };
    let failing = item(unreadable.codec)
        .step
        .as_ref()
        .expect("a codec of the crate");
    let origin = item(unreadable.origin)
        .step
        .as_ref()
        .expect("a codec of the crate");
    let out_of_range = match origin {
        Step::CastValue { encode, .. } => encode.out_of_range,
        Step::ScaleOffset { .. } => None,
    };
    let how = match out_of_range {
        Some(OutOfRangeMode::Clamp) => "rounds or clamps",
        Some(OutOfRangeMode::Wrap) => "rounds or wraps",
        None => "rounds or maps",
    };
    let kind = ElementErrorKind::from(unreadable.fault);
    let value = unreadable.value;
    let position = run[unreadable.codec] + 1;
    let mut advice = match (failing, kind) {
        (
            Step::CastValue { .. },
            ElementErrorKind::NanNotRepresentable | ElementErrorKind::InfinityNotRepresentable,
        ) => {
            format!("add a scalar_map \"decode\" entry for {value} to codec {position}")
        }
        (Step::CastValue { .. }, _) => format!(
            "set out_of_range to \"clamp\" in codec {position}, or add a scalar_map \"decode\" entry for {value} to it"
        ),
        (Step::ScaleOffset { .. }, ElementErrorKind::NotExact) => format!(
            "choose a scale for codec {position} that divides every value the codecs after it can store"
        ),
        (Step::ScaleOffset { t, .. }, _) => format!(
            "choose an offset and scale for codec {position} under which every value the codecs after it can store decodes within {t}"
        ),
    };
    if out_of_range.is_some() {
        let _ = write!(
            advice,
            ", or leave out_of_range out of codec {} so that values beyond its range are refused",
            run[unreadable.origin] + 1
        );
    }
    Error::ChainUnreadable {
        codec: describe(unreadable.codec),
        origin: format!(
            "{} where it {how} what it stores",
            describe(unreadable.origin)
        ),
        value: format!("{value} ({})", failing.output()),
        kind,
        advice,
    }
    .into()
}
