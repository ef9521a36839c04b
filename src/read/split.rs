//! A read split by chunk: the pieces of the output each chunk fills.
//!
//! The runs of all the chunks a read touches partition its output. They are cut from the output
//! with `split_at_mut`, so that each chunk owns its pieces and the chunks can be filled on
//! different threads without sharing anything.

use zarrs::array::chunk_grid::api::ChunkGridTraits;
use zarrs::array::{ArrayError, ArraySubset};

use super::pieces::ChunkWork;
use super::runs::runs;
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
/// # Panics
/// If the runs of `works` do not partition `output` exactly.
fn place<'o>(
    works: &mut [ChunkWork<'o>],
    output: Output<'o>,
    first: usize,
    subset: &ArraySubset,
    out_size: usize,
) {
    // Every run: its first element in the output; its length, the work, its first element in
    // the chunk.
    let mut all = Vec::new();
    for (index, work) in works.iter_mut().enumerate() {
        let overlap = &work.overlap;
        let chunk_runs = runs(
            (overlap.start(), overlap.shape()),
            (work.chunk.start(), work.chunk.shape()),
            (subset.start(), subset.shape()),
        );
        all.extend(
            chunk_runs
                .iter()
                .map(|&(input, out, len)| (out, (len, index, input))),
        );
        work.pieces.reserve_exact(chunk_runs.len());
    }
    let all = in_output_order(all, first, output.len() / out_size, subset);
    let mut rest = output;
    let mut at = first;
    for (out, (len, index, input)) in all {
        assert_eq!(out, at, "the runs of the chunks partition the output");
        let (piece, tail) = std::mem::take(&mut rest).split_at(len * out_size);
        works[index].pieces.push((input, piece));
        rest = tail;
        at += len;
    }
    assert!(rest.is_empty(), "the runs of the chunks cover the output");
}

/// `runs` (each with its first element in the output first) in output order, for a band of
/// `elements` output elements from `first` on: by the output row each starts in (the subset's
/// last dimension), in the order of their chunks, which for chunks in rows and columns is already
/// their order within a row; sorted only where it is not.
fn in_output_order<R: Copy + Default>(
    runs: Vec<(usize, R)>,
    first: usize,
    elements: usize,
    subset: &ArraySubset,
) -> Vec<(usize, R)> {
    let row = subset
        .shape()
        .last()
        .map_or(1, |&n| usize::try_from(n).unwrap_or(usize::MAX))
        .max(1);
    let rows = elements.div_ceil(row);
    if rows == 0 {
        return runs;
    }
    let row_of = |out: usize| (out.saturating_sub(first) / row).min(rows - 1);
    // Where each row's runs start.
    let mut next = vec![0usize; rows];
    for &(out, _) in &runs {
        next[row_of(out)] += 1;
    }
    let mut at = 0;
    for count in &mut next {
        (*count, at) = (at, at + *count);
    }
    let mut ordered = vec![(0, R::default()); runs.len()];
    for run in runs {
        let slot = &mut next[row_of(run.0)];
        ordered[*slot] = run;
        *slot += 1;
    }
    if !ordered.is_sorted_by_key(|&(out, _)| out) {
        ordered.sort_unstable_by_key(|&(out, _)| out);
    }
    ordered
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
        let pieces: usize = works.iter().map(|work| work.elements(8)).sum();
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
}
