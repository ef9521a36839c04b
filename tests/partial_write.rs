//! Parts of existing chunks written through the codecs' partial encoders (zarrs uses them with
//! `CodecOptions::with_experimental_partial_encoding`): the same values as a whole-chunk rewrite,
//! the same refusals, and nothing written where a value is refused.

use std::sync::Arc;

use serde_json::{Value as Json, json};
use zarrs::array::codec::api::CodecTraits;
use zarrs::array::{Array, ArrayMetadata, ArraySubset, CodecOptions};
use zarrs::storage::store::MemoryStore;
use zarrs::storage::{ListableStorageTraits, ReadableStorageTraits};
use zarrs_scale_offset_cast::{CastValueError, ElementErrorKind, Error, validate_array};

const CODECS: &str = r#"[
    {"name": "scale_offset", "configuration": {"offset": -10, "scale": 0.1}},
    {"name": "cast_value", "configuration": {"data_type": "uint8", "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}}
]"#;

/// The layouts: the codecs before `bytes` in chunks, and before `sharding_indexed` (the codecs
/// outside the shards, where zarrs' sharding codec writes only the inner chunks a part touches).
fn layouts() -> Vec<(&'static str, Json)> {
    let codecs: Vec<Json> = serde_json::from_str(CODECS).unwrap();
    let bytes = json!({"name": "bytes", "configuration": {"endian": "little"}});
    let sharding = json!({"name": "sharding_indexed", "configuration": {
        "chunk_shape": [2, 3],
        "codecs": [bytes.clone()],
        "index_codecs": [bytes.clone(), {"name": "crc32c"}],
        "index_location": "end",
    }});
    vec![
        ("chunks", json!([codecs.clone(), vec![bytes]].concat())),
        ("shards", json!([codecs, vec![sharding]].concat())),
    ]
}

fn open(codecs: &Json) -> (Arc<MemoryStore>, Array<MemoryStore>) {
    let metadata = json!({
        "zarr_format": 3, "node_type": "array", "shape": [9, 10], "data_type": "float64",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 6]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": "NaN", "codecs": codecs,
    });
    let store = Arc::new(MemoryStore::new());
    let metadata: ArrayMetadata = serde_json::from_value(metadata).unwrap();
    let array = Array::new_with_metadata(store.clone(), "/", metadata).unwrap();
    (store, array)
}

fn partial() -> CodecOptions {
    CodecOptions::default().with_experimental_partial_encoding(true)
}

/// Every stored key and its bytes.
fn snapshot(store: &MemoryStore) -> Vec<(String, Vec<u8>)> {
    let mut keys = store.list().unwrap();
    keys.sort();
    keys.into_iter()
        .map(|key| {
            let bytes = store.get(&key).unwrap().unwrap().to_vec();
            (key.to_string(), bytes)
        })
        .collect()
}

fn same(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

#[test]
fn parts_written_through_the_partial_encoders_read_as_whole_rewrites_do() {
    let whole: Vec<f64> = (0..90)
        .map(|i| {
            if i % 11 == 0 {
                f64::NAN
            } else {
                f64::from(i) * 10.0
            }
        })
        .collect();
    // Parts within one chunk, across chunks and inner chunks, and at the array's edge.
    let parts = [
        ArraySubset::new_with_ranges(&[1..3, 1..4]),
        ArraySubset::new_with_ranges(&[2..7, 3..9]),
        ArraySubset::new_with_ranges(&[8..9, 0..10]),
    ];
    let mut cases = 0;
    for (layout, codecs) in layouts() {
        let (_, array) = open(&codecs);
        let (_, rewritten) = open(&codecs);
        validate_array(&array).unwrap();
        assert!(
            array.codecs().partial_encoder_capability().partial_encode,
            "{layout}: zarrs can write parts through the codecs"
        );
        for target in [&array, &rewritten] {
            target
                .store_array_subset(&[0..9, 0..10], whole.clone())
                .unwrap();
        }
        for (n, part) in (0u32..).zip(&parts) {
            let values: Vec<f64> = (0..u32::try_from(part.num_elements()).unwrap())
                .map(|i| {
                    if i % 5 == 0 {
                        f64::NAN
                    } else {
                        f64::from(i * 30 + n)
                    }
                })
                .collect();
            array
                .store_array_subset_opt(part, values.clone(), &partial())
                .unwrap();
            rewritten.store_array_subset(part, values).unwrap();
            let read: Vec<f64> = array.retrieve_array_subset(&[0..9, 0..10]).unwrap();
            let expected: Vec<f64> = rewritten.retrieve_array_subset(&[0..9, 0..10]).unwrap();
            assert!(same(&read, &expected), "{layout}, part {n}");
            cases += 1;
        }
    }
    println!("partial writes: {cases} parts");
    assert_eq!(cases, 6);
}

#[test]
fn a_refused_part_leaves_every_stored_byte_as_it_was() {
    for (layout, codecs) in layouts() {
        let (store, array) = open(&codecs);
        array
            .store_array_subset(&[0..9, 0..10], vec![50.0f64; 90])
            .unwrap();
        let before = snapshot(&store);
        // 2540 is the largest value uint8 holds here; 1e6 is out of range (no clamp).
        let mut values = vec![100.0f64; 12];
        values[7] = 1e6;
        let error = array
            .store_array_subset_opt(&[1..4, 0..4], values, &partial())
            .unwrap_err();
        let Some(Error::CastValue(CastValueError::Element { index, kind, .. })) =
            Error::find(&error)
        else {
            panic!("{layout}: {error}");
        };
        assert_eq!(
            (*index, *kind),
            (7, ElementErrorKind::OutOfRange),
            "{layout}"
        );
        assert_eq!(snapshot(&store), before, "{layout}: nothing written");
    }
}
