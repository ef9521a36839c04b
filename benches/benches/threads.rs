//! Whole reads of the reflectance array (`benches/src/reflectance.rs`) on 1, 2, ... threads: a
//! rayon pool of that many threads and `CodecOptions` with that concurrent target, in chunks of
//! 1024 x 1024 and of 256 x 256, and in shards of 1024 x 1024 holding inner chunks of 256 x 256
//! (`1024s256`, the codecs inside the sharding codec as zarr-python writes them; the hand loop's
//! uint16 array sharded alike), and in shards of 2048 x 2048 holding inner chunks of 1024 x 1024
//! compressed as zarr-python compresses them (`2048s1024blosc`: Blosc zstd, bit shuffle); and, on
//! request, in chunks of all 4096 rows and 64 columns (`4096x64`: one chunk along the first
//! dimension, as time series chunked `[time, 64, 64]` have, so that a read's runs are short and
//! all its chunks share every row). `BENCH_THREADS` lists the thread counts (default `1,2`),
//! `BENCH_LAYOUTS` the layouts (default all but `4096x64`).
//!
//! Each thread count has its baselines in the same run:
//! - `read_into/hand`: the same uint16 chunks read by zarrs into a reused buffer, then converted by
//!   a plain loop split over the pool;
//! - `read_into/zarrs`: zarrs' own `retrieve_array_subset_into` with the codecs;
//! - `read_into/zarrs_min_1` (from 2 threads): the same with `chunk_concurrent_minimum` 1, where
//!   zarrs starts from one chunk at a time and gives each chunk up to the threads the codecs
//!   recommend before it reads more chunks at once: on 2 threads, the choice zarrs makes from its
//!   default minimum of 4 chunks on 8 or 16 threads;
//! - `read_into/fused`: `FusedReader::retrieve_array_subset_into_opt`;
//! - `read_vec/hand`, `read_vec/zarrs` and `read_vec/fused`: a new `Vec<f64>` per read: the hand
//!   loop collecting into a new vector (allocated once, filled in parallel: the floor of any read
//!   that returns new memory, which the operating system hands out zeroed, page by page), zarrs'
//!   own, and `FusedReader::retrieve_array_subset_opt`;
//! - `part_into/fused` and `part_vec/fused`: the same two fused reads of a 1024 x 1024 part
//!   (8 MiB, which the system allocator recycles from one new vector to the next);
//! - `window_into/hand`, `window_into/zarrs` and `window_into/fused`: a 512 x 512 window at
//!   rows and columns 300..812 (within one chunk of 1024 x 1024, across four of 256 x 256) read
//!   into a reused buffer, as an application pages through a large array;
//! - `memory/reused` and `memory/new`: every byte of the output written by a plain loop split
//!   over the pool, into the reused buffer and into a new one (offered huge pages, as the codecs'
//!   new buffers are): what new memory costs any read that returns it.

use std::mem::MaybeUninit;

use criterion::measurement::WallTime;
use criterion::{BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput, criterion_main};
use rayon::prelude::*;
use zarrs::array::{ArraySubset, CodecOptions};
use zarrs_scale_offset_cast::FusedReader;
use zarrs_scale_offset_cast_benches::minimal;
use zarrs_scale_offset_cast_benches::reflectance::{
    ELEMENTS, Layout, arrays, retrieve_into, retrieve_subset_into, whole,
};
use zarrs_scale_offset_cast_benches::{reflectances, with_capacity};

fn thread_counts() -> Vec<usize> {
    std::env::var("BENCH_THREADS")
        .unwrap_or_else(|_| "1,2".into())
        .split(',')
        .map(|n| {
            n.trim()
                .parse()
                .expect("BENCH_THREADS: numbers separated by commas")
        })
        .collect()
}

/// The layouts `BENCH_LAYOUTS` names (`1024`, `256`, `4096x64`, `1024s256`, `2048s1024blosc`;
/// default all but `4096x64`).
fn layouts() -> Vec<Layout> {
    let number = |text: &str| -> u64 {
        text.parse()
            .expect("BENCH_LAYOUTS: 1024, 256, 4096x64, 1024s256 or 2048s1024blosc")
    };
    std::env::var("BENCH_LAYOUTS")
        .unwrap_or_else(|_| "1024,256,1024s256,2048s1024blosc".into())
        .split(',')
        .map(|name| {
            let name = name.trim();
            let (name, blosc) = match name.strip_suffix("blosc") {
                Some(name) => (name, true),
                None => (name, false),
            };
            match (name.split_once('s'), name.split_once('x')) {
                (Some((shard, inner)), _) if blosc => {
                    Layout::BloscShards(number(shard), number(inner))
                }
                (Some((shard, inner)), _) => Layout::Shards(number(shard), number(inner)),
                (None, Some((_, columns))) => Layout::Columns(number(columns)),
                (None, None) => Layout::Chunks(number(name)),
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let data = reflectances(ELEMENTS);
    let mut group = c.benchmark_group("threads");
    group.sample_size(10);
    // Reads of 10 to 200 ms: the same number of reads in every sample.
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Elements(ELEMENTS as u64));
    let subset = whole();
    for layout in layouts() {
        let arrays = arrays(layout, &data);
        let reader = FusedReader::new(&arrays.codecs);
        assert!(reader.is_fused());
        let mut output = vec![0f64; ELEMENTS];
        let mut stored = vec![0u16; ELEMENTS];
        let part_subset = ArraySubset::new_with_ranges(&[0..1024, 0..1024]);
        let mut part_output = vec![0f64; 1 << 20];
        let window = ArraySubset::new_with_ranges(&[300..812, 300..812]);
        let mut window_output = vec![0f64; 512 * 512];
        let mut window_stored = vec![0u16; 512 * 512];
        for threads in thread_counts() {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let options = CodecOptions::default().with_concurrent_target(threads);
            let id = |name: &str| BenchmarkId::new(name, format!("{}/{threads}", layout.label()));
            // `{name}_into/fused` and `{name}_vec/fused`: `subset` into `output` and into a new
            // vector.
            let fused_reads = |group: &mut BenchmarkGroup<'_, WallTime>,
                               name: &str,
                               subset: &ArraySubset,
                               output: &mut [f64]| {
                group.bench_function(id(&format!("{name}_into/fused")), |b| {
                    b.iter(|| {
                        pool.install(|| {
                            reader
                                .retrieve_array_subset_into_opt(subset, output, &options)
                                .unwrap();
                        })
                    });
                });
                group.bench_function(id(&format!("{name}_vec/fused")), |b| {
                    b.iter(|| {
                        pool.install(|| {
                            reader
                                .retrieve_array_subset_opt::<Vec<f64>>(subset, &options)
                                .unwrap()
                        })
                    });
                });
            };
            group.bench_function(id("read_into/hand"), |b| {
                b.iter(|| {
                    pool.install(|| {
                        let bytes = bytemuck::cast_slice_mut(&mut stored);
                        retrieve_into(&arrays.hand, bytes, 2, &options);
                        stored
                            .par_iter()
                            .zip(output.par_iter_mut())
                            .with_min_len(1 << 16)
                            .for_each(|(x, y)| *y = minimal::decode(*x));
                    })
                });
            });
            group.bench_function(id("read_into/zarrs"), |b| {
                b.iter(|| {
                    pool.install(|| {
                        let bytes = bytemuck::cast_slice_mut(&mut output);
                        retrieve_into(&arrays.codecs, bytes, 8, &options);
                    })
                });
            });
            if threads > 1 {
                let options = options.with_chunk_concurrent_minimum(1);
                group.bench_function(id("read_into/zarrs_min_1"), |b| {
                    b.iter(|| {
                        pool.install(|| {
                            let bytes = bytemuck::cast_slice_mut(&mut output);
                            retrieve_into(&arrays.codecs, bytes, 8, &options);
                        })
                    });
                });
            }
            fused_reads(&mut group, "read", &subset, &mut output);
            group.bench_function(id("read_vec/hand"), |b| {
                b.iter(|| {
                    pool.install(|| {
                        let bytes = bytemuck::cast_slice_mut(&mut stored);
                        retrieve_into(&arrays.hand, bytes, 2, &options);
                        stored
                            .par_iter()
                            .with_min_len(1 << 16)
                            .map(|x| minimal::decode(*x))
                            .collect::<Vec<f64>>()
                    })
                });
            });
            group.bench_function(id("read_vec/zarrs"), |b| {
                b.iter(|| {
                    pool.install(|| {
                        arrays
                            .codecs
                            .retrieve_array_subset_opt::<Vec<f64>>(&subset, &options)
                            .unwrap()
                    })
                });
            });
            // A part of 8 MiB, which the system allocator recycles from read to read.
            group.throughput(Throughput::Elements(1 << 20));
            fused_reads(&mut group, "part", &part_subset, &mut part_output);
            group.throughput(Throughput::Elements(ELEMENTS as u64));
            group.throughput(Throughput::Elements(512 * 512));
            group.bench_function(id("window_into/hand"), |b| {
                b.iter(|| {
                    pool.install(|| {
                        let bytes = bytemuck::cast_slice_mut(&mut window_stored);
                        retrieve_subset_into(&arrays.hand, &window, bytes, 2, &options);
                        window_stored
                            .par_iter()
                            .zip(window_output.par_iter_mut())
                            .with_min_len(1 << 16)
                            .for_each(|(x, y)| *y = minimal::decode(*x));
                    })
                });
            });
            group.bench_function(id("window_into/zarrs"), |b| {
                b.iter(|| {
                    pool.install(|| {
                        let bytes = bytemuck::cast_slice_mut(&mut window_output);
                        retrieve_subset_into(&arrays.codecs, &window, bytes, 8, &options);
                    })
                });
            });
            group.bench_function(id("window_into/fused"), |b| {
                b.iter(|| {
                    pool.install(|| {
                        reader
                            .retrieve_array_subset_into_opt(&window, &mut window_output, &options)
                            .unwrap();
                    })
                });
            });
            group.throughput(Throughput::Elements(ELEMENTS as u64));
            // The output's bytes, 512 KiB to a task.
            let task_bytes = 1 << 19;
            group.bench_function(id("memory/reused"), |b| {
                b.iter(|| {
                    pool.install(|| {
                        let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut output);
                        bytes
                            .par_chunks_mut(task_bytes)
                            .for_each(|part| part.fill(1));
                    })
                });
            });
            group.bench_function(id("memory/new"), |b| {
                b.iter(|| {
                    pool.install(|| {
                        let len = ELEMENTS * size_of::<f64>();
                        let mut new = with_capacity(len);
                        new.spare_capacity_mut()[..len]
                            .par_chunks_mut(task_bytes)
                            .for_each(|part| part.fill(MaybeUninit::new(1)));
                        // SAFETY: the loop above wrote each of the first `len` bytes.
                        unsafe { new.set_len(len) };
                        new
                    })
                });
            });
        }
    }
    group.finish();
}

fn benches() {
    let mut criterion = Criterion::default().configure_from_args();
    bench(&mut criterion);
}

criterion_main!(benches);
