//! The crate's `cast_value` (through zarrs 0.23) against zarrs' own (zarrs' main branch), through
//! the same `Array` calls: every case of the conformance vectors whose chain is `cast_value`
//! alone, the classes of difference with one example each, and the speed of one chunk of 16 Mi
//! elements on one thread.
//!
//! ```text
//! cargo run --release -- ../../tests/data/vectors.json ../../tests/data/exotic.json
//! ```

use std::time::{Duration, Instant};

use serde_json::{Value as Json, json};

/// What one implementation did with a case: the bytes (stored, for an encode; read, for a
/// decode), or the phase that failed and its message.
type Outcome = Result<Vec<u8>, (&'static str, String)>;

/// The calls made on each implementation, written once for both zarrs versions.
macro_rules! implementation {
    ($name:ident, $zarrs:ident) => {
        mod $name {
            use std::sync::Arc;

            use serde_json::{Value as Json, json};
            use $zarrs::array::{Array, ArrayBytes, ArrayMetadata};
            use $zarrs::storage::store::MemoryStore;
            use $zarrs::storage::{ReadableStorageTraits, StoreKey, WritableStorageTraits};

            use super::Outcome;

            fn open(metadata: &Json) -> Result<(Arc<MemoryStore>, Array<MemoryStore>), String> {
                let store = Arc::new(MemoryStore::new());
                let metadata: ArrayMetadata =
                    serde_json::from_value(metadata.clone()).map_err(|e| e.to_string())?;
                let array = Array::new_with_metadata(store.clone(), "/", metadata)
                    .map_err(|e| e.to_string())?;
                Ok((store, array))
            }

            /// Stores `input` as the only chunk (`encode`) or reads `input` as its stored bytes.
            pub fn run(metadata: &Json, encode: bool, input: Vec<u8>) -> Outcome {
                let (store, array) = open(metadata).map_err(|e| ("open", e))?;
                let key = StoreKey::new("c/0").unwrap();
                if encode {
                    array
                        .store_chunk(&[0], ArrayBytes::new_flen(input))
                        .map_err(|e| ("encode", e.to_string()))?;
                    let stored = store.get(&key).unwrap();
                    Ok(stored.map(|bytes| bytes.to_vec()).unwrap_or_default())
                } else {
                    store.set(&key, input.into()).unwrap();
                    let bytes: ArrayBytes<'static> = array
                        .retrieve_chunk(&[0])
                        .map_err(|e| ("decode", e.to_string()))?;
                    Ok(bytes.into_fixed().unwrap().to_vec())
                }
            }

            /// The bytes of one element of `data_type` written as `scalar` (as a fill value).
            #[allow(dead_code, reason = "the inputs are parsed by zarrs 0.23 alone")]
            pub fn element(data_type: &Json, scalar: &Json) -> Option<Vec<u8>> {
                let metadata = json!({
                    "zarr_format": 3, "node_type": "array", "shape": [1], "data_type": data_type,
                    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [1]}},
                    "chunk_key_encoding": {"name": "default"}, "fill_value": scalar,
                    "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                });
                let (_, array) = open(&metadata).ok()?;
                Some(array.fill_value().as_ne_bytes().to_vec())
            }
        }
    };
}

implementation!(ours, zarrs);
implementation!(theirs, zarrs_main);

/// Registers the crate's codecs with zarrs 0.23.
use zarrs_scale_offset_cast as _;

fn array_metadata(case: &Json, chunk: usize) -> Json {
    let mut codecs = case["codecs"].as_array().cloned().unwrap_or_default();
    codecs.push(json!({"name": "bytes", "configuration": {"endian": "little"}}));
    json!({
        "zarr_format": 3, "node_type": "array", "shape": [chunk], "data_type": case["data_type"],
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [chunk]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": case["fill_value"],
        "codecs": codecs,
    })
}

/// The data type of the input: the array's for an encode, the last cast's for a decode.
fn input_type(case: &Json) -> Json {
    if case["kind"] == "encode" {
        case["data_type"].clone()
    } else {
        case["codecs"].as_array().unwrap().last().unwrap()["configuration"]["data_type"].clone()
    }
}

/// The bytes `expect` (an expectation of the vectors) gives for `case`, or `Err` for an error;
/// `None` where zarrs 0.23 cannot write its values.
fn expected(case: &Json, expect: &Json) -> Option<Result<Vec<u8>, ()>> {
    if expect.get("error").is_some() {
        return Some(Err(()));
    }
    let data_type = if case["kind"] == "encode" {
        &expect["encoded_data_type"]
    } else {
        &case["data_type"]
    };
    let elements: Option<Vec<Vec<u8>>> = expect["output"]
        .as_array()?
        .iter()
        .map(|scalar| ours::element(data_type, scalar))
        .collect();
    Some(Ok(elements?.concat()))
}

fn show(outcome: &Outcome) -> String {
    match outcome {
        Ok(bytes) => format!("ok {}", hex(bytes)),
        Err((phase, message)) => format!("error at {phase}: {message}"),
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut text, b| {
        let _ = write!(text, "{b:02x}");
        text
    })
}

/// Every case of `files` whose chain is `cast_value` alone, through both implementations.
fn vectors(files: &[String]) {
    let (mut compared, mut agree, mut skipped) = (0, 0, 0);
    let mut open_vs_write = 0;
    for file in files {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file}: {e}"));
        let cases: Json = serde_json::from_str(&text).unwrap();
        for case in cases["cases"].as_array().unwrap() {
            let codecs = case["codecs"].as_array().unwrap();
            let cast_only = codecs.iter().all(|c| c["name"] == "cast_value");
            let kind = case["kind"].as_str().unwrap();
            if !cast_only || kind == "metadata" {
                skipped += 1;
                continue;
            }
            let data_type = input_type(case);
            let elements: Option<Vec<Vec<u8>>> = case["input"]
                .as_array()
                .unwrap()
                .iter()
                .map(|scalar| ours::element(&data_type, scalar))
                .collect();
            let Some(elements) = elements else {
                skipped += 1;
                continue;
            };
            let input = elements.concat();
            let metadata = array_metadata(case, elements.len());
            let encode = kind == "encode";
            let a = ours::run(&metadata, encode, input.clone());
            let b = theirs::run(&metadata, encode, input);
            compared += 1;
            let same = match (&a, &b) {
                (Ok(x), Ok(y)) => x == y,
                (Err((x, _)), Err((y, _))) => {
                    if x != y {
                        open_vs_write += 1;
                    }
                    true
                }
                _ => false,
            };
            if same {
                agree += 1;
            } else {
                let agrees =
                    |outcome: &Outcome, expect: &Json| match (outcome, expected(case, expect)) {
                        (Ok(x), Some(Ok(y))) => *x == y,
                        (Err(_), Some(Err(()))) => true,
                        _ => false,
                    };
                let with = |outcome: &Outcome| {
                    let mut readings = Vec::new();
                    if agrees(outcome, &case["expect"]) {
                        readings.push("zarr-python 3.4.2");
                    }
                    if case.get("spec_expect").is_some_and(|e| agrees(outcome, e)) {
                        readings.push("the specification");
                    }
                    if case.get("crate_expect").is_some_and(|e| agrees(outcome, e)) {
                        readings.push("the crate's data-safety rule");
                    }
                    if readings.is_empty() {
                        String::new()
                    } else {
                        format!("  (as {})", readings.join(", "))
                    }
                };
                println!("differ {}:", case["id"].as_str().unwrap());
                println!("  zarrs_scale_offset_cast: {}{}", show(&a), with(&a));
                println!("  zarrs main:              {}{}", show(&b), with(&b));
            }
        }
    }
    println!(
        "vectors: {compared} cases compared, {agree} agree ({open_vs_write} of them both errors, \
         found at different times), {} differ; {skipped} not comparable (other codecs, or \
         metadata-only cases)",
        compared - agree
    );
}

/// One example of each class of difference.
fn classes() {
    let examples = [
        (
            "rounding before out_of_range: float64 65519 to float16 with clamp",
            json!({"id": "c1", "kind": "encode", "data_type": "float64", "fill_value": 0,
                   "codecs": [{"name": "cast_value", "configuration": {"data_type": "float16", "out_of_range": "clamp"}}],
                   "input": [65519.0, 65520.0, -65519.0]}),
        ),
        (
            "Infinity into a float type without infinities, with clamp",
            json!({"id": "c2", "kind": "encode", "data_type": "float32", "fill_value": 0,
                   "codecs": [{"name": "cast_value", "configuration": {"data_type": "float4_e2m1fn", "out_of_range": "clamp"}}],
                   "input": ["Infinity", 1.0]}),
        ),
        (
            "a NaN with a payload and the \"NaN\" scalar_map key",
            json!({"id": "c3", "kind": "encode", "data_type": "float64", "fill_value": 0,
                   "codecs": [{"name": "cast_value", "configuration": {"data_type": "uint8",
                       "scalar_map": {"encode": [["NaN", 255]]}}}],
                   "input": ["0x7ff8000000000001", "NaN", 3.0]}),
        ),
        (
            "a fill value the cast cannot encode (found when the array is opened, or at the first write)",
            json!({"id": "c4", "kind": "encode", "data_type": "float64", "fill_value": 1000,
                   "codecs": [{"name": "cast_value", "configuration": {"data_type": "uint8"}}],
                   "input": [1.0, 2.0]}),
        ),
    ];
    for (what, case) in examples {
        let data_type = input_type(&case);
        let input: Vec<u8> = case["input"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|scalar| ours::element(&data_type, scalar).expect("a value"))
            .collect();
        let elements = case["input"].as_array().unwrap().len();
        let metadata = array_metadata(&case, elements);
        println!("{what}:");
        println!(
            "  zarrs_scale_offset_cast: {}",
            show(&ours::run(&metadata, true, input.clone()))
        );
        println!(
            "  zarrs main:              {}",
            show(&theirs::run(&metadata, true, input))
        );
    }
}

fn median(mut times: Vec<Duration>) -> f64 {
    times.sort();
    times[times.len() / 2].as_secs_f64() * 1e3
}

/// One chunk of 16 Mi float64 reflectances stored as uint16 (clamp, NaN <-> 0) and read back, one
/// thread, median of 5 each way.
fn speed() {
    const ELEMENTS: usize = 1 << 24;
    let values: Vec<f64> = (0..ELEMENTS)
        .map(|i| {
            if i % 50 == 0 {
                f64::NAN
            } else {
                #[expect(clippy::cast_precision_loss, reason = "small numbers")]
                let x = (i % 60_000) as f64;
                x
            }
        })
        .collect();
    let input: Vec<u8> = values.iter().flat_map(|x| x.to_ne_bytes()).collect();
    let case = json!({"data_type": "float64", "fill_value": "NaN",
        "codecs": [{"name": "cast_value", "configuration": {"data_type": "uint16", "out_of_range": "clamp",
            "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}}]});
    let metadata = array_metadata(&case, ELEMENTS);
    let time = |run: &dyn Fn(bool, Vec<u8>) -> Outcome| {
        let stored = run(true, input.clone()).unwrap();
        let encode: Vec<Duration> = (0..5)
            .map(|_| {
                let input = input.clone();
                let start = Instant::now();
                run(true, input).unwrap();
                start.elapsed()
            })
            .collect();
        let decode: Vec<Duration> = (0..5)
            .map(|_| {
                let stored = stored.clone();
                let start = Instant::now();
                let read = run(false, stored).unwrap();
                let elapsed = start.elapsed();
                assert_eq!(read.len(), input.len());
                elapsed
            })
            .collect();
        (median(encode), median(decode), stored)
    };
    // One thread for both: each zarrs' codec concurrent target, and a rayon pool of one.
    zarrs::config::global_config_mut().set_codec_concurrent_target(1);
    zarrs_main::config::global_config_mut().set_codec_concurrent_target(1);
    let pool = rayon_one_thread();
    pool.install(|| {
        let (oe, od, ostored) = time(&|encode, input| ours::run(&metadata, encode, input));
        let (te, td, tstored) = time(&|encode, input| theirs::run(&metadata, encode, input));
        assert_eq!(ostored, tstored, "both store the same bytes");
        println!(
            "16 Mi float64 -> uint16 (clamp, NaN <-> 0), one chunk, one thread, median of 5 \
             (store_chunk into / retrieve_chunk from a MemoryStore):"
        );
        println!("  encode: zarrs_scale_offset_cast {oe:.1} ms, zarrs main {te:.1} ms");
        println!("  decode: zarrs_scale_offset_cast {od:.1} ms, zarrs main {td:.1} ms");
    });
}

fn rayon_one_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
}

fn main() {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: compare_zarrs_cast_value VECTORS.json...");
        std::process::exit(2);
    }
    vectors(&files);
    println!();
    classes();
    println!();
    speed();
}
