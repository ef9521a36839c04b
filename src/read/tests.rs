//! The read's concurrency split, and a small write and read through zarrs and the fused reader.

use std::sync::Arc;

use zarrs::array::{ArrayBuilder, data_type};
use zarrs::storage::store::MemoryStore;

use super::*;
use crate::kernel::testing::rayon_without_workers;
use crate::{CastValueCodec, CastValueOutOfRangeMode, ScaleOffsetCodec};

/// A write and reads of a float64 array stored as uint16 in one chunk, through zarrs and the
/// fused reader (the portable kernels under Miri): every element as the chain defines it.
#[test]
fn a_small_array_writes_and_reads_back_through_zarrs_and_the_fused_reader() {
    rayon_without_workers();
    let cast = CastValueCodec::builder(data_type::uint16())
        .out_of_range(CastValueOutOfRangeMode::Clamp)
        .map(f64::NAN, 0u16)
        .build()
        .unwrap();
    let array = ArrayBuilder::new(vec![6, 5], vec![6, 5], data_type::float64(), f64::NAN)
        .array_to_array_codecs(vec![
            Arc::new(ScaleOffsetCodec::new(-0.1, 10000).unwrap()),
            Arc::new(cast),
        ])
        .build(Arc::new(MemoryStore::new()), "/")
        .unwrap();
    let one = CodecOptions::default().with_concurrent_target(1);
    let values: Vec<f64> = (0..30)
        .map(|i| match i {
            7 => f64::NAN,
            8 => 9.0, // beyond the clamp: stored as 65535
            i => f64::from(i) * 0.0123,
        })
        .collect();
    array
        .store_array_subset_opt(&[0..6, 0..5], values.clone(), &one)
        .unwrap();
    let expected: Vec<f64> = values
        .iter()
        .map(|&x| match x {
            x if x.is_nan() => f64::NAN,
            9.0 => 65535.0 / 10000.0 + -0.1,
            x => ((x + 0.1) * 10000.0).round_ties_even() / 10000.0 + -0.1,
        })
        .collect();
    // Bit for bit, but any NaN for NaN: Miri gives NaN produced by arithmetic any sign and
    // payload, as Rust's semantics allow.
    let bits = |values: &[f64]| {
        let bits = |x: &f64| if x.is_nan() { u64::MAX } else { x.to_bits() };
        values.iter().map(bits).collect::<Vec<_>>()
    };
    let zarrs: Vec<f64> = array
        .retrieve_array_subset_opt(&[0..6, 0..5], &one)
        .unwrap();
    assert_eq!(bits(&zarrs), bits(&expected));
    let reader = FusedReader::new(&array);
    assert!(reader.is_fused());
    // Into a buffer filled with a pattern no read writes, and into a new vector.
    let mut into = vec![f64::from_bits(0xAAAA_AAAA_AAAA_AAAA); 12];
    reader
        .retrieve_array_subset_into_opt(&[2..5, 1..5], &mut into, &one)
        .unwrap();
    let part: Vec<f64> = (2..5)
        .flat_map(|row| (1..5).map(move |column| row * 5 + column))
        .map(|i| expected[i])
        .collect();
    assert_eq!(bits(&into), bits(&part));
    let fresh: Vec<f64> = reader
        .retrieve_array_subset_opt(&[0..6, 0..5], &one)
        .unwrap();
    assert_eq!(bits(&fresh), bits(&expected));
}

#[test]
fn chunks_take_the_threads_first_and_large_chunks_the_rest() {
    let on = |threads| CodecOptions::default().with_concurrent_target(threads);
    let split = |chunks, threads| {
        let (outer, inner) = concurrency(chunks, &on(threads));
        (outer, inner.concurrent_target())
    };
    assert_eq!(split(256, 16), (16, 1));
    assert_eq!(split(16, 16), (16, 1));
    assert_eq!(split(5, 16), (5, 4));
    assert_eq!(split(1, 16), (1, 16));
    // At least zarrs' chunk concurrent minimum (4) of chunks at once, as zarrs reads them.
    assert_eq!(split(16, 1), (4, 1));
    assert_eq!(split(2, 1), (2, 1));
    assert_eq!(split(0, 8), (1, 8));
}

/// Whole chunks (or inner chunks) of short rows read in many runs go through zarrs' own read;
/// windows of them, fewer runs and longer rows are read fused.
#[test]
fn reads_of_many_short_runs_of_whole_chunks_go_through_zarrs() {
    let reader = |shape: Vec<u64>, chunk: Vec<u64>| {
        ArrayBuilder::new(shape, chunk, data_type::float32(), 0.0f32)
            .array_to_array_codecs(vec![Arc::new(ScaleOffsetCodec::new(0, 100).unwrap())])
            .build(Arc::new(MemoryStore::new()), "/")
            .unwrap()
    };
    let short_runs = |array: &Array<MemoryStore>, ranges: &[std::ops::Range<u64>]| {
        let plan = plan(array).expect("fused");
        plan.short_runs(array, &ArraySubset::new_with_ranges(ranges))
    };
    // Rows of 64 elements, 4096 x 512 / 64 = 32768 runs: through zarrs, also beyond the array.
    let columns = reader(vec![4096, 512], vec![4096, 64]);
    assert!(short_runs(&columns, &[0..4096, 0..512]));
    assert!(short_runs(&columns, &[0..4096, 64..520]));
    // A window, a part of the chunks, one chunk's columns, too few runs: fused.
    assert!(!short_runs(&columns, &[100..612, 100..612]));
    assert!(!short_runs(&columns, &[0..4000, 0..512]));
    assert!(!short_runs(&columns, &[0..4096, 64..128]));
    assert!(!short_runs(&columns, &[0..1024, 0..512]));
    // Three dimensions, rows of 64 of chunks holding every step of the first.
    let stack = reader(vec![8, 512, 512], vec![8, 64, 64]);
    assert!(short_runs(&stack, &[0..8, 0..512, 0..512]));
    // Rows of 128 elements or more: fused.
    let wide = reader(vec![4096, 512], vec![4096, 128]);
    assert!(!short_runs(&wide, &[0..4096, 0..512]));
    let sharded = ArrayBuilder::new(
        vec![4096, 512],
        vec![4096, 128],
        data_type::float32(),
        0.0f32,
    )
    .subchunk_shape(vec![4096, 64])
    .array_to_array_codecs(vec![Arc::new(ScaleOffsetCodec::new(0, 100).unwrap())])
    .build(Arc::new(MemoryStore::new()), "/")
    .unwrap();
    // Sharded: by the inner chunks.
    assert!(short_runs(&sharded, &[0..4096, 0..512]));
    assert!(!short_runs(&sharded, &[0..4096, 32..512]));
}
