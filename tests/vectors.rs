//! The conformance vectors (`tests/data/vectors.json`, `tests/data/exotic.json`), run through the
//! public zarrs API: a one-chunk array with the case's codecs and the little-endian `bytes` codec,
//! as `tests/data/vectors-README.md` describes.
//!
//! Each case is checked against `crate_expect` where it has one (the crate departs from
//! zarr-python and the specification for data safety), else `spec_expect` (zarr-python differs
//! from the specification), else `expect`.

mod common;

use std::sync::Arc;

use common::{Num, fill_value_json, from_bytes, matches, to_bytes};
use serde_json::{Value as Json, json};
use zarrs::array::CodecOptions;
use zarrs::array::{Array, ArrayBytes, ArrayMetadata, DataType, FillValue};
use zarrs::storage::store::MemoryStore;
use zarrs::storage::{ReadableStorageTraits, StoreKey, WritableStorageTraits};
use zarrs_scale_offset_cast as _;

/// What running a case gave.
struct Outcome {
    encoded_data_type: String,
    fill_value: Num,
    output: Option<Vec<Num>>,
}

/// The expectation a case is checked against.
fn expectation(case: &Json) -> Json {
    if let Some(crate_expect) = case.get("crate_expect") {
        return crate_expect.clone();
    }
    let expect = case["expect"].clone();
    match case.get("spec_expect") {
        Some(spec) => {
            if spec.get("error").is_some() || expect.get("error").is_some() {
                spec.clone()
            } else {
                // The spec reading overrides zarr-python's where it says something.
                let mut merged = expect;
                for (key, value) in spec.as_object().unwrap() {
                    merged[key] = value.clone();
                }
                merged
            }
        }
        _ => expect,
    }
}

fn encoded_data_type(case: &Json) -> String {
    case["codecs"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|codec| codec.get("name").and_then(Json::as_str) == Some("cast_value"))
        .filter_map(|codec| {
            let data_type = &codec["configuration"]["data_type"];
            data_type
                .as_str()
                .or_else(|| data_type["name"].as_str())
                .map(str::to_string)
        })
        .next_back()
        .unwrap_or_else(|| case["data_type"].as_str().unwrap().to_string())
}

/// The encoded data type and fill value after the array-to-array codecs.
fn encoded_representation<T: ?Sized>(array: &Array<T>) -> Result<(DataType, FillValue), String> {
    let mut data_type = array.data_type().clone();
    let mut fill_value = array.fill_value().clone();
    for codec in array.codecs().array_to_array_codecs() {
        fill_value = codec
            .encoded_fill_value(&data_type, &fill_value)
            .map_err(|e| e.to_string())?;
        data_type = codec
            .encoded_data_type(&data_type)
            .map_err(|e| e.to_string())?;
    }
    Ok((data_type, fill_value))
}

/// Runs a case; `Err` holds the error message of the first failing step.
fn run(case: &Json) -> Result<Outcome, String> {
    let data_type = case["data_type"].as_str().unwrap();
    let inputs = case["input"].as_array().unwrap();
    let kind = case["kind"].as_str().unwrap();
    let mut codecs = case["codecs"].as_array().unwrap().clone();
    codecs.push(json!({"name": "bytes", "configuration": {"endian": "little"}}));
    let metadata = json!({
        "zarr_format": 3,
        "node_type": "array",
        "shape": [inputs.len().max(1)],
        "data_type": data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [inputs.len().max(1)]}},
        "chunk_key_encoding": {"name": "default"},
        "fill_value": fill_value_json(data_type, &case["fill_value"]),
        "codecs": codecs,
    });
    let metadata: ArrayMetadata = serde_json::from_value(metadata).map_err(|e| e.to_string())?;
    let store = Arc::new(MemoryStore::new());
    let array =
        Array::new_with_metadata(store.clone(), "/", metadata).map_err(|e| e.to_string())?;
    let key = StoreKey::new("c/0").unwrap();
    let encoded_type = encoded_data_type(case);
    let output = match kind {
        "metadata" => {
            zarrs_scale_offset_cast::validate_array(&array).map_err(|e| e.to_string())?;
            None
        }
        "encode" => {
            let bytes: Vec<u8> = inputs.iter().flat_map(|v| to_bytes(data_type, v)).collect();
            let options = CodecOptions::default().with_store_empty_chunks(true);
            array
                .store_chunk_opt(&[0], ArrayBytes::new_flen(bytes), &options)
                .map_err(|e| e.to_string())?;
            let stored = store
                .get(&key)
                .map_err(|e| e.to_string())?
                .ok_or("no chunk stored")?;
            Some(from_bytes(&encoded_type, &stored))
        }
        "decode" => {
            let bytes: Vec<u8> = inputs
                .iter()
                .flat_map(|v| to_bytes(&encoded_type, v))
                .collect();
            store.set(&key, bytes.into()).map_err(|e| e.to_string())?;
            let decoded: ArrayBytes<'static> =
                array.retrieve_chunk(&[0]).map_err(|e| e.to_string())?;
            let decoded = decoded.into_fixed().map_err(|e| e.to_string())?;
            Some(from_bytes(data_type, &decoded))
        }
        other => panic!("unknown kind {other}"),
    };
    let (encoded, fill_value) = encoded_representation(&array)?;
    let encoded_data_type = encoded.name_v3().unwrap_or_default().to_string();
    let fill_value = from_bytes(&encoded_data_type, fill_value.as_ne_bytes())[0];
    Ok(Outcome {
        encoded_data_type,
        fill_value,
        output,
    })
}

/// Checks the outcome of a case against its expectation.
fn check(case: &Json) -> Result<(), String> {
    let expected = expectation(case);
    let outcome = run(case);
    if expected.get("error").is_some() {
        return match outcome {
            Err(_) => Ok(()),
            Ok(outcome) => Err(format!(
                "expected an error ({}), got output {:?}",
                expected["error"],
                outcome
                    .output
                    .map(|o| o.iter().map(ToString::to_string).collect::<Vec<_>>())
            )),
        };
    }
    let outcome = outcome.map_err(|e| format!("unexpected error: {e}"))?;
    if let Some(t) = expected.get("encoded_data_type").and_then(Json::as_str)
        && t != outcome.encoded_data_type
    {
        return Err(format!(
            "encoded data type {} instead of {t}",
            outcome.encoded_data_type
        ));
    }
    if let Some(fill) = expected.get("fill_value")
        && !matches(fill, outcome.fill_value)
    {
        return Err(format!(
            "encoded fill value {} instead of {fill}",
            outcome.fill_value
        ));
    }
    if let (Some(want), Some(got)) = (
        expected.get("output").and_then(Json::as_array),
        &outcome.output,
    ) {
        let same = want.len() == got.len() && want.iter().zip(got).all(|(w, g)| matches(w, *g));
        if !same {
            let got: Vec<String> = got.iter().map(ToString::to_string).collect();
            return Err(format!(
                "output [{}] instead of {}",
                got.join(", "),
                Json::from(want.clone())
            ));
        }
    }
    Ok(())
}

fn run_file(name: &str) {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let file: Json = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let cases = file["cases"].as_array().unwrap();
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            check(case)
                .err()
                .map(|e| format!("{}: {e}", case["id"].as_str().unwrap()))
        })
        .collect();
    let crate_policy = cases
        .iter()
        .filter(|c| c.get("crate_expect").is_some())
        .count();
    let spec_followed = cases
        .iter()
        .filter(|c| c.get("spec_expect").is_some() && c.get("crate_expect").is_none())
        .count();
    println!(
        "{name}: {} cases ran, {} passed, {} failed ({crate_policy} follow crate_expect, {spec_followed} spec_expect)",
        cases.len(),
        cases.len() - failures.len(),
        failures.len()
    );
    for failure in &failures {
        println!("  FAIL {failure}");
    }
    assert!(!cases.is_empty(), "{name} holds no cases");
    assert!(
        failures.is_empty(),
        "{} of {} cases in {name} failed",
        failures.len(),
        cases.len()
    );
}

#[test]
fn conformance_vectors_from_zarr_python_and_the_specification() {
    run_file("vectors.json");
}

#[test]
fn conformance_vectors_for_types_zarr_python_lacks() {
    run_file("exotic.json");
}
