//! The `quantize` library function on arrays zarr-python wrote (`tests/data/legacy`, made by
//! `tests/data/legacy/make_fixtures.py`): the copy keeps shape, chunks, shards and their inner
//! chunks, compressors (Blosc set for the stored type), fill value, dimension names and
//! attributes unless the options change them, and every element reads back within the planned
//! bound.

use std::sync::Arc;

use serde_json::json;
use zarrs::array::{Array, ArrayBuilder, data_type};
use zarrs::filesystem::FilesystemStore;
use zarrs::storage::store::MemoryStore;
use zarrs::storage::{ListableStorageTraits, ReadableWritableStorageTraits};
use zarrs_scale_offset_cast_tools::quantize::{
    Chunking, PlanError, Precision, QuantizeError, QuantizeOptions, QuantizeReport,
    prepare_quantization, quantize_array,
};

fn fixture(name: &str) -> Array<FilesystemStore> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/legacy/arrays/");
    let store = Arc::new(FilesystemStore::new(format!("{root}{name}")).unwrap());
    Array::open(store, "/").unwrap()
}

fn expected(name: &str) -> Vec<f64> {
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/legacy/manifest.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let case = manifest["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"] == format!("arrays/{name}"))
        .unwrap();
    case["expected_values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap_or(f64::NAN))
        .collect()
}

#[test]
fn quantized_copies_read_back_within_the_bound() {
    let mut checked = 0;
    for (name, precision) in [
        ("v3-f64-plain", Precision::MaxError(1e-4)),
        ("v2-f4-plain", Precision::SignificantDigits(4)),
    ] {
        let source = fixture(name);
        let store = Arc::new(MemoryStore::new());
        let (target, report) =
            quantize_array(&source, store, "/q", &QuantizeOptions::new(precision)).unwrap();
        assert_eq!(target.shape(), source.shape());
        assert_eq!(target.chunk_grid_shape(), source.chunk_grid_shape());
        assert_eq!(target.fill_value(), source.fill_value());
        assert_eq!(target.dimension_names(), source.dimension_names());
        assert_eq!(target.attributes(), source.attributes());
        let want = expected(name);
        assert_eq!(report.elements(), want.len() as u64);
        assert!(report.max_error() <= report.plan().max_error());
        let got = values(&target);
        for (x, z) in want.iter().zip(&got) {
            assert!(
                (x.is_nan() && z.is_nan()) || (z - x).abs() <= report.plan().max_error(),
                "{name}: {x} read as {z}"
            );
            checked += 1;
        }
    }
    println!("{checked} elements within the bound");
    assert_eq!(checked, 2600);
}

#[test]
fn integer_arrays_are_not_quantized() {
    let store = Arc::new(MemoryStore::new());
    let source = ArrayBuilder::new(vec![4], vec![4], data_type::int32(), 0i32)
        .build(store.clone(), "/ints")
        .unwrap();
    source.store_chunk(&[0], vec![1i32, 2, 3, 4]).unwrap();
    let error = quantize_array(
        &source,
        store,
        "/q",
        &QuantizeOptions::new(Precision::MaxError(0.1)),
    )
    .unwrap_err();
    assert!(
        matches!(
            error,
            QuantizeError::Plan(PlanError::UnsupportedDataType(_))
        ),
        "{error}"
    );
}

/// Every element of a float array, as `f64`.
fn values<T: ?Sized + zarrs::storage::ReadableStorageTraits + 'static>(
    array: &Array<T>,
) -> Vec<f64> {
    let bytes: zarrs::array::ArrayBytes<'static> =
        array.retrieve_array_subset(&array.subset_all()).unwrap();
    let bytes = bytes.into_fixed().unwrap();
    if array.data_type() == &data_type::float32() {
        bytes
            .chunks_exact(4)
            .map(|b| f64::from(f32::from_ne_bytes(b.try_into().unwrap())))
            .collect()
    } else {
        bytes
            .chunks_exact(8)
            .map(|b| f64::from_ne_bytes(b.try_into().unwrap()))
            .collect()
    }
}

/// The copy's metadata as stored, after checking that each element reads back within the bound.
fn checked_copy<T: ?Sized + ReadableWritableStorageTraits + 'static>(
    name: &str,
    target: &Array<T>,
    report: &QuantizeReport,
) -> serde_json::Value {
    let want = expected(name);
    let got = values(target);
    assert_eq!(got.len(), want.len());
    for (x, z) in want.iter().zip(&got) {
        assert!(
            (x.is_nan() && z.is_nan()) || (z - x).abs() <= report.plan().max_error(),
            "{name}: {x} read as {z}"
        );
    }
    serde_json::to_value(target.metadata()).unwrap()
}

/// The names of the codecs of a chain's metadata.
fn names(codecs: &serde_json::Value) -> Vec<&str> {
    codecs
        .as_array()
        .unwrap()
        .iter()
        .map(|codec| codec["name"].as_str().unwrap())
        .collect()
}

#[test]
fn a_sharded_blosc_source_keeps_its_shards_and_blosc_set_for_the_stored_type() {
    let name = "v3-f64-sharded-blosc";
    let source = fixture(name);
    let before = serde_json::to_value(source.metadata()).unwrap();
    let (target, report) = quantize_array(
        &source,
        Arc::new(MemoryStore::new()),
        "/q",
        &QuantizeOptions::new(Precision::MaxError(1e-4)),
    )
    .unwrap();
    assert_eq!(report.plan().storage(), &data_type::uint16());
    let after = checked_copy(name, &target, &report);
    for key in ["chunk_grid", "dimension_names", "attributes", "fill_value"] {
        assert_eq!(after[key], before[key], "{key}");
    }
    assert_eq!(names(&after["codecs"]), ["sharding_indexed"]);
    let (sharding, source_sharding) = (
        &after["codecs"][0]["configuration"],
        &before["codecs"][0]["configuration"],
    );
    for key in ["chunk_shape", "index_codecs", "index_location"] {
        assert_eq!(sharding[key], source_sharding[key], "{key}");
    }
    let inner = &sharding["codecs"];
    assert_eq!(
        names(inner),
        ["scale_offset", "cast_value", "bytes", "blosc"]
    );
    // zarr-python's Blosc for the stored uint16: the source's settings, typesize 2.
    assert_eq!(source_sharding["codecs"][1]["configuration"]["typesize"], 8);
    assert_eq!(
        inner[3]["configuration"],
        json!({"typesize": 2, "cname": "zstd", "clevel": 5, "shuffle": "shuffle", "blocksize": 0})
    );
}

#[test]
fn the_options_change_the_chunks_the_shards_and_the_compressors() {
    let precision = Precision::MaxError(1e-4);
    // The sharded source written as plain chunks without a compressor.
    let name = "v3-f64-sharded-blosc";
    let options = QuantizeOptions::new(precision)
        .with_chunking(Chunking::Chunks(shape(&[20, 25])))
        .with_compressors(Vec::new());
    let (target, report) =
        quantize_array(&fixture(name), Arc::new(MemoryStore::new()), "/q", &options).unwrap();
    let after = checked_copy(name, &target, &report);
    assert_eq!(
        names(&after["codecs"]),
        ["scale_offset", "cast_value", "bytes"]
    );
    assert_eq!(
        after["chunk_grid"]["configuration"]["chunk_shape"],
        json!([20, 25])
    );
    // A plain source written in shards: zarr-python's index, the source's compressors (none).
    let name = "v3-f64-plain";
    let options = QuantizeOptions::new(precision).with_chunking(Chunking::Shards {
        chunks: shape(&[10, 10]),
        shards: shape(&[20, 50]),
    });
    let (target, report) =
        quantize_array(&fixture(name), Arc::new(MemoryStore::new()), "/q", &options).unwrap();
    let after = checked_copy(name, &target, &report);
    assert_eq!(
        after["chunk_grid"]["configuration"]["chunk_shape"],
        json!([20, 50])
    );
    let sharding = &after["codecs"][0]["configuration"];
    assert_eq!(sharding["chunk_shape"], json!([10, 10]));
    assert_eq!(
        names(&sharding["codecs"]),
        ["scale_offset", "cast_value", "bytes"]
    );
    assert_eq!(names(&sharding["index_codecs"]), ["bytes", "crc32c"]);
    assert_eq!(sharding["index_location"], "end");
    // A shape of another dimensionality is refused before anything is written.
    let options = QuantizeOptions::new(precision).with_chunking(Chunking::Chunks(shape(&[8])));
    let store = Arc::new(MemoryStore::new());
    let error = quantize_array(&fixture(name), store.clone(), "/q", &options).unwrap_err();
    assert!(
        error.to_string().contains("1 dimensions for an array of 2"),
        "{error}"
    );
    assert!(
        store.list().unwrap().is_empty(),
        "a refused quantization wrote {:?}",
        store.list()
    );
}

#[test]
fn a_quantization_is_decided_without_writing_and_an_invalid_precision_without_reading() {
    let source = fixture("v3-f64-sharded-blosc");
    let options = QuantizeOptions::new(Precision::MaxError(1e-4));
    let prepared = prepare_quantization(&source, &options).unwrap();
    assert_eq!(prepared.layout().chunk_shape(), [30, 50]);
    assert_eq!(prepared.layout().inner_chunk_shape(), Some(vec![10, 25]));
    assert_eq!(prepared.layout().compressors()[0].name(), "blosc");
    assert_eq!(prepared.plan().scale().to_bits(), 10000f64.to_bits());
    // A source that cannot be read: the precision is refused first.
    let store = Arc::new(MemoryStore::new());
    let unread = ArrayBuilder::new(vec![4], vec![4], data_type::float64(), 0.0f64)
        .build(store, "/never-written")
        .unwrap();
    for precision in [Precision::MaxError(0.0), Precision::SignificantDigits(0)] {
        let options = QuantizeOptions::new(precision);
        let error = prepare_quantization(&unread, &options).unwrap_err();
        assert!(
            matches!(error, QuantizeError::Plan(PlanError::InvalidPrecision(_))),
            "{error}"
        );
    }
}

fn shape(dims: &[u64]) -> Vec<std::num::NonZeroU64> {
    dims.iter()
        .map(|&n| std::num::NonZeroU64::new(n).unwrap())
        .collect()
}
