//! A read split by chunk: the pieces of the output each chunk fills.
//!
//! The runs of all the chunks a read touches partition its output. They are cut from the output
//! with `split_at_mut`, so that each chunk owns its pieces and the chunks can be filled on
//! different threads without sharing anything.

use zarrs::array::chunk_grid::api::ChunkGridTraits;
use zarrs::array::{ArrayError, ArraySubset};

use super::pieces::ChunkWork;
use super::runs::{Run, runs};
use crate::kernel::driver::Output;

/// Splits `output` (the elements of `subset` in C order, `out_size` bytes each) into the pieces
/// of every chunk of `grid` (the array's chunks, or a sharded array's inner chunks) that `subset`
/// touches: band by band, on up to `threads` rayon
/// threads, where a band is the chunks that share their range along the first dimension the
/// subset spans more than one element of (their elements are one contiguous part of `output`).
///
/// # Errors
/// Returns an [`ArrayError`] if the subset is not within the array's chunk grid.
///
/// # Panics
/// If the runs of the chunks do not partition `output` exactly (they always do).
pub(super) fn split<'o>(
    grid: &dyn ChunkGridTraits,
    subset: &ArraySubset,
    output: Output<'o>,
    out_size: usize,
    threads: usize,
) -> Result<Vec<ChunkWork<'o>>, ArrayError> {
    let chunks = grid.chunks_in_array_subset(subset)?.ok_or_else(|| {
        ArrayError::InvalidArraySubset(subset.clone(), grid.array_shape().to_vec())
    })?;
    let mut works = Vec::new();
    for indices in &chunks.indices() {
        let chunk = grid
            .subset(&indices)?
            .ok_or_else(|| ArrayError::InvalidChunkGridIndicesError(indices.to_vec()))?;
        let overlap = chunk.overlap(subset)?;
        works.push(ChunkWork {
            indices: indices.to_vec(),
            chunk,
            overlap,
            pieces: Vec::new(),
            start: 0,
        });
    }
    // Cut the works and the output into bands.
    let band_sizes = bands_of(&works, subset, output.len() / out_size);
    let mut bands = Vec::with_capacity(band_sizes.len());
    let (mut works_rest, mut output_rest) = (works.as_mut_slice(), output);
    let mut first = 0;
    for (count, elements) in band_sizes {
        let (band_works, tail) = std::mem::take(&mut works_rest).split_at_mut(count);
        let (band_output, rest) = std::mem::take(&mut output_rest).split_at(elements * out_size);
        bands.push((band_works, band_output, first));
        (works_rest, output_rest) = (tail, rest);
        first += elements;
    }
    assert!(output_rest.is_empty(), "the bands cover the output");
    let place = |(works, output, first)| {
        place(works, output, first, subset, out_size);
        Ok::<(), std::convert::Infallible>(())
    };
    let Ok(()) = super::for_each_limited(bands, threads, place);
    Ok(works)
}

/// Starts each chunk's fill at a run of its own, by the chunk's index along the last dimension:
/// chunks side by side, filled at once on different threads, then write to different rows of the
/// output first, so that their threads do not fault the same fresh pages of a new output at the
/// same time (docs/performance.md, "Into a new vector"). For chunks; the inner chunks of shards
/// start at rows of their own by their shard ([`super::shards`]).
pub(super) fn stagger(works: &mut [ChunkWork<'_>]) {
    let mut across: Vec<u64> = works
        .iter()
        .filter_map(|work| work.indices.last().copied())
        .collect();
    across.sort_unstable();
    across.dedup();
    let across = across.len();
    if works.first().is_none_or(|work| work.indices.len() < 2) || across < 2 {
        return;
    }
    let across = across as u64;
    for work in works {
        let column = work.indices.last().map_or(0, |&last| last % across);
        // Below the number of pieces, as `column` is below `across`.
        let start = u128::from(column) * work.pieces.len() as u128 / u128::from(across);
        work.start = usize::try_from(start).unwrap_or(0);
    }
}

/// The bands of `works` (in C order of their chunk indices) of a read of `elements` elements: how
/// many works and how many output elements each holds. One band of all where the chunks do not
/// fall into bands (a chunk grid whose chunks are not aligned along that dimension, or a subset
/// of one element).
fn bands_of(works: &[ChunkWork<'_>], subset: &ArraySubset, elements: usize) -> Vec<(usize, usize)> {
    let shape = subset.shape();
    let whole = || vec![(works.len(), elements)];
    // The first dimension of more than one element; the elements of one step along it.
    let Some(dim) = shape.iter().position(|&extent| extent > 1) else {
        return whole();
    };
    let step: u64 = shape[dim + 1..].iter().product();
    let range = |work: &ChunkWork<'_>| (work.overlap.start()[dim], work.overlap.shape()[dim]);
    let mut bands: Vec<(usize, usize)> = Vec::new();
    let mut at = subset.start()[dim];
    let mut works_left = works;
    while let Some(first) = works_left.first() {
        let (start, extent) = range(first);
        let count = works_left
            .iter()
            .take_while(|work| range(work) == (start, extent))
            .count();
        let Ok(band) = usize::try_from(extent * step) else {
            return whole();
        };
        if start != at {
            return whole();
        }
        bands.push((count, band));
        at = start + extent;
        works_left = &works_left[count..];
    }
    if at == subset.start()[dim] + shape[dim] {
        bands
    } else {
        whole()
    }
}

/// Gives each of `works` its pieces of `output`, which holds the output elements from `first`
/// on and exactly the runs of `works`.
///
/// Each chunk's runs come in its own C order, which is also their order in the output, so the
/// output is cut by merging the chunks' runs: the run starting where the last one ended belongs
/// to the chunk after the last one (the next chunk along a row), or to the chunk that started
/// the current output row (a new row within the same chunks), else it is looked for among all.
/// No list of every run is built or sorted.
///
/// # Panics
/// If the runs of `works` do not partition `output` exactly.
fn place<'o>(
    works: &mut [ChunkWork<'o>],
    output: Output<'o>,
    first: usize,
    subset: &ArraySubset,
    out_size: usize,
) {
    let chunk_runs: Vec<Vec<Run>> = works
        .iter_mut()
        .map(|work| {
            let runs = runs(
                (work.overlap.start(), work.overlap.shape()),
                (work.chunk.start(), work.chunk.shape()),
                (subset.start(), subset.shape()),
            );
            work.pieces.reserve_exact(runs.len());
            runs
        })
        .collect();
    let row = subset
        .shape()
        .last()
        .map_or(1, |&n| usize::try_from(n).unwrap_or(usize::MAX))
        .max(1);
    let count = works.len();
    let mut next = vec![0usize; count];
    let starts_at = |index: usize, next: &[usize], at: usize| {
        chunk_runs[index]
            .get(next[index])
            .is_some_and(|&(_, out, _)| out == at)
    };
    let (mut last, mut row_first) = (count.saturating_sub(1), 0);
    let mut rest = output;
    let mut at = first;
    while !rest.is_empty() {
        let after = if last + 1 == count { 0 } else { last + 1 };
        let index = [after, row_first]
            .into_iter()
            .find(|&index| starts_at(index, &next, at))
            .or_else(|| (0..count).find(|&index| starts_at(index, &next, at)))
            .expect("the runs of the chunks partition the output");
        let (input, _, len) = chunk_runs[index][next[index]];
        next[index] += 1;
        if at.is_multiple_of(row) {
            row_first = index;
        }
        let (piece, tail) = std::mem::take(&mut rest).split_at(len * out_size);
        works[index].pieces.push((input, piece));
        rest = tail;
        at += len;
        last = index;
    }
    assert!(
        next.iter()
            .zip(&chunk_runs)
            .all(|(&n, runs)| n == runs.len()),
        "the runs of the chunks cover the output"
    );
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use zarrs::array::{ArrayBuilder, data_type};
    use zarrs::storage::store::MemoryStore;

    use super::*;

    /// The bands of a read of `ranges` from a float64 array of `shape` on `grid`, with the
    /// pieces checked against the output.
    fn bands(shape: &[u64], grid: &str, ranges: &[std::ops::Range<u64>]) -> Vec<(usize, usize)> {
        crate::kernel::testing::rayon_without_workers();
        let array = ArrayBuilder::new(shape.to_vec(), grid, data_type::float64(), 0.0f64)
            .build(Arc::new(MemoryStore::new()), "/")
            .unwrap();
        let subset = ArraySubset::new_with_ranges(ranges);
        let elements = usize::try_from(subset.num_elements()).unwrap();
        let mut output = vec![0u8; elements * 8];
        let works = split(
            &***array.chunk_grid(),
            &subset,
            Output::Init(&mut output),
            8,
            2,
        )
        .unwrap();
        let pieces: usize = works.iter().map(ChunkWork::elements).sum();
        assert_eq!(pieces, elements);
        bands_of(&works, &subset, elements)
    }

    #[test]
    fn chunks_sharing_their_rows_form_a_band() {
        let regular = r#"{"name": "regular", "configuration": {"chunk_shape": [4, 4]}}"#;
        // 3 bands of 3 chunks: rows 1..4, 4..8 and 8..9 of 8 columns.
        assert_eq!(
            bands(&[10, 10], regular, &[1..9, 1..9]),
            [(3, 24), (3, 32), (3, 8)]
        );
        // A single row: the bands run along the columns.
        assert_eq!(
            bands(&[10, 10], regular, &[5..6, 1..9]),
            [(1, 3), (1, 4), (1, 1)]
        );
        // A single element: one band.
        assert_eq!(bands(&[10, 10], regular, &[5..6, 5..6]), [(1, 1)]);
        let rectangular = r#"{"name": "rectangular",
            "configuration": {"chunk_shape": [[1, 3, 2], [4, 1, 7, 5], [6, 8]]}}"#;
        assert_eq!(
            bands(&[6, 17, 14], rectangular, &[0..6, 0..17, 0..14]),
            [(8, 238), (8, 714), (8, 476)]
        );
        assert_eq!(
            bands(&[6, 17, 14], rectangular, &[2..3, 3..16, 0..14]),
            [(2, 14), (2, 14), (2, 98), (2, 56)]
        );
    }
    /// The first piece each chunk fills: chunks side by side start at different runs, by their
    /// index along the last dimension; the chunks of a 1-D array at their first.
    fn starts(shape: &[u64], chunk: &str, ranges: &[std::ops::Range<u64>]) -> Vec<usize> {
        crate::kernel::testing::rayon_without_workers();
        let grid = format!(r#"{{"name": "regular", "configuration": {{"chunk_shape": {chunk}}}}}"#);
        let array = ArrayBuilder::new(shape.to_vec(), grid.as_str(), data_type::float64(), 0.0)
            .build(Arc::new(MemoryStore::new()), "/")
            .unwrap();
        let subset = ArraySubset::new_with_ranges(ranges);
        let mut output = vec![0u8; usize::try_from(subset.num_elements()).unwrap() * 8];
        let mut works = split(
            &***array.chunk_grid(),
            &subset,
            Output::Init(&mut output),
            8,
            1,
        )
        .unwrap();
        stagger(&mut works);
        works.iter().map(|work| work.start).collect()
    }

    #[test]
    fn chunks_side_by_side_start_at_runs_of_their_own() {
        // 4 chunks of 8 rows across: starts at rows 0, 2, 4 and 6, in each band.
        assert_eq!(
            starts(&[16, 32], "[8, 8]", &[0..16, 0..32]),
            [0, 2, 4, 6, 0, 2, 4, 6]
        );
        // A read of 2 of the chunk's rows over 3 chunks: its runs are 2 per chunk.
        assert_eq!(starts(&[16, 32], "[8, 8]", &[3..5, 4..20]), [0, 0, 1]);
        // One chunk across, or a 1-D array: every chunk from its first run.
        assert_eq!(starts(&[16, 8], "[4, 8]", &[0..16, 0..8]), [0; 4]);
        let whole = 0..40;
        assert_eq!(starts(&[40], "[8]", std::slice::from_ref(&whole)), [0; 5]);
        // 3-D: by the index along the last dimension, among the runs of rows and planes.
        assert_eq!(starts(&[2, 4, 4], "[2, 4, 2]", &[0..2, 0..4, 0..4]), [0, 4]);
    }

    /// A case: an array's shape, its chunk grid and the ranges read.
    type Case<'a> = (&'a [u64], String, Vec<std::ops::Range<u64>>);

    /// Each chunk's pieces are its runs, in order, at their place in the output, whatever the
    /// dimensionality and the grid (the merge of `place` takes its shortcuts or searches).
    #[test]
    fn each_chunk_gets_its_own_runs_in_order() {
        crate::kernel::testing::rayon_without_workers();
        let regular = |chunk: &str| {
            format!(r#"{{"name": "regular", "configuration": {{"chunk_shape": {chunk}}}}}"#)
        };
        let rectangular = r#"{"name": "rectangular",
            "configuration": {"chunk_shape": [[1, 3, 2], [4, 1, 7, 5], [6, 8]]}}"#;
        let cases: [Case<'_>; 8] = [
            (&[100], regular("[7]"), std::iter::once(3..95).collect()),
            (&[10, 10], regular("[4, 4]"), vec![1..9, 1..9]),
            (&[10, 10], regular("[4, 4]"), vec![5..6, 0..10]),
            (
                &[6, 17, 14],
                rectangular.to_string(),
                vec![0..6, 0..17, 0..14],
            ),
            (
                &[6, 17, 14],
                rectangular.to_string(),
                vec![1..5, 2..16, 3..13],
            ),
            (
                &[5, 6, 7, 8],
                regular("[2, 3, 2, 3]"),
                vec![1..5, 0..6, 2..7, 1..8],
            ),
            // One band of all the chunks (one chunk along the first dimension).
            (&[3, 10, 10], regular("[3, 4, 4]"), vec![0..3, 1..10, 0..9]),
            (&[2, 9, 30], regular("[4, 2, 7]"), vec![0..2, 0..9, 1..30]),
        ];
        let mut checked = 0;
        for ((shape, grid, ranges), threads) in cases
            .into_iter()
            .flat_map(|case| [1, 2, 5].map(|threads| (case.clone(), threads)))
        {
            let array = ArrayBuilder::new(shape.to_vec(), grid.as_str(), data_type::float64(), 0.0)
                .build(Arc::new(MemoryStore::new()), "/")
                .unwrap();
            let subset = ArraySubset::new_with_ranges(&ranges);
            let elements = usize::try_from(subset.num_elements()).unwrap();
            let mut output = vec![0u8; elements * 8];
            let base = output.as_ptr() as usize;
            let works = split(
                &***array.chunk_grid(),
                &subset,
                Output::Init(&mut output),
                8,
                threads,
            )
            .unwrap();
            for work in &works {
                let expected = runs(
                    (work.overlap.start(), work.overlap.shape()),
                    (work.chunk.start(), work.chunk.shape()),
                    (subset.start(), subset.shape()),
                );
                let pieces: Vec<Run> = work
                    .pieces
                    .iter()
                    .map(|(input, piece)| {
                        let Output::Init(bytes) = piece else {
                            panic!("pieces of an initialised output are initialised")
                        };
                        (
                            *input,
                            (bytes.as_ptr() as usize - base) / 8,
                            bytes.len() / 8,
                        )
                    })
                    .collect();
                assert_eq!(
                    pieces, expected,
                    "{shape:?} {ranges:?} chunk {:?}, {threads} threads",
                    work.indices
                );
                checked += pieces.len();
            }
        }
        assert!(checked > 300, "{checked} runs checked");
    }
}
