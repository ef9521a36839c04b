//! The arrays the store tests read and write, and what zarr-python reads from them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use object_store::ClientOptions;
use object_store::http::{HttpBuilder, HttpStore};
use serde_json::Value as Json;
use zarrs::array::{Array, ArrayBytes, ArrayMetadata, ArraySubset, FillValueMetadata};
use zarrs::filesystem::FilesystemStore;
use zarrs::storage::{
    AsyncReadableStorageTraits, AsyncReadableWritableListableStorageTraits, ReadableStorageTraits,
};
use zarrs_object_store::AsyncObjectStore;
use zarrs_scale_offset_cast::FusedReader;

/// The crate's interop fixtures (44 arrays zarr-python 3.4.2 wrote, `tests/data/interop`).
#[must_use]
pub fn interop() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data/interop")
}

/// The interop fixtures' cases (`manifest.json`).
///
/// # Panics
/// If the manifest cannot be read.
#[must_use]
pub fn interop_cases() -> Vec<Json> {
    let manifest = std::fs::read_to_string(interop().join("manifest.json")).unwrap();
    let manifest: Json = serde_json::from_str(&manifest).unwrap();
    manifest["cases"].as_array().unwrap().clone()
}

/// This crate's data: the Sentinel-2-like group `sentinel2.zarr`, its zip archive
/// `sentinel2.zip` and the values zarr-python reads from them (`make_fixture.py`).
#[must_use]
pub fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

/// An array of the Sentinel-2-like group and its values as zarr-python reads them.
pub struct Expected {
    /// The array's path within the group.
    pub path: String,
    /// Its shape.
    pub shape: Vec<u64>,
    /// Its values, C order.
    pub values: Vec<f64>,
}

/// The arrays of the Sentinel-2-like group.
///
/// # Panics
/// If the fixture's files cannot be read.
#[must_use]
pub fn sentinel2() -> Vec<Expected> {
    let listing = std::fs::read_to_string(data().join("sentinel2.json")).unwrap();
    let listing: Json = serde_json::from_str(&listing).unwrap();
    listing["arrays"]
        .as_array()
        .unwrap()
        .iter()
        .map(|array| {
            let bytes = std::fs::read(data().join(array["values"].as_str().unwrap())).unwrap();
            Expected {
                path: format!("/{}", array["path"].as_str().unwrap()),
                shape: serde_json::from_value(array["shape"].clone()).unwrap(),
                values: bytes
                    .chunks_exact(8)
                    .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
                    .collect(),
            }
        })
        .collect()
}

/// Whether two float64 reads agree element by element (NaN with NaN, otherwise bit for bit).
#[must_use]
pub fn same_values(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits())
}

/// The whole of the interop fixture `case`, read through zarrs from the file system.
///
/// # Panics
/// If it cannot be read.
#[must_use]
pub fn read_from_files(case: &Json) -> Vec<u8> {
    let store = Arc::new(FilesystemStore::new(interop().join(path(case))).unwrap());
    read_whole(&Array::open(store, "/").unwrap())
}

/// The whole of `array`, as bytes.
///
/// # Panics
/// If it cannot be read.
#[must_use]
pub fn read_whole<S: ?Sized + ReadableStorageTraits + 'static>(array: &Array<S>) -> Vec<u8> {
    let whole = ArraySubset::new_with_shape(array.shape().to_vec());
    let bytes: ArrayBytes<'static> = array.retrieve_array_subset(&whole).unwrap();
    bytes.into_fixed().unwrap().into_owned()
}

/// The case's folder, relative to the interop fixtures.
///
/// # Panics
/// If the case has no path.
#[must_use]
pub fn path(case: &Json) -> &str {
    case["path"].as_str().unwrap()
}

/// Whether the case's chunks go through a compressor (whose bytes may differ between
/// implementations).
#[must_use]
pub fn compressed(case: &Json) -> bool {
    let codecs = case["codecs"].to_string();
    ["gzip", "zstd", "blosc"]
        .iter()
        .any(|name| codecs.contains(&format!("\"{name}\"")))
}

/// Writes the interop fixture `case` again into `store` at `/`, from its metadata and input values
/// over its write regions, through zarrs' asynchronous API.
///
/// The codecs of the metadata get an explicit (empty) `configuration` where they have none, so
/// that zarrs writes them as objects, which zarr-python 3.4.2 requires.
///
/// # Errors
/// Returns the first error of zarrs.
///
/// # Panics
/// If the fixture cannot be read.
pub async fn write_case<S: ?Sized + AsyncReadableWritableListableStorageTraits + 'static>(
    store: Arc<S>,
    case: &Json,
) -> Result<(), zarrs::array::ArrayError> {
    let mut metadata = std::fs::read_to_string(interop().join(path(case)).join("zarr.json"))
        .map(|text| serde_json::from_str::<Json>(&text).unwrap())
        .unwrap();
    for codec in metadata["codecs"].as_array_mut().unwrap() {
        if let Json::Object(codec) = codec {
            codec
                .entry("configuration")
                .or_insert_with(|| Json::Object(serde_json::Map::new()));
        }
    }
    let metadata: ArrayMetadata = serde_json::from_value(metadata).unwrap();
    let array = Array::new_with_metadata(store, "/", metadata).unwrap();
    array.async_store_metadata().await?;
    let shape = array.shape().to_vec();
    let inputs = case["input_values"].as_array().unwrap();
    for write in case["writes"].as_array().unwrap() {
        let start: Vec<u64> = serde_json::from_value(write["start"].clone()).unwrap();
        let stop: Vec<u64> = serde_json::from_value(write["stop"].clone()).unwrap();
        let mut bytes = Vec::new();
        for value in region_values(inputs, &shape, &start, &stop) {
            let metadata: FillValueMetadata = serde_json::from_value(value.clone()).unwrap();
            let element = array.data_type().fill_value_v3(&metadata).unwrap();
            bytes.extend_from_slice(element.as_ne_bytes());
        }
        let ranges: Vec<_> = start.iter().zip(&stop).map(|(&a, &b)| a..b).collect();
        array
            .async_store_array_subset(
                &ArraySubset::new_with_ranges(&ranges),
                ArrayBytes::new_flen(bytes),
            )
            .await?;
    }
    Ok(())
}

/// The C-order values of `region` (start/stop per dimension) of an array of `shape`.
fn region_values<'a>(
    values: &'a [Json],
    shape: &[u64],
    start: &[u64],
    stop: &[u64],
) -> Vec<&'a Json> {
    let total: u64 = start.iter().zip(stop).map(|(a, b)| b - a).product();
    (0..total)
        .map(|mut i| {
            let mut flat = 0;
            let mut stride = 1;
            for d in (0..shape.len()).rev() {
                let len = stop[d] - start[d];
                flat += (start[d] + i % len) * stride;
                stride *= shape[d];
                i /= len;
            }
            &values[usize::try_from(flat).unwrap()]
        })
        .collect()
}

/// Reads every array of the Sentinel-2-like group in `store` (rooted at the group): whole and a
/// subset across chunks, through zarrs and through [`FusedReader`] into a new vector, and
/// compares each element with zarr-python's read; returns the number of reads compared.
///
/// # Panics
/// If a read fails or differs.
pub fn check_sentinel2<S: ?Sized + ReadableStorageTraits + 'static>(store: &Arc<S>) -> usize {
    let mut reads = 0;
    for expected in sentinel2() {
        let array = Array::open(Arc::clone(store), &expected.path).unwrap();
        let reader = FusedReader::new(&array);
        for (subset, values) in subsets(&expected) {
            let zarrs: Vec<f64> = array.retrieve_array_subset(&subset).unwrap();
            let fused: Vec<f64> = reader.retrieve_array_subset(&subset).unwrap();
            assert!(same_values(&zarrs, &values), "{} {subset:?}", expected.path);
            assert!(same_values(&fused, &values), "{} {subset:?}", expected.path);
            reads += 2;
        }
    }
    reads
}

/// [`check_sentinel2`] through zarrs' asynchronous API.
///
/// # Panics
/// If a read fails or differs.
pub async fn check_sentinel2_async<S: ?Sized + AsyncReadableStorageTraits + 'static>(
    store: &Arc<S>,
) -> usize {
    let mut reads = 0;
    for expected in sentinel2() {
        let array = Array::async_open(Arc::clone(store), &expected.path)
            .await
            .unwrap();
        let reader = FusedReader::new(&array);
        for (subset, values) in subsets(&expected) {
            let zarrs: Vec<f64> = array.async_retrieve_array_subset(&subset).await.unwrap();
            let fused: Vec<f64> = reader.async_retrieve_array_subset(&subset).await.unwrap();
            assert!(same_values(&zarrs, &values), "{} {subset:?}", expected.path);
            assert!(same_values(&fused, &values), "{} {subset:?}", expected.path);
            reads += 2;
        }
    }
    reads
}

/// The whole array, a subset across chunk (and shard) boundaries, and windows of a few rows inside
/// one inner chunk (which Blosc decompresses in part) and at the array's edge, with their expected
/// values.
fn subsets(expected: &Expected) -> Vec<(ArraySubset, Vec<f64>)> {
    let (rows, columns) = (expected.shape[0], expected.shape[1]);
    let whole = ArraySubset::new_with_shape(expected.shape.clone());
    let part = ArraySubset::new_with_ranges(&[20..rows - 7, 30..columns - 1]);
    let windows = [
        ArraySubset::new_with_ranges(&[35..41, 37..44]),
        ArraySubset::new_with_ranges(&[rows - 3..rows, columns - 10..columns]),
    ];
    let values = |subset: &ArraySubset| {
        let mut values = Vec::new();
        for row in subset.start()[0]..subset.end_exc()[0] {
            let first = usize::try_from(row * columns + subset.start()[1]).unwrap();
            let last = usize::try_from(row * columns + subset.end_exc()[1]).unwrap();
            values.extend_from_slice(&expected.values[first..last]);
        }
        values
    };
    [whole, part]
        .into_iter()
        .chain(windows)
        .map(|subset| {
            let values = values(&subset);
            (subset, values)
        })
        .collect()
}

/// `object_store`'s HTTP client for `url` (plain HTTP allowed, for the loopback server).
///
/// # Panics
/// If `url` is not a URL.
#[must_use]
pub fn http_client(url: &str) -> HttpStore {
    HttpBuilder::new()
        .with_url(url)
        .with_client_options(ClientOptions::new().with_allow_http(true))
        .build()
        .unwrap()
}

/// An asynchronous store reading `url` through `object_store`'s HTTP client ([`http_client`]).
///
/// # Panics
/// If `url` is not a URL.
#[must_use]
pub fn http_object_store(url: &str) -> Arc<AsyncObjectStore<HttpStore>> {
    Arc::new(AsyncObjectStore::new(http_client(url)))
}
