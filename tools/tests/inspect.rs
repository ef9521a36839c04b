//! `inspect_array` on every zarr-python fixture: the chain step by step, validation, and the
//! statistics of the decoded values, against the fixtures' manifest.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value as Json;
use zarrs::array::Array;
use zarrs::filesystem::FilesystemStore;
use zarrs_scale_offset_cast_tools::inspect::inspect_array;

/// A JSON float scalar.
fn json_f64(json: &Json) -> f64 {
    match json {
        Json::Number(n) => n.as_f64().unwrap(),
        Json::String(s) => match s.as_str() {
            "NaN" => f64::NAN,
            "Infinity" => f64::INFINITY,
            "-Infinity" => f64::NEG_INFINITY,
            other => panic!("unexpected float scalar {other}"),
        },
        other => panic!("unexpected float scalar {other}"),
    }
}

/// The codecs of a chain, those of the inner chains of `sharding_indexed` codecs included.
fn codec_count(codecs: &Json) -> usize {
    codecs
        .as_array()
        .unwrap()
        .iter()
        .map(|codec| match &codec["configuration"]["codecs"] {
            inner @ Json::Array(_) if codec["name"] == "sharding_indexed" => 1 + codec_count(inner),
            _ => 1,
        })
        .sum()
}

#[test]
fn every_fixture_is_inspected_with_the_manifest_statistics() {
    // The codec crate's zarr-python fixtures.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data/interop");
    let manifest: Json =
        serde_json::from_str(&std::fs::read_to_string(root.join("manifest.json")).unwrap())
            .unwrap();
    let (mut arrays, mut with_statistics) = (0, 0);
    for case in manifest["cases"].as_array().unwrap() {
        let id = case["id"].as_str().unwrap();
        let store =
            Arc::new(FilesystemStore::new(root.join(case["path"].as_str().unwrap())).unwrap());
        let array = Array::open(store, "/").unwrap();
        let mut calls = 0;
        let report = inspect_array(&array, &mut |done, total| {
            calls += 1;
            assert!(done <= total);
        })
        .unwrap();
        arrays += 1;
        assert_eq!(report.steps().len(), codec_count(&case["codecs"]), "{id}");
        assert!(report.validation().is_ok(), "{id}");
        assert_eq!(
            report.data_type(),
            case["data_type"].as_str().unwrap(),
            "{id}"
        );
        let statistics = report
            .statistics()
            .unwrap_or_else(|| panic!("{id}: no statistics"));
        with_statistics += 1;
        let values: Vec<f64> = case["expected_values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| {
                if v.is_number() || v.is_string() {
                    json_f64(v)
                } else {
                    f64::NAN
                }
            })
            .collect();
        assert_eq!(statistics.elements(), values.len() as u64, "{id}");
        let nan = values.iter().filter(|v| v.is_nan()).count() as u64;
        assert_eq!(statistics.nan(), nan, "{id}");
        let numbers: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
        let min = numbers.iter().copied().reduce(f64::min);
        let max = numbers.iter().copied().reduce(f64::max);
        // Equal, infinities included, or within rounding of the decimal statistics.
        #[expect(clippy::float_cmp, reason = "infinities compare equal only exactly")]
        let close = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => a == b || (a - b).abs() <= 1e-9 * a.abs().max(1.0),
            (a, b) => a == b,
        };
        assert!(
            close(statistics.min(), min),
            "{id}: min {:?} vs {min:?}",
            statistics.min()
        );
        assert!(
            close(statistics.max(), max),
            "{id}: max {:?} vs {max:?}",
            statistics.max()
        );
        assert!(calls > 0, "{id}");
        if id == "spec-f64-u8-nan-map" || id == "shard-inner-f64-u8" {
            // scale 0.1 into uint8 (in the array's chain, or inside its shards): the stored
            // steps are 10 apart.
            assert_eq!(statistics.largest_step(), Some(10.0), "{id}");
        }
    }
    println!("inspect: {arrays} arrays, {with_statistics} with statistics");
    assert_eq!(arrays, 44);
    assert_eq!(with_statistics, 44);
}

#[test]
fn each_step_shows_the_codec_as_the_metadata_writes_it() {
    // zarrs reads the legacy codec's offset as float32 (-0.10000000149011612); the metadata says
    // -0.1, and so does the report.
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/legacy/arrays/v3-f64-u16-zstd");
    let written: Json =
        serde_json::from_str(&std::fs::read_to_string(path.join("zarr.json")).unwrap()).unwrap();
    let array = Array::open(Arc::new(FilesystemStore::new(&path).unwrap()), "/").unwrap();
    let report = inspect_array(&array, &mut |_, _| {}).unwrap();
    let codecs = written["codecs"].as_array().unwrap();
    assert_eq!(report.steps().len(), codecs.len());
    for (step, codec) in report.steps().iter().zip(codecs) {
        let shown: Json = serde_json::from_str(step.codec()).unwrap();
        assert_eq!(&shown, codec);
    }
    assert!(report.steps()[0].codec().contains("\"offset\":-0.1,"));
}

#[test]
fn a_sharded_array_shows_its_inner_chain_step_by_step() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data/interop/arrays/shard-inner-f64-u8");
    let array = Array::open(Arc::new(FilesystemStore::new(&path).unwrap()), "/").unwrap();
    let report = inspect_array(&array, &mut |_, _| {}).unwrap();
    let shown: Vec<(usize, Json, Option<&str>)> = report
        .steps()
        .iter()
        .map(|step| {
            let codec: Json = serde_json::from_str(step.codec()).unwrap();
            (step.depth(), codec, step.data_type())
        })
        .collect();
    let names: Vec<(usize, &str)> = shown
        .iter()
        .map(|(depth, codec, _)| (*depth, codec["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            (0, "sharding_indexed"),
            (1, "scale_offset"),
            (1, "cast_value"),
            (1, "bytes")
        ]
    );
    // The sharding codec without its inner codecs, which follow it one level deeper.
    assert!(shown[0].1["configuration"].get("codecs").is_none());
    assert_eq!(
        shown[0].1["configuration"]["chunk_shape"],
        serde_json::json!([4, 4])
    );
    assert_eq!(shown[1].1["configuration"]["scale"], serde_json::json!(0.1));
    assert_eq!(shown[1].2, Some("float64"));
    assert_eq!(shown[2].2, Some("uint8"));
    assert_eq!(report.steps()[2].fill_value(), Some("0"));
}
