//! The contiguous runs of a region shared by a chunk and an output buffer (both in C order).

/// A run: its first element in the chunk, its first element in the output, its length.
pub(crate) type Run = (usize, usize, usize);

/// The runs of `region` (start and shape, in array coordinates) within a chunk at `chunk_start`
/// of `chunk_shape` and an output holding the subset at `output_start` of `output_shape`.
/// Innermost dimensions the region covers whole in both are merged into one run.
///
/// # Panics
/// Panics if the region does not lie within both (the caller intersects them first).
pub(crate) fn runs(
    region: (&[u64], &[u64]),
    chunk: (&[u64], &[u64]),
    output: (&[u64], &[u64]),
) -> Vec<Run> {
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
    let outer: Vec<u64> = shape[..inner].to_vec();
    let count: usize = outer.iter().map(|&d| to_usize(d)).product();
    let mut runs = Vec::with_capacity(count);
    let mut index = vec![0u64; inner];
    for _ in 0..count {
        let (mut in_offset, mut out_offset) = (0, 0);
        for i in 0..dims {
            let position = if i < inner {
                start[i] + index[i]
            } else {
                start[i]
            };
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
    use super::*;

    #[test]
    fn rows_of_a_region_map_to_their_chunk_and_output_positions() {
        // A 2 x 3 region at (1, 2) of a 4 x 4 chunk at (0, 0), in an output of 3 x 5 at (1, 1).
        let got = runs((&[1, 2], &[2, 3]), (&[0, 0], &[4, 4]), (&[1, 1], &[3, 5]));
        assert_eq!(got, [(6, 1, 3), (10, 6, 3)]);
    }

    #[test]
    fn whole_rows_merge_into_one_run() {
        // The region covers whole rows of a 4 x 4 chunk and of a 4-column output.
        let got = runs((&[4, 0], &[2, 4]), (&[4, 0], &[4, 4]), (&[2, 0], &[6, 4]));
        assert_eq!(got, [(0, 8, 8)]);
        let got = runs(
            (&[0, 0, 0], &[2, 2, 3]),
            (&[0, 0, 0], &[2, 2, 3]),
            (&[0, 0, 0], &[2, 2, 3]),
        );
        assert_eq!(got, [(0, 0, 12)]);
        let got = runs((&[], &[]), (&[], &[]), (&[], &[]));
        assert_eq!(got, [(0, 0, 1)]);
    }
}
