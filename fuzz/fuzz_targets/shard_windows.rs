//! Windows of random Blosc-compressed sharded arrays, the layout zarr-python writes with
//! `shards=` (`[scale_offset, cast_value, bytes, blosc]` inside `sharding_indexed`, or the crate's
//! codecs outside it): inner chunks of 1 to 1024 rows and 1 to 512 columns, one to three to a
//! side of a shard, edge shards, the index at the start or the end with or without crc32c, every
//! Blosc compressor, level, shuffle, type size and block size, data from constant to
//! incompressible (stored by Blosc without compression), missing inner chunks, and sometimes a
//! stored byte changed or a shard cut short. Each window `FusedReader` reads (fresh, and keeping
//! shard indexes and Blosc block tables from window to window) gives zarrs' bits where zarrs
//! reads it, and fails where zarrs fails; where a changed byte makes zarrs fail and `FusedReader`
//! still reads the window, the window reads as written. `FusedReader`'s asynchronous reads (fresh
//! and keeping), of the same keys and bytes in an asynchronous store, are held to the same against
//! zarrs' asynchronous read; where that fails and zarrs' synchronous read does not, they may read
//! the synchronous read's bits.
//!
//! The inner chunks are large enough for every way `FusedReader` fetches part of one: the blocks a
//! kept table names, the front of a chunk whose blocks are not yet known (and the rest where they
//! end past it, or where the front holds no usable table).

#![no_main]

use std::sync::Arc;

use arbitrary::Arbitrary;
use futures::executor::block_on;
use libfuzzer_sys::fuzz_target;
use serde_json::{Value as Json, json};
use zarrs::array::{Array, ArrayBytes, ArrayMetadata, ArraySubset};
use zarrs::storage::byte_range::{ByteRange, ByteRangeIterator, InvalidByteRangeError};
use zarrs::storage::store::{AsyncMemoryStore, MemoryStore};
use zarrs::storage::{
    AsyncWritableStorageTraits, ListableStorageTraits, MaybeBytes, MaybeBytesIterator,
    ReadableStorageTraits, StorageError, StoreKey, WritableStorageTraits,
};
use zarrs_scale_offset_cast::FusedReader;
use zarrs_scale_offset_cast_reference::Seeded;

/// The largest array, in elements.
const MAX_ELEMENTS: u64 = 1 << 21;

#[derive(Arbitrary, Debug)]
struct Input {
    /// float32, else float64.
    float32: bool,
    /// The stored type (`uint8`, `uint16`, `int16`, `int32`), scale and offset.
    stored: u8,
    scale: u8,
    offset: u8,
    /// The codecs outside the shards (`[bytes, blosc]` inside them).
    outside: bool,
    /// Inner chunk rows (1 to 1024) and columns (1 to 512), inner chunks to a shard's side (1 to
    /// 3), shards to the array's side (1 to 2), and the rows and columns the edge shards lack.
    inner: (u16, u16),
    per_shard: (u8, u8),
    shards: (u8, u8),
    cut: (u16, u16),
    index_at_start: bool,
    index_crc32c: bool,
    /// Blosc: compressor, level, shuffle, type size (the stored element's, 1, twice it, or 4),
    /// block size (automatic, or 2^(7..=17) bytes).
    cname: u8,
    clevel: u8,
    shuffle: u8,
    typesize: u8,
    blocksize: u8,
    /// The data: seed, random bits of each stored integer (2 to 16), a row in `constant_rows` (0
    /// to 4) of 8 holds one value, so do the rows of a band of each inner chunk (`band % 128` of
    /// 128 rows, at its top where `band` is 128 or more, else at its foot: one part of the chunk
    /// compresses much better than the other), a NaN in `nan` (0 to 63) of 256 elements.
    seed: u64,
    bits: u8,
    constant_rows: u8,
    band: u8,
    nan: u8,
    /// The part written (rows and columns from, lengths; see `part`), else the whole array; the
    /// rest missing.
    written: Option<(u8, u8, u8, u8)>,
    /// A stored chunk or shard changed after the write: which (of those stored), the byte, its new
    /// bits (xor), or cut to that many bytes.
    corrupt: Option<(u8, u32, u8, bool)>,
    /// Windows (rows and columns from, lengths; see `part`).
    windows: Vec<(u16, u16, u16, u16)>,
}

/// A part of a `shape` array: `from` in 1/`denominator` of each side, lengths in (`h` /
/// `denominator`)² of what is left (most parts small), none along a side whose `h` or `w` is
/// below a 256th of `denominator`.
fn part(shape: [u64; 2], (r, c, h, w): (u64, u64, u64, u64), denominator: u64) -> ArraySubset {
    let start = [r * shape[0] / denominator, c * shape[1] / denominator];
    let square = denominator * denominator;
    let side = |n: u64, extent: u64| {
        u64::from(n >= denominator / 256) * (1 + n * n * (extent - 1) / square)
    };
    let len = [side(h, shape[0] - start[0]), side(w, shape[1] - start[1])];
    ArraySubset::new_with_ranges(&[start[0]..start[0] + len[0], start[1]..start[1] + len[1]])
}

/// The reads' view of a [`MemoryStore`]: a range that does not lie within the value is an error,
/// as real stores answer it. (zarrs_storage 0.4.5's `MemoryStore` panics on a suffix longer than
/// the value or a range whose end overflows, as zarrs asks for after reading a changed index.)
struct Checked(Arc<MemoryStore>);

impl ReadableStorageTraits for Checked {
    fn get(&self, key: &StoreKey) -> Result<MaybeBytes, StorageError> {
        self.0.get(key)
    }

    fn get_partial_many<'a>(
        &'a self,
        key: &StoreKey,
        byte_ranges: ByteRangeIterator<'a>,
    ) -> Result<MaybeBytesIterator<'a>, StorageError> {
        let Some(value) = self.0.get(key)? else {
            return Ok(None);
        };
        let len = value.len() as u64;
        Ok(Some(Box::new(byte_ranges.map(move |range| {
            let within = match range {
                ByteRange::FromStart(start, None) => Some(start..len),
                ByteRange::FromStart(start, Some(n)) => start.checked_add(n).map(|end| start..end),
                ByteRange::Suffix(n) => len.checked_sub(n).map(|start| start..len),
            };
            match within.filter(|within| within.start <= within.end && within.end <= len) {
                Some(within) => Ok(value.slice(within.start as usize..within.end as usize)),
                None => Err(InvalidByteRangeError::new(range, len).into()),
            }
        }))))
    }

    fn size_key(&self, key: &StoreKey) -> Result<Option<u64>, StorageError> {
        self.0.size_key(key)
    }

    fn supports_get_partial(&self) -> bool {
        true
    }
}

/// A buffer for `subset` of a pattern no read writes.
fn buffer<T: bytemuck::Pod>(subset: &ArraySubset) -> Vec<T> {
    let mut out = vec![T::zeroed(); subset.num_elements() as usize];
    bytemuck::cast_slice_mut::<T, u8>(&mut out).fill(0xAA);
    out
}

/// `subset` through `reader` into a [`buffer`], as bytes.
fn fused<T: zarrs::array::Element + bytemuck::Pod>(
    reader: &FusedReader<'_, Checked>,
    subset: &ArraySubset,
) -> Result<Vec<u8>, String> {
    let mut out = buffer::<T>(subset);
    reader
        .retrieve_array_subset_into(subset, &mut out)
        .map_err(|e| e.to_string())?;
    Ok(bytemuck::cast_slice(&out).to_vec())
}

/// `subset` through `reader`'s asynchronous read into a [`buffer`], as bytes.
fn fused_async<T: zarrs::array::Element + bytemuck::Pod>(
    reader: &FusedReader<'_, AsyncMemoryStore>,
    subset: &ArraySubset,
) -> Result<Vec<u8>, String> {
    let mut out = buffer::<T>(subset);
    block_on(reader.async_retrieve_array_subset_into(subset, &mut out))
        .map_err(|e| e.to_string())?;
    Ok(bytemuck::cast_slice(&out).to_vec())
}

fuzz_target!(|input: Input| {
    let float = if input.float32 { "float32" } else { "float64" };
    let (stored, stored_size, low, bits_max) = [
        ("uint8", 1, 0i64, 8u32),
        ("uint16", 2, 0, 16),
        ("int16", 2, -32768, 16),
        ("int32", 4, -(1 << 20), 21),
    ][usize::from(input.stored % 4)];
    let scale = [1.0, 10.0, 100.0, 10000.0, 0.5][usize::from(input.scale % 5)];
    let offset = [0.0, -0.1, 3.0][usize::from(input.offset % 3)];
    let inner = [
        u64::from(input.inner.0 % 1024) + 1,
        u64::from(input.inner.1 % 512) + 1,
    ];
    let shard = [
        inner[0] * (u64::from(input.per_shard.0 % 3) + 1),
        inner[1] * (u64::from(input.per_shard.1 % 3) + 1),
    ];
    let full = [
        shard[0] * (u64::from(input.shards.0 % 2) + 1),
        shard[1] * (u64::from(input.shards.1 % 2) + 1),
    ];
    let shape = [
        full[0] - u64::from(input.cut.0) % full[0],
        full[1] - u64::from(input.cut.1) % full[1],
    ];
    if shape[0] * shape[1] > MAX_ELEMENTS {
        return;
    }
    let codecs = [
        json!({"name": "scale_offset", "configuration": {"offset": offset, "scale": scale}}),
        json!({"name": "cast_value", "configuration": {"data_type": stored, "rounding": "nearest-even",
            "out_of_range": "clamp", "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}}),
    ];
    let cname = ["lz4", "lz4hc", "blosclz", "zstd", "zlib"][usize::from(input.cname % 5)];
    let shuffle = ["noshuffle", "shuffle", "bitshuffle"][usize::from(input.shuffle % 3)];
    let typesize = [stored_size, 1, 2 * stored_size, 4][usize::from(input.typesize % 4)];
    let blocksize = match input.blocksize % 12 {
        0 => 0,
        k => 1u64 << (6 + k),
    };
    let blosc = json!({"name": "blosc", "configuration": {"cname": cname, "clevel": input.clevel % 10,
        "shuffle": shuffle, "typesize": typesize, "blocksize": blocksize}});
    let mut index_codecs = vec![json!({"name": "bytes", "configuration": {"endian": "little"}})];
    if input.index_crc32c {
        index_codecs.push(json!({"name": "crc32c"}));
    }
    let bytes = json!({"name": "bytes", "configuration": {"endian": "little"}});
    let sharding = |inner_codecs: Vec<Json>| {
        json!({"name": "sharding_indexed", "configuration": {"chunk_shape": inner, "codecs": inner_codecs,
            "index_codecs": index_codecs, "index_location": if input.index_at_start { "start" } else { "end" }}})
    };
    let chain = if input.outside {
        vec![
            codecs[0].clone(),
            codecs[1].clone(),
            sharding(vec![bytes, blosc]),
        ]
    } else {
        vec![sharding(vec![
            codecs[0].clone(),
            codecs[1].clone(),
            bytes,
            blosc,
        ])]
    };
    let metadata = json!({
        "zarr_format": 3, "node_type": "array", "shape": shape, "data_type": float,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": shard}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": "NaN", "codecs": chain,
    });
    if std::env::var_os("SHARD_WINDOWS_PRINT").is_some() {
        eprintln!("{metadata:#}");
    }
    let metadata: ArrayMetadata = serde_json::from_value(metadata).expect("valid metadata");
    let store = Arc::new(MemoryStore::new());
    let Ok(array) = Array::new_with_metadata(store.clone(), "/", metadata.clone()) else {
        return;
    };

    // The data: integers of `bits` random bits as the stored type holds them, decoded.
    let written = match input.written {
        Some((r, c, h, w)) => part(
            shape,
            (u64::from(r), u64::from(c), u64::from(h), u64::from(w)),
            256,
        ),
        None => ArraySubset::new_with_shape(shape.to_vec()),
    };
    let mut random = Seeded(input.seed);
    let bits = (2 + u32::from(input.bits % 15)).min(bits_max);
    let (rows, columns) = (written.shape()[0], written.shape()[1]);
    let mut values = Vec::with_capacity((rows * columns) as usize);
    for row in written.start()[0]..written.start()[0] + rows {
        let in_band = {
            let (at, band) = (
                (row % inner[0]) * 128,
                inner[0] * u64::from(input.band % 128),
            );
            if input.band >= 128 {
                at < band
            } else {
                at >= inner[0] * 128 - band
            }
        };
        let constant = random.below(8) < u64::from(input.constant_rows % 5) || in_band;
        let row_value = random.next().unwrap();
        for _ in 0..columns {
            let draw = if constant {
                row_value
            } else {
                random.next().unwrap()
            };
            let integer = low + (draw & ((1u64 << bits) - 1)) as i64;
            let nan = (draw >> 40) % 256 < u64::from(input.nan % 64);
            values.push(if nan {
                f64::NAN
            } else {
                integer as f64 / scale + offset
            });
        }
    }
    let bytes: Vec<u8> = if input.float32 {
        values
            .iter()
            .flat_map(|&v| (v as f32).to_le_bytes())
            .collect()
    } else {
        values.iter().flat_map(|&v| v.to_le_bytes()).collect()
    };
    array
        .store_array_subset(&written, ArrayBytes::new_flen(bytes))
        .expect("a write of finite values and NaN");

    let windows: Vec<ArraySubset> = input
        .windows
        .iter()
        .take(6)
        .map(|&(r, c, h, w)| {
            part(
                shape,
                (u64::from(r), u64::from(c), u64::from(h), u64::from(w)),
                65536,
            )
        })
        .collect();
    // The reads go through `Checked`.
    let array = Array::new_with_metadata(Arc::new(Checked(store.clone())), "/", metadata.clone())
        .expect("as above");
    let zarrs_read = |subset: &ArraySubset| {
        array
            .retrieve_array_subset::<ArrayBytes<'static>>(subset)
            .map(|bytes| bytes.into_fixed().unwrap().to_vec())
    };
    // What each window holds as written (before a stored byte is changed). zarrs 0.23.14 fails
    // to read some chunks it wrote (Blosc's type size larger than the chunk, or not dividing it).
    let Ok(intact) = windows
        .iter()
        .map(zarrs_read)
        .collect::<Result<Vec<Vec<u8>>, _>>()
    else {
        return;
    };

    let mut corrupt = false;
    if let Some((which, at, xor, cut)) = input.corrupt {
        let keys: Vec<StoreKey> = store
            .list()
            .unwrap()
            .into_iter()
            .filter(|key| key.as_str().starts_with("c/"))
            .collect();
        if !keys.is_empty() {
            let key = &keys[usize::from(which) % keys.len()];
            let mut stored = store.get(key).unwrap().unwrap().to_vec();
            let at = at as usize % stored.len();
            if cut {
                stored.truncate(at);
            } else {
                stored[at] ^= xor.max(1);
            }
            if std::env::var_os("SHARD_WINDOWS_PRINT").is_some() {
                let change = if cut { "cut at" } else { "changed at" };
                eprintln!("{key} {change} byte {at}");
            }
            store.set(key, stored.into()).unwrap();
            corrupt = true;
        }
    }

    // zarrs' read of each window: as written, unless a stored byte was changed.
    let zarrs: Vec<_> = if corrupt {
        windows.iter().map(zarrs_read).collect()
    } else {
        intact.iter().cloned().map(Ok).collect()
    };
    let fresh = FusedReader::new(&array);
    let keeping = FusedReader::new(&array).with_shard_index_cache();
    // The same keys and bytes in an asynchronous store.
    let async_store = Arc::new(AsyncMemoryStore::new());
    for key in store.list().unwrap() {
        let value = store.get(&key).unwrap().unwrap();
        block_on(async_store.set(&key, value)).unwrap();
    }
    let async_array = Array::new_with_metadata(async_store, "/", metadata).unwrap();
    let zarrs_async: Vec<_> = windows
        .iter()
        .map(|subset| {
            block_on(async_array.async_retrieve_array_subset::<ArrayBytes<'static>>(subset))
                .map(|bytes| bytes.into_fixed().unwrap().to_vec())
        })
        .collect();
    let async_fresh = FusedReader::new(&async_array);
    let async_keeping = FusedReader::new(&async_array).with_shard_index_cache();
    let read = |reader: usize, subset: &ArraySubset| match (reader, input.float32) {
        (0, true) => fused::<f32>(&fresh, subset),
        (0, false) => fused::<f64>(&fresh, subset),
        (1, true) => fused::<f32>(&keeping, subset),
        (1, false) => fused::<f64>(&keeping, subset),
        (2, true) => fused_async::<f32>(&async_fresh, subset),
        (2, false) => fused_async::<f64>(&async_fresh, subset),
        (_, true) => fused_async::<f32>(&async_keeping, subset),
        (_, false) => fused_async::<f64>(&async_keeping, subset),
    };
    // The readers in the order of `read`, whether each keeps what it read, and whether it reads
    // through zarrs' asynchronous API.
    let readers = [
        ("FusedReader", false, false),
        ("FusedReader keeping indexes", true, false),
        ("FusedReader async", false, true),
        ("FusedReader async keeping indexes", true, true),
    ];
    let cases = || {
        windows
            .iter()
            .zip(&intact)
            .zip(zarrs.iter().zip(&zarrs_async))
    };
    // Each window to every reader, then again to the keeping readers: from what they kept of the
    // first (a fresh reader would only repeat its read).
    let passes = cases()
        .map(|case| (case, false))
        .chain(cases().map(|case| (case, true)));
    for (((subset, intact), (zarrs, zarrs_async)), again) in passes {
        for (reader, &(name, keeps, asynchronous)) in readers.iter().enumerate() {
            if again && !keeps {
                continue;
            }
            let (zarrs, zarrs_sync) = if asynchronous {
                (zarrs_async, zarrs.as_ref().ok())
            } else {
                (zarrs, None)
            };
            match (zarrs, &read(reader, subset)) {
                (Ok(zarrs), Ok(got)) => {
                    assert!(zarrs == got, "{name} {subset:?}: other bits than zarrs")
                }
                (Err(_), Err(_)) => {}
                // Where a changed byte lies in blocks of a Blosc chunk the window does not need
                // (or a shard is cut after them), zarrs (decompressing more of the chunk) may
                // fail where the window still reads as written. zarrs 0.23.14's asynchronous read
                // fails on some chunks its synchronous read reads (where Blosc's type size does
                // not divide the chunk's bytes, its Blosc partial decoder gives whole items only,
                // short of the chunk's last bytes): an asynchronous read that reads the window
                // may then give the synchronous read's bits instead.
                (Err(_), Ok(got)) if corrupt || zarrs_sync.is_some() => assert!(
                    (corrupt && got == intact) || zarrs_sync == Some(got),
                    "{name} {subset:?}: zarrs fails, {name} reads bits neither as written nor \
                     as zarrs' synchronous read"
                ),
                (zarrs, got) => panic!(
                    "{name} {subset:?}: zarrs {:?}, {name} {:?}",
                    zarrs.as_ref().map(|_| ()),
                    got.as_ref().map(|_| ())
                ),
            }
        }
    }
});
