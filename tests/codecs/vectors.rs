//! The conformance vectors (`tests/data/vectors.json`, `tests/data/exotic.json`), run through the
//! public zarrs API: a one-chunk array with the case's codecs and the little-endian `bytes` codec,
//! as `tests/data/vectors-README.md` describes.
//!
//! Each case is checked against `crate_expect` where it has one (the crate departs from
//! zarr-python and the specification for data safety), else `spec_expect` (zarr-python differs
//! from the specification), else `expect`. An expected error must come with the same kind
//! (`out_of_range`, `fill_value`, ...), read from the crate's typed errors.
//!
//! Two of the crate's rules go beyond the cases' expectations, and a case they refuse counts only
//! where the refusal is shown to be needed, through the same public API:
//! - a fill value that does not come back from the chain bit for bit refuses writes: an array
//!   with the fill value the error suggests writes the case's fill value, which must read back as
//!   something else;
//! - [`validate_array`](zarrs_scale_offset_cast::validate_array) rejects a chain that can store
//!   a value it cannot read back: some probe value must write and fail to read back through the
//!   case's codecs.

use std::sync::Arc;

use crate::error_kinds::Failure;
use serde_json::{Value as Json, json};
use zarrs::array::{Array, ArrayBytes, ArrayMetadata, CodecOptions, DataType, FillValue};
use zarrs::storage::store::MemoryStore;
use zarrs::storage::{ReadableStorageTraits, StoreKey, WritableStorageTraits};
use zarrs_scale_offset_cast::Error;
use zarrs_scale_offset_cast_reference::json::{
    Num, fill_value_json, from_bytes, matches, to_bytes,
};

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

/// The array of a case: `len` elements in one chunk, the case's codecs and then `bytes`, with
/// `fill` as its fill value.
fn array(
    case: &Json,
    len: usize,
    fill: &Json,
) -> Result<(Arc<MemoryStore>, Array<MemoryStore>), Failure> {
    let data_type = case["data_type"].as_str().unwrap();
    let mut codecs = case["codecs"].as_array().unwrap().clone();
    codecs.push(json!({"name": "bytes", "configuration": {"endian": "little"}}));
    let metadata = json!({
        "zarr_format": 3,
        "node_type": "array",
        "shape": [len.max(1)],
        "data_type": data_type,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [len.max(1)]}},
        "chunk_key_encoding": {"name": "default"},
        "fill_value": fill_value_json(data_type, fill),
        "codecs": codecs,
    });
    let metadata: ArrayMetadata =
        serde_json::from_value(metadata).map_err(|e| Failure::at_open(&e))?;
    let store = Arc::new(MemoryStore::new());
    let array =
        Array::new_with_metadata(store.clone(), "/", metadata).map_err(|e| Failure::at_open(&e))?;
    Ok((store, array))
}

/// Runs a case; `Err` holds the error of the first failing step.
fn run(case: &Json) -> Result<Outcome, Failure> {
    let data_type = case["data_type"].as_str().unwrap();
    let inputs = case["input"].as_array().unwrap();
    let kind = case["kind"].as_str().unwrap();
    let (store, array) = array(case, inputs.len(), &case["fill_value"])?;
    let key = StoreKey::new("c/0").unwrap();
    let encoded_type = encoded_data_type(case);
    let output = match kind {
        "metadata" => {
            zarrs_scale_offset_cast::validate_array(&array).map_err(|e| Failure::of(&e))?;
            None
        }
        "encode" => {
            let bytes: Vec<u8> = inputs.iter().flat_map(|v| to_bytes(data_type, v)).collect();
            let options = CodecOptions::default().with_store_empty_chunks(true);
            array
                .store_chunk_opt(&[0], ArrayBytes::new_flen(bytes), &options)
                .map_err(|e| Failure::of(&e))?;
            let stored = store.get(&key).unwrap().expect("a chunk stored");
            Some(from_bytes(&encoded_type, &stored))
        }
        "decode" => {
            let bytes: Vec<u8> = inputs
                .iter()
                .flat_map(|v| to_bytes(&encoded_type, v))
                .collect();
            store.set(&key, bytes.into()).unwrap();
            let decoded: ArrayBytes<'static> =
                array.retrieve_chunk(&[0]).map_err(|e| Failure::of(&e))?;
            let decoded = decoded.into_fixed().unwrap();
            Some(from_bytes(data_type, &decoded))
        }
        other => panic!("unknown kind {other}"),
    };
    let (encoded, fill_value) = encoded_representation(&array).map_err(|message| Failure {
        kind: "encoded_representation".into(),
        message,
        error: None,
    })?;
    let encoded_data_type = encoded.name_v3().unwrap_or_default().to_string();
    let fill_value = from_bytes(&encoded_data_type, fill_value.as_ne_bytes())[0];
    Ok(Outcome {
        encoded_data_type,
        fill_value,
        output,
    })
}

/// How a case passed.
enum Passed {
    /// As expected.
    Expected,
    /// Refused by one of the crate's rules beyond the expectation, shown to be needed.
    CrateRule,
}

/// Whether the fill value of `case` does not come back from its chain bit for bit (any NaN as any
/// NaN), as `error` says: written into an array with the fill value `error` suggests, it reads
/// back as something else.
fn fill_value_shown_to_change(case: &Json, error: &Error) -> bool {
    let Error::FillValueChanges {
        survivor: Some(survivor),
        ..
    } = error
    else {
        return false;
    };
    let data_type = case["data_type"].as_str().unwrap();
    let survivor = if survivor.starts_with("NaN") {
        json!("NaN")
    } else {
        serde_json::from_str(survivor).unwrap()
    };
    let Ok((_, array)) = array(case, 1, &survivor) else {
        return false;
    };
    let fill = to_bytes(data_type, &case["fill_value"]);
    if array
        .store_chunk(&[0], ArrayBytes::new_flen(fill.clone()))
        .is_err()
    {
        return false;
    }
    let Ok(back) = array.retrieve_chunk::<ArrayBytes<'static>>(&[0]) else {
        return false;
    };
    let back = back.into_fixed().unwrap().to_vec();
    let nan = |bytes: &[u8]| from_bytes(data_type, bytes)[0].to_string() == "NaN";
    !(back == fill || (nan(&fill) && nan(&back)))
}

/// Whether the chain of `case` can store a value it cannot read back, when nothing checks it as
/// a whole: some probe value writes through an array of the case's codecs and fails to read back.
fn chain_shown_unreadable(case: &Json) -> bool {
    let data_type = case["data_type"].as_str().unwrap();
    let mut probes: Vec<Json> = [0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 100.0, -100.0]
        .into_iter()
        .map(|x| json!(x))
        .chain(["NaN", "Infinity", "-Infinity"].map(|x| json!(x)))
        .chain(case["input"].as_array().unwrap().iter().cloned())
        .collect();
    if zarrs_scale_offset_cast_reference::is_integer(data_type) {
        // Whole numbers, as JSON integers.
        probes = probes
            .iter()
            .filter_map(|p| {
                let x = p.as_f64()?;
                (x.fract() == 0.0).then(|| json!(format!("{x:.0}").parse::<i64>().unwrap()))
            })
            .collect();
    }
    probes.iter().any(|probe| {
        let Ok((_, array)) = array(case, 1, &case["fill_value"]) else {
            return false;
        };
        let bytes = std::panic::catch_unwind(|| to_bytes(data_type, probe));
        let Ok(bytes) = bytes else { return false };
        array.store_chunk(&[0], ArrayBytes::new_flen(bytes)).is_ok()
            && array.retrieve_chunk::<ArrayBytes<'static>>(&[0]).is_err()
    })
}

/// Checks the outcome of a case against its expectation.
fn check(case: &Json) -> Result<Passed, String> {
    let expected = expectation(case);
    let outcome = run(case);
    if let Some(kind) = expected.get("error").and_then(Json::as_str) {
        return match outcome {
            // zarr-python crashed on the case: any error of the crate's will do.
            Err(failure) if failure.kind == kind || kind == "internal_error" => {
                Ok(Passed::Expected)
            }
            Err(failure) => Err(format!(
                "expected an error of kind {kind}, got {}: {}",
                failure.kind, failure.message
            )),
            Ok(outcome) => Err(format!(
                "expected an error ({kind}), got output {:?}",
                outcome
                    .output
                    .map(|o| o.iter().map(ToString::to_string).collect::<Vec<_>>())
            )),
        };
    }
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(Failure {
            error: Some(error), ..
        }) if matches!(*error, Error::FillValueChanges { .. })
            && fill_value_shown_to_change(case, &error) =>
        {
            return Ok(Passed::CrateRule);
        }
        Err(Failure {
            error: Some(error), ..
        }) if matches!(*error, Error::ChainUnreadable { .. }) && chain_shown_unreadable(case) => {
            return Ok(Passed::CrateRule);
        }
        Err(failure) => return Err(format!("unexpected error: {}", failure.message)),
    };
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
    Ok(Passed::Expected)
}

fn run_file(name: &str) {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    let file: Json = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let cases = file["cases"].as_array().unwrap();
    let mut failures = Vec::new();
    let mut crate_rules = Vec::new();
    for case in cases {
        let id = case["id"].as_str().unwrap();
        match check(case) {
            Ok(Passed::Expected) => {}
            Ok(Passed::CrateRule) => crate_rules.push(id),
            Err(e) => failures.push(format!("{id}: {e}")),
        }
    }
    let crate_policy = cases
        .iter()
        .filter(|c| c.get("crate_expect").is_some())
        .count();
    let spec_followed = cases
        .iter()
        .filter(|c| c.get("spec_expect").is_some() && c.get("crate_expect").is_none())
        .count();
    let errors = cases
        .iter()
        .filter(|c| expectation(c).get("error").is_some())
        .count();
    println!(
        "{name}: {} cases ran, {} passed, {} failed ({crate_policy} follow crate_expect, {spec_followed} spec_expect; {errors} expect an error of a given kind; {} refused by the crate's chain and fill value rules, each shown needed: {crate_rules:?})",
        cases.len(),
        cases.len() - failures.len(),
        failures.len(),
        crate_rules.len(),
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
