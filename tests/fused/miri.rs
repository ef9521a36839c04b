//! A small write and reads through `Array` and `FusedReader`, which `.ci/run` also runs under
//! Miri (the portable kernels; docs/testing.md): every element as the chain defines it.

use std::sync::Arc;

use zarrs::array::{ArrayBuilder, CodecOptions, data_type};
use zarrs::storage::store::MemoryStore;

use zarrs_scale_offset_cast::{
    CastValueCodec, CastValueOutOfRangeMode, FusedReader, ScaleOffsetCodec,
};

/// Under Miri: rayon's global pool made of the test's own thread, so that zarrs (which asks rayon
/// for its thread count) starts no workers, whose idle work stealing Miri's Stacked Borrows
/// rejects inside crossbeam-epoch; the crate's own parallel work runs on scoped threads there.
fn rayon_without_workers() {
    #[cfg(miri)]
    {
        static POOL: std::sync::Once = std::sync::Once::new();
        POOL.call_once(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .use_current_thread()
                .build_global()
                .expect("the first use of rayon's global pool");
        });
    }
}

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
    // Bit for bit, but any NaN for NaN (Miri gives arithmetic NaN any sign and payload).
    let bits = |values: &[f64]| {
        let bits = |x: &f64| if x.is_nan() { u64::MAX } else { x.to_bits() };
        values.iter().map(bits).collect::<Vec<_>>()
    };
    let zarrs: Vec<f64> = array
        .retrieve_array_subset_opt(&[0..6, 0..5], &one)
        .unwrap();
    assert_eq!(bits(&zarrs), bits(&expected));
    // Into a buffer of a pattern no read writes, on the fused path, and into a new vector.
    let reader = FusedReader::new(&array);
    let mut into = vec![f64::from_bits(0xAAAA_AAAA_AAAA_AAAA); 12];
    let report = reader
        .retrieve_array_subset_into_opt(&[2..5, 1..5], &mut into, &one)
        .unwrap();
    assert_eq!((report.decoded, report.through_zarrs.len()), (1, 0));
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
