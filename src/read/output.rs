//! The output of a read cut into each chunk's runs (with `split_at_mut`, so that each chunk owns
//! its pieces and chunks fill on different threads sharing nothing), and what fills them.

use std::collections::BTreeSet;

use zarrs::array::chunk_grid::api::ChunkGridTraits;
use zarrs::array::{ArrayError, ArrayIndices, ArraySubset};

use crate::engine::BLOCK;
use crate::engine::blockwise::Output;

/// One chunk's share of a read (for a sharded array, one inner chunk's).
pub(super) struct ChunkWork<'o> {
    /// The chunk's indices on the grid the read was split over.
    pub(super) indices: ArrayIndices,
    /// The chunk's region within the array.
    pub(super) chunk: ArraySubset,
    /// The region the chunk shares with the read.
    pub(super) overlap: ArraySubset,
    /// The runs of the overlap in C order: the first element of each in the chunk, and the piece
    /// of the output it fills.
    pub(super) pieces: Vec<(usize, Output<'o>)>,
    /// The piece a fill on one thread starts at, going on to the last and then from the first
    /// ([`stagger`]).
    pub(super) start: usize,
}

impl<'o> ChunkWork<'o> {
    /// The elements this chunk fills.
    pub(super) fn elements(&self) -> usize {
        usize::try_from(self.overlap.num_elements()).expect("the output holds them")
    }

    /// The elements of the chunk (in its C order) from the first to the last the pieces need.
    pub(super) fn span(&self, out_size: usize) -> std::ops::Range<usize> {
        match (self.pieces.first(), self.pieces.last()) {
            (Some((first, _)), Some((last, piece))) => *first..last + piece.len() / out_size,
            _ => 0..0,
        }
    }

    /// The pieces from [`Self::start`] on, then those before it.
    pub(super) fn staggered(&mut self) -> impl Iterator<Item = &mut (usize, Output<'o>)> {
        let start = self.start.min(self.pieces.len());
        let (before, after) = self.pieces.split_at_mut(start);
        after.iter_mut().chain(before)
    }

    /// Fills every piece with `fill` (the bytes of one element).
    pub(super) fn fill_with(&mut self, fill: &[u8]) {
        let block: Vec<u8> = fill.repeat(BLOCK);
        for (_, piece) in self.staggered() {
            piece.write_repeating(&block);
        }
    }

    /// Fills the pieces from `bytes`, the elements of `region` (holding the overlap) in C order.
    pub(super) fn copy_from_region(&mut self, region: &ArraySubset, bytes: &[u8]) {
        let size = bytes.len() / usize::try_from(region.num_elements()).unwrap_or(1).max(1);
        let (start, shape) = (self.overlap.start(), self.overlap.shape());
        let mut elements = vec![0; self.elements() * size];
        for (from, to, len) in runs(
            (start, shape),
            (region.start(), region.shape()),
            (start, shape),
        ) {
            elements[to * size..(to + len) * size]
                .copy_from_slice(&bytes[from * size..(from + len) * size]);
        }
        // The pieces are the overlap's elements in C order.
        let mut at = 0;
        for (_, piece) in &mut self.pieces {
            piece.write(&elements[at..at + piece.len()]);
            at += piece.len();
        }
    }
}

/// Splits `output` (the elements of `subset` in C order, `out_size` bytes each) into the pieces of
/// every chunk of `grid` that `subset` touches, band by band on up to `threads` threads (a band:
/// the chunks sharing their range along the first dimension the subset spans more than one
/// element of, a contiguous part of `output`).
///
/// # Errors
/// Where the subset is not within the chunk grid.
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
        let missing = || ArrayError::InvalidChunkGridIndicesError(indices.to_vec());
        let chunk = grid.subset(&indices)?.ok_or_else(missing)?;
        let (overlap, indices) = (chunk.overlap(subset)?, indices.to_vec());
        let (pieces, start) = (Vec::new(), 0);
        let work = ChunkWork {
            indices,
            chunk,
            overlap,
            pieces,
            start,
        };
        works.push(work);
    }
    let mut bands = Vec::new();
    let (mut works_rest, mut output_rest) = (works.as_mut_slice(), output);
    let mut first = 0;
    for (count, elements) in bands_of(works_rest, subset, output_rest.len() / out_size) {
        let (band_works, tail) = std::mem::take(&mut works_rest).split_at_mut(count);
        let (band_output, rest) = std::mem::take(&mut output_rest).split_at(elements * out_size);
        bands.push((band_works, band_output, first));
        (works_rest, output_rest) = (tail, rest);
        first += elements;
    }
    assert!(output_rest.is_empty(), "the bands cover the output");
    let place = |(works, output, first)| place(works, output, first, subset, out_size);
    crate::parallel::map_limited(bands, threads, place);
    Ok(works)
}

/// Starts each chunk's fill at a run of its own by `column` (its index along the last dimension,
/// or its shard's), so that chunks side by side, filled at once, do not fault the same fresh pages
/// of a new output from several threads at the same time.
pub(super) fn stagger(works: &mut [ChunkWork<'_>], column: impl Fn(&[u64]) -> u64) {
    let columns: BTreeSet<u64> = works.iter().map(|w| column(&w.indices)).collect();
    let across = columns.len() as u128;
    for work in works {
        let at = u128::from(column(&work.indices)) % across * work.pieces.len() as u128 / across;
        work.start = usize::try_from(at).unwrap_or(0);
    }
}

/// The bands of `works` (in C order) of a read of `elements` elements: how many works and output
/// elements each holds; one band of all where the chunks do not fall into bands.
fn bands_of(works: &[ChunkWork<'_>], subset: &ArraySubset, elements: usize) -> Vec<(usize, usize)> {
    let shape = subset.shape();
    let whole = || vec![(works.len(), elements)];
    let Some(dim) = shape.iter().position(|&extent| extent > 1) else {
        return whole();
    };
    let step: u64 = shape[dim + 1..].iter().product();
    let range = |work: &ChunkWork<'_>| (work.overlap.start()[dim], work.overlap.shape()[dim]);
    let (mut bands, mut at, mut left) = (Vec::new(), subset.start()[dim], works);
    while let Some(first) = left.first() {
        let (start, extent) = range(first);
        let same = |work: &&ChunkWork<'_>| range(work) == (start, extent);
        let count = left.iter().take_while(same).count();
        let Some(band) = usize::try_from(extent * step).ok().filter(|_| start == at) else {
            return whole();
        };
        bands.push((count, band));
        at = start + extent;
        left = &left[count..];
    }
    if at != subset.start()[dim] + shape[dim] {
        return whole();
    }
    bands
}

/// Gives each of `works` its pieces of `output` (the output elements from `first` on: exactly the
/// runs of `works`). Each chunk's runs come in its C order, also their order in the output, so the
/// output is cut by merging them: the run starting where the last ended belongs to the next chunk
/// along the row, or to the one that started the row, else it is looked for among all.
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
    let last_extent = subset.shape().last().copied();
    let row = last_extent.map_or(1, |n| usize::try_from(n).unwrap_or(usize::MAX));
    let count = works.len();
    let mut next = vec![0usize; count];
    let starts_at = |index: usize, next: &[usize], at: usize| {
        let run = chunk_runs[index].get(next[index]);
        run.is_some_and(|&(_, out, _)| out == at)
    };
    let (mut last, mut row_first, mut rest, mut at) = (count.saturating_sub(1), 0, output, first);
    while !rest.is_empty() {
        let after = if last + 1 == count { 0 } else { last + 1 };
        let index = [after, row_first]
            .into_iter()
            .find(|&index| starts_at(index, &next, at))
            .or_else(|| (0..count).find(|&index| starts_at(index, &next, at)))
            .expect("the runs of the chunks partition the output");
        let (input, _, len) = chunk_runs[index][next[index]];
        next[index] += 1;
        if at.is_multiple_of(row.max(1)) {
            row_first = index;
        }
        let (piece, tail) = std::mem::take(&mut rest).split_at(len * out_size);
        works[index].pieces.push((input, piece));
        (rest, at, last) = (tail, at + len, index);
    }
    let covered = next.iter().zip(&chunk_runs).all(|(&n, r)| n == r.len());
    assert!(covered, "the runs of the chunks cover the output");
}

/// A run: its first element in the chunk, its first element in the output, its length.
type Run = (usize, usize, usize);

/// The runs of `region` (start and shape) within `chunk` and `output` (each start and shape), the
/// innermost dimensions the region covers whole in both merged into one run.
///
/// # Panics
/// If the region does not lie within both.
fn runs(region: (&[u64], &[u64]), chunk: (&[u64], &[u64]), output: (&[u64], &[u64])) -> Vec<Run> {
    let (start, shape) = region;
    let dims = start.len();
    let to_usize = |x: u64| usize::try_from(x).expect("the element count fits a usize");
    let strides = |shape: &[u64]| {
        let mut strides = vec![1usize; shape.len()];
        for i in (0..shape.len().saturating_sub(1)).rev() {
            strides[i] = strides[i + 1] * to_usize(shape[i + 1]);
        }
        strides
    };
    let (chunk_strides, output_strides) = (strides(chunk.1), strides(output.1));
    if dims == 0 {
        return vec![(0, 0, 1)];
    }
    // Merge the innermost dimensions the region covers whole in the chunk and the output.
    let mut inner = dims - 1;
    let mut len = to_usize(shape[inner]);
    while inner > 0 && shape[inner] == chunk.1[inner] && shape[inner] == output.1[inner] {
        inner -= 1;
        len *= to_usize(shape[inner]);
    }
    let outer = &shape[..inner];
    let count: usize = outer.iter().map(|&d| to_usize(d)).product();
    let mut runs = Vec::with_capacity(count);
    let mut index = vec![0u64; inner];
    for _ in 0..count {
        let (mut in_offset, mut out_offset) = (0, 0);
        for i in 0..dims {
            let position = start[i] + if i < inner { index[i] } else { 0 };
            in_offset += to_usize(position - chunk.0[i]) * chunk_strides[i];
            out_offset += to_usize(position - output.0[i]) * output_strides[i];
        }
        runs.push((in_offset, out_offset, len));
        // The next outer index, last dimension fastest.
        for i in (0..inner).rev() {
            index[i] += 1;
            if index[i] < outer[i] {
                break;
            }
            index[i] = 0;
        }
    }
    runs
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use zarrs::array::{ArrayBuilder, data_type};
    use zarrs::storage::store::MemoryStore;

    use super::*;

    #[test]
    fn runs_of_a_region_map_to_their_chunk_and_output_positions() {
        // A 2 x 3 region at (1, 2) of a 4 x 4 chunk at (0, 0), in an output of 3 x 5 at (1, 1).
        let got = runs((&[1, 2], &[2, 3]), (&[0, 0], &[4, 4]), (&[1, 1], &[3, 5]));
        assert_eq!(got, [(6, 1, 3), (10, 6, 3)]);
        // Whole rows of the chunk and the output merge into one run.
        let got = runs((&[4, 0], &[2, 4]), (&[4, 0], &[4, 4]), (&[2, 0], &[6, 4]));
        assert_eq!(got, [(0, 8, 8)]);
        assert_eq!(runs((&[], &[]), (&[], &[]), (&[], &[])), [(0, 0, 1)]);
    }

    /// The works of a read of `ranges` of a float64 array of `shape` on `grid`, in `output`.
    fn works<'o>(
        shape: &[u64],
        grid: &str,
        ranges: &[std::ops::Range<u64>],
        output: &'o mut Vec<u8>,
        threads: usize,
    ) -> (ArraySubset, Vec<ChunkWork<'o>>) {
        crate::engine::testing::rayon_without_workers();
        let array = ArrayBuilder::new(shape.to_vec(), grid, data_type::float64(), 0.0)
            .build(Arc::new(MemoryStore::new()), "/")
            .unwrap();
        let subset = ArraySubset::new_with_ranges(ranges);
        *output = vec![0u8; usize::try_from(subset.num_elements()).unwrap() * 8];
        let grid = &***array.chunk_grid();
        let works = split(grid, &subset, Output::Init(output), 8, threads).unwrap();
        (subset, works)
    }

    #[test]
    fn chunks_side_by_side_start_at_runs_of_their_own() {
        let starts = |shape: &[u64], chunk: &str, ranges: &[std::ops::Range<u64>]| {
            let grid =
                format!(r#"{{"name": "regular", "configuration": {{"chunk_shape": {chunk}}}}}"#);
            let mut output = Vec::new();
            let (_, mut works) = works(shape, &grid, ranges, &mut output, 1);
            stagger(&mut works, |indices| *indices.last().unwrap());
            works.iter().map(|work| work.start).collect::<Vec<_>>()
        };
        // 4 chunks of 8 rows across: starts at rows 0, 2, 4 and 6, in each band.
        assert_eq!(
            starts(&[16, 32], "[8, 8]", &[0..16, 0..32]),
            [0, 2, 4, 6, 0, 2, 4, 6]
        );
        assert_eq!(starts(&[16, 32], "[8, 8]", &[3..5, 4..20]), [0, 0, 1]);
        // One chunk across, or a 1-D array: every chunk from its first run.
        assert_eq!(starts(&[16, 8], "[4, 8]", &[0..16, 0..8]), [0; 4]);
        assert_eq!(starts(&[40], "[8]", std::slice::from_ref(&(0..40))), [0; 5]);
    }
}
