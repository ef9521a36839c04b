//! Parts of existing chunks written through the codecs' partial encoders (zarrs uses them with
//! `CodecOptions::with_experimental_partial_encoding`): the same values as a whole-chunk rewrite,
//! the same refusals, and nothing written where a value is refused.

use std::sync::Arc;

use serde_json::{Value as Json, json};
use zarrs::array::codec::api::CodecTraits;
use zarrs::array::{Array, ArrayError, ArrayMetadata, ArraySubset, CodecOptions};
use zarrs::storage::store::MemoryStore;
use zarrs::storage::{ListableStorageTraits, ReadableStorageTraits};
use zarrs_scale_offset_cast::{
    CastValueError, ElementErrorKind, Error, ScaleOffsetError, validate_array,
};
use zarrs_scale_offset_cast_reference::{Seeded, model_seed_label};

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

/// Random chains (float32 or float64 stored as 8 to 32-bit integers, every rounding and
/// out-of-range mode, with and without a NaN code, fill values that are NaN, zero or the offset),
/// chunked or sharded with the codecs outside or inside the shards, written whole or never, then
/// random parts written through the partial encoders: each part written or refused as zarrs'
/// whole-chunk rewrite of the same values is; a part written reads as its values written alone
/// into a new array, and every element outside it as before; with nearest roundings the array
/// then reads bit for bit as the rewritten one. Directed roundings do not always give a decoded
/// element its code back (docs/usage.md, "Limitations"): a rewrite that re-encodes elements
/// outside the part may move or refuse them, which the partial encoders never do.
#[test]
fn random_parts_written_through_the_partial_encoders_change_only_their_elements() {
    // The same cases on every run, unless `MODEL_SEED` asks for fresh ones.
    let mut random = Seeded::for_test(0x6a09_e667_f3bc_c908);
    let mut below = |n: u64| random.below(n);
    let (mut written, mut refused, mut reencoded) = (0, 0, 0);
    let whole = ArraySubset::new_with_ranges(&[0..9, 0..10]);
    for case in 0..80 {
        let chain = RandomChain::draw(&mut below);
        let (array, rewritten) = (chain.array(), chain.array());
        let context = format!(
            "case {case}: {} {} fill {}",
            chain.float, chain.codecs, chain.fill
        );
        if below(3) > 0 {
            let values = chain.values(90, &mut below);
            let stored = chain.store(&array, &whole, &values, &CodecOptions::default());
            let again = chain.store(&rewritten, &whole, &values, &CodecOptions::default());
            assert_eq!(stored.is_ok(), again.is_ok(), "{context}");
        }
        // A write refused stores the chunks before the one refused (in an order of zarrs'
        // choosing): the arrays start again from what the first holds.
        let resync = || {
            if chain.nearest {
                let now = chain.read(&array).unwrap();
                let options = CodecOptions::default();
                chain.store(&rewritten, &whole, &now, &options).unwrap();
            }
        };
        resync();
        for _ in 0..3 {
            let (rows, columns) = (below(9), below(10));
            let part = ArraySubset::new_with_ranges(&[
                rows..rows + 1 + below(9 - rows),
                columns..columns + 1 + below(10 - columns),
            ]);
            let values = chain.values(part.num_elements(), &mut below);
            let before = chain.read(&array).unwrap();
            let partial = chain.store(&array, &part, &values, &partial());
            let rewrite = chain.store(&rewritten, &part, &values, &CodecOptions::default());
            // The part's values written alone into an array of their own: what they read as.
            let fresh = chain.array();
            let alone = chain.store(&fresh, &part, &values, &CodecOptions::default());
            let context = format!("{context} {part:?}");
            match (&partial, &rewrite, &alone) {
                (Ok(()), Ok(()), Ok(())) => written += 1,
                (Err(partial), Err(rewrite), Err(alone)) => {
                    // The same refusal where the part lies in one chunk (of several, zarrs
                    // reports the first chunk to fail, in an order of its choosing).
                    let refusals = [partial, rewrite, alone].map(refusal);
                    let one_chunk = (part.start().iter().zip(part.end_exc()).zip([4, 6]))
                        .all(|((start, end), chunk)| start / chunk == (end - 1) / chunk);
                    if one_chunk {
                        let same_refusal = refusals.iter().all(|r| *r == refusals[0]);
                        assert!(same_refusal, "{context}: {refusals:?}");
                    }
                    refused += 1;
                    resync();
                    continue;
                }
                // A directed rounding may not give a decoded element its code back: a rewrite
                // that re-encodes elements the part does not hold (zarrs' read-modify-write of
                // a chunk, or of an inner chunk with the codecs inside the shards) can find one
                // beyond the range, which the partial encoders of the codecs outside never see.
                (Ok(()), Err(_), Ok(())) if !chain.nearest => written += 1,
                (Err(_), Err(_), Ok(())) if !chain.nearest && chain.layout == 2 => {
                    reencoded += 1;
                    continue;
                }
                _ => panic!("{context}: partial {partial:?}, rewrite {rewrite:?}, alone {alone:?}"),
            }
            let after = chain.read(&array).unwrap();
            let alone = chain.read(&fresh).unwrap();
            // With the codecs inside the shards zarrs encodes each inner chunk the part touches
            // whole, re-encoding its other elements: only nearest roundings give them back.
            let outside_kept = chain.layout < 2 || chain.nearest;
            for (i, ((after, before), alone)) in after.iter().zip(&before).zip(&alone).enumerate() {
                let index = [i / 10, i % 10].map(|n| u64::try_from(n).unwrap());
                let inside = part.contains(&index);
                let expected = if inside { alone } else { before };
                if inside || outside_kept {
                    let message = format!("{context} {index:?}: {after} against {expected}");
                    assert!(same(&[*after], &[*expected]), "{message}");
                }
            }
            if chain.nearest {
                // zarrs' read-modify-write re-encodes every element of the chunks it rewrites.
                let rewritten = chain.read(&rewritten).unwrap();
                let differ: Vec<(usize, f64, f64)> = (0..90)
                    .filter(|&i| !same(&[after[i]], &[rewritten[i]]))
                    .map(|i| (i, after[i], rewritten[i]))
                    .collect();
                assert!(
                    differ.is_empty(),
                    "{context}: (index, partial, rewrite) {differ:?}"
                );
            }
        }
    }
    let seed = model_seed_label();
    println!(
        "random partial writes, {seed}: {written} parts written, {refused} refused, \
         {reencoded} refused for an element re-encoded"
    );
    assert_eq!(written + refused + reencoded, 240);
    assert!(
        written > 100 && refused > 0,
        "{written} written, {refused} refused"
    );
}

/// What refused a write: the codec and kind of the element it refused, or the crate's error
/// (any other error fails the test).
fn refusal(error: &ArrayError) -> String {
    match Error::find(error) {
        Some(Error::CastValue(CastValueError::Element { kind, .. })) => {
            format!("cast_value {kind:?}")
        }
        Some(Error::ScaleOffset(ScaleOffsetError::Element { kind, .. })) => {
            format!("scale_offset {kind:?}")
        }
        Some(other) => other.to_string(),
        None => panic!("a refusal that is not the codecs': {error}"),
    }
}

/// A random chain of [`random_parts_written_through_the_partial_encoders_change_only_their_elements`]
/// and its layout, on a 9 x 10 array in chunks of 4 x 6.
struct RandomChain {
    /// `float32` or `float64`.
    float: &'static str,
    codecs: Json,
    fill: Json,
    /// 0: chunks; 1: the codecs outside the shards; 2: inside them.
    layout: u64,
    nearest: bool,
    nan_code: bool,
    scale: f64,
    offset: f64,
    /// The range of the stored integer type.
    low: f64,
    high: f64,
}

impl RandomChain {
    fn draw(below: &mut dyn FnMut(u64) -> u64) -> Self {
        let mut pick = |n: usize| usize::try_from(below(u64::try_from(n).unwrap())).unwrap();
        let float = ["float32", "float64"][pick(2)];
        let (target, low, high) = [
            ("int8", -128.0, 127.0),
            ("uint8", 0.0, 255.0),
            ("int16", -32768.0, 32767.0),
            ("uint16", 0.0, 65535.0),
            ("int32", -2_147_483_648.0, 2_147_483_647.0),
        ][pick(5)];
        let scale = [1.0, 0.5, 10.0, 100.0, 0.25][pick(5)];
        let offset = [0.0, -10.0, 3.5, 100.0][pick(4)];
        let rounding = [
            "nearest-even",
            "towards-zero",
            "towards-positive",
            "towards-negative",
            "nearest-away",
        ][pick(5)];
        let mut cast = json!({"data_type": target, "rounding": rounding});
        match pick(3) {
            0 => cast["out_of_range"] = json!("clamp"),
            1 => cast["out_of_range"] = json!("wrap"),
            _ => {}
        }
        let nan_code = pick(2) == 0;
        if nan_code {
            cast["scalar_map"] = json!({"encode": [["NaN", low]], "decode": [[low, "NaN"]]});
        }
        let fill = match pick(3) {
            0 if nan_code => json!("NaN"),
            1 => json!(offset),
            _ => json!(0.0),
        };
        let element_codecs = vec![
            json!({"name": "scale_offset", "configuration": {"offset": offset, "scale": scale}}),
            json!({"name": "cast_value", "configuration": cast}),
        ];
        let bytes = json!({"name": "bytes", "configuration": {"endian": "little"}});
        let sharding = |inner: Vec<Json>| {
            json!({"name": "sharding_indexed", "configuration": {
                "chunk_shape": [2, 3], "codecs": inner,
                "index_codecs": [bytes.clone(), {"name": "crc32c"}], "index_location": "end",
            }})
        };
        let layout = below(3);
        let codecs = match layout {
            0 => json!([element_codecs, vec![bytes.clone()]].concat()),
            1 => json!([element_codecs, vec![sharding(vec![bytes.clone()])]].concat()),
            _ => json!([sharding([element_codecs, vec![bytes.clone()]].concat())]),
        };
        Self {
            float,
            codecs,
            fill,
            layout,
            nearest: rounding.starts_with("nearest"),
            nan_code,
            scale,
            offset,
            low,
            high,
        }
    }

    fn array(&self) -> Array<MemoryStore> {
        let metadata: ArrayMetadata = serde_json::from_value(json!({
            "zarr_format": 3, "node_type": "array", "shape": [9, 10], "data_type": self.float,
            "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 6]}},
            "chunk_key_encoding": {"name": "default"}, "fill_value": self.fill,
            "codecs": self.codecs,
        }))
        .unwrap();
        Array::new_with_metadata(Arc::new(MemoryStore::new()), "/", metadata).unwrap()
    }

    /// `n` values on the grid of the scale, mostly within the stored type's range, some beyond
    /// it, some off the grid, some NaN where the chain has a code for it.
    fn values(&self, n: u64, below: &mut dyn FnMut(u64) -> u64) -> Vec<f64> {
        (0..n)
            .map(|_| {
                let step = f64::from(u32::try_from(below(1001)).unwrap()) / 1000.0;
                let code = self.low + (self.high - self.low).min(4000.0) * step;
                let decoded = code / self.scale + self.offset;
                match below(80) {
                    0..4 if self.nan_code => f64::NAN,
                    4 => (self.high + 50.0) / self.scale + self.offset,
                    5..20 => decoded + 0.3 / self.scale,
                    _ => decoded,
                }
            })
            .collect()
    }

    /// `values` written to `subset` as elements of the array's type.
    fn store(
        &self,
        array: &Array<MemoryStore>,
        subset: &ArraySubset,
        values: &[f64],
        options: &CodecOptions,
    ) -> Result<(), ArrayError> {
        #[expect(
            clippy::cast_possible_truncation,
            reason = "float32 arrays take float32 values"
        )]
        if self.float == "float32" {
            let values: Vec<f32> = values.iter().map(|&v| v as f32).collect();
            array.store_array_subset_opt(subset, values, options)
        } else {
            array.store_array_subset_opt(subset, values.to_vec(), options)
        }
    }

    /// The whole array as float64 values.
    fn read(&self, array: &Array<MemoryStore>) -> Result<Vec<f64>, String> {
        let whole = ArraySubset::new_with_ranges(&[0..9, 0..10]);
        if self.float == "float32" {
            let values: Vec<f32> = array
                .retrieve_array_subset(&whole)
                .map_err(|e| e.to_string())?;
            Ok(values.into_iter().map(f64::from).collect())
        } else {
            array
                .retrieve_array_subset(&whole)
                .map_err(|e| e.to_string())
        }
    }
}
