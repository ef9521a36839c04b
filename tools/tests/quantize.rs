//! The `quantize` library function on arrays zarr-python wrote (`tests/data/legacy`, made by
//! `tests/data/legacy/make_fixtures.py`): the copy keeps shape, chunks, fill value, dimension
//! names and attributes, and every element reads back within the planned bound.

use std::sync::Arc;

use zarrs::array::{Array, ArrayBuilder, data_type};
use zarrs::filesystem::FilesystemStore;
use zarrs::storage::store::MemoryStore;
use zarrs_scale_offset_cast_tools::quantize::{
    PlanError, Precision, QuantizeError, QuantizeOptions, quantize_array,
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
        let bytes: zarrs::array::ArrayBytes<'static> =
            target.retrieve_array_subset(&target.subset_all()).unwrap();
        let bytes = bytes.into_fixed().unwrap();
        let got: Vec<f64> = if source.data_type() == &data_type::float32() {
            bytes
                .chunks_exact(4)
                .map(|b| f64::from(f32::from_ne_bytes(b.try_into().unwrap())))
                .collect()
        } else {
            bytes
                .chunks_exact(8)
                .map(|b| f64::from_ne_bytes(b.try_into().unwrap()))
                .collect()
        };
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
