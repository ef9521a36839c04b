//! The codec chain of an array step by step: each codec as the metadata writes it, the data type
//! and fill value after each array-to-array codec, and the inner chains of `sharding_indexed`.

use std::sync::Arc;

use zarrs::array::codec::api::ArrayToArrayCodecTraits;
use zarrs::array::{Array, CodecChain, DataType, FillValue};
use zarrs::metadata::v3::MetadataV3;
use zarrs::plugin::ZarrVersion;

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

fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

pub(super) fn fill_json(data_type: &DataType, fill_value: &FillValue) -> String {
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
pub(super) fn chain_steps(
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
pub(super) fn array_to_array_codecs<TStorage: ?Sized>(
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
pub(super) fn names_any_of(codecs: &serde_json::Value, names: &[&str]) -> bool {
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
