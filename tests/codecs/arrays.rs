//! Arrays of both codecs in a memory store, for the integration tests.

use std::sync::Arc;

use serde_json::{Value as Json, json};
use zarrs::array::{Array, ArrayMetadata, ArraySubset};
use zarrs::storage::store::MemoryStore;
use zarrs::storage::{ReadableStorageTraits, StoreKey, WritableStorageTraits};

/// Writes array metadata with `codecs` (then `bytes`) to a new memory store and opens it.
pub(crate) fn open(
    shape: &[u64],
    chunk: &[u64],
    data_type: &str,
    fill_value: Json,
    codecs: Json,
) -> Result<(Arc<MemoryStore>, Array<MemoryStore>), String> {
    let Json::Array(mut codecs) = codecs else {
        panic!("codecs must be a list")
    };
    codecs.push(json!({"name": "bytes", "configuration": {"endian": "little"}}));
    let mut metadata = json!({
        "zarr_format": 3,
        "node_type": "array",
        "shape": shape,
        "data_type": data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunk}},
        "chunk_key_encoding": {"name": "default"},
    });
    metadata["fill_value"] = fill_value;
    metadata["codecs"] = Json::Array(codecs);
    let store = Arc::new(MemoryStore::new());
    store
        .set(
            &StoreKey::new("a/zarr.json").unwrap(),
            serde_json::to_vec(&metadata).unwrap().into(),
        )
        .unwrap();
    let array = Array::open(store.clone(), "/a").map_err(|e| e.to_string())?;
    Ok((store, array))
}

/// The elements `start..end` of a one-dimensional array.
pub(crate) fn span(start: u64, end: u64) -> ArraySubset {
    ArraySubset::new_with_start_shape(vec![start], vec![end - start]).unwrap()
}

pub(crate) fn stored_metadata(store: &MemoryStore) -> Json {
    let bytes = store
        .get(&StoreKey::new("a/zarr.json").unwrap())
        .unwrap()
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

pub(crate) const NAN_TO_UINT8: &str = r#"[
    {"name": "scale_offset", "configuration": {"offset": -10, "scale": 0.1}},
    {"name": "cast_value", "configuration": {"data_type": "uint8", "rounding": "nearest-even",
        "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}}
]"#;

/// A one-dimensional array of `len` elements in chunks of `chunk`, with `codecs` then `bytes`.
pub(crate) fn open_1d(
    data_type: &str,
    fill: &Json,
    codecs: &Json,
    len: u64,
    chunk: u64,
) -> Result<(Arc<MemoryStore>, Array<MemoryStore>), String> {
    let mut codecs = codecs.as_array().unwrap().clone();
    codecs.push(json!({"name": "bytes", "configuration": {"endian": "little"}}));
    let metadata: ArrayMetadata = serde_json::from_value(json!({
        "zarr_format": 3, "node_type": "array", "shape": [len], "data_type": data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [chunk]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": fill, "codecs": codecs,
    }))
    .map_err(|e| e.to_string())?;
    let store = Arc::new(MemoryStore::new());
    let array =
        Array::new_with_metadata(store.clone(), "/", metadata).map_err(|e| e.to_string())?;
    Ok((store, array))
}

/// A chain of one `scale_offset` codec with `configuration`.
pub(crate) fn scale_offset(configuration: &Json) -> Json {
    json!([{"name": "scale_offset", "configuration": configuration}])
}
