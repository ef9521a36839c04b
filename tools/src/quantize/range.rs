//! The range of the data to quantise: its finite extent and which special values it holds.

use half::{bf16, f16};
use rayon::prelude::*;
use zarrs::array::{Array, ArrayBytes, ArrayError, ArraySubset, DataType};
use zarrs::storage::ReadableStorageTraits;

/// What the planner needs to know of the data: the smallest and largest finite value, and
/// whether NaN and infinities occur.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DataRange {
    /// The smallest and the largest finite value, if there is one.
    pub finite: Option<(f64, f64)>,
    /// Whether any value is NaN.
    pub nan: bool,
    /// Whether any value is +Infinity.
    pub positive_infinity: bool,
    /// Whether any value is -Infinity.
    pub negative_infinity: bool,
}

impl DataRange {
    /// The range of the finite values `min..=max` (no special values).
    ///
    /// # Panics
    /// Panics if `min` or `max` is not finite, or `min > max`.
    #[must_use]
    pub fn new(min: f64, max: f64) -> Self {
        assert!(
            min.is_finite() && max.is_finite() && min <= max,
            "a finite range"
        );
        Self {
            finite: Some((min, max)),
            ..Self::default()
        }
    }

    /// The range of `values`.
    #[must_use]
    pub fn of(values: impl IntoIterator<Item = f64>) -> Self {
        let mut range = Self::default();
        for x in values {
            range.add(x);
        }
        range
    }

    /// Adds the value `x`.
    pub fn add(&mut self, x: f64) {
        if x.is_nan() {
            self.nan = true;
        } else if x == f64::INFINITY {
            self.positive_infinity = true;
        } else if x == f64::NEG_INFINITY {
            self.negative_infinity = true;
        } else {
            self.finite = Some(match self.finite {
                Some((min, max)) => (min.min(x), max.max(x)),
                None => (x, x),
            });
        }
    }

    /// The range of both.
    #[must_use]
    pub fn union(mut self, other: Self) -> Self {
        if let Some((min, max)) = other.finite {
            self.add(min);
            self.add(max);
        }
        self.nan |= other.nan;
        self.positive_infinity |= other.positive_infinity;
        self.negative_infinity |= other.negative_infinity;
        self
    }

    /// The range of every element of `array` (a float array), read chunk by chunk in parallel;
    /// `progress` is called after each chunk with the chunks read so far and the chunks in all.
    ///
    /// # Errors
    /// Returns an [`ArrayError`] if a chunk cannot be read or the data type is not a float type.
    pub fn scan<TStorage: ?Sized + ReadableStorageTraits + 'static>(
        array: &Array<TStorage>,
        progress: &(dyn Fn(u64, u64) + Sync),
    ) -> Result<Self, ArrayError> {
        let chunks = chunk_indices(array);
        let total = chunks.len() as u64;
        let done = std::sync::atomic::AtomicU64::new(0);
        chunks
            .par_iter()
            .map(|indices| {
                let subset = array.chunk_subset_bounded(indices)?;
                let bytes: ArrayBytes<'static> = array.retrieve_array_subset(&subset)?;
                let values = to_f64(array.data_type(), &bytes)?;
                let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                progress(n, total);
                Ok(Self::of(values))
            })
            .try_reduce(Self::default, |a, b| Ok(a.union(b)))
    }
}

/// The indices of every chunk of `array`.
pub(crate) fn chunk_indices<TStorage: ?Sized>(array: &Array<TStorage>) -> Vec<Vec<u64>> {
    ArraySubset::new_with_shape(array.chunk_grid_shape().to_vec())
        .indices()
        .into_iter()
        .map(|indices| indices.to_vec())
        .collect()
}

/// The elements of `bytes` (of the float type `data_type`) as `f64`s.
pub(crate) fn to_f64(data_type: &DataType, bytes: &ArrayBytes<'_>) -> Result<Vec<f64>, ArrayError> {
    let ArrayBytes::Fixed(bytes) = bytes else {
        return Err(ArrayError::Other(
            "expected fixed-length elements of a float type".into(),
        ));
    };
    let name = data_type
        .name_v3()
        .map(|n| n.to_string())
        .unwrap_or_default();
    Ok(match name.as_str() {
        "float64" => bytes
            .chunks_exact(8)
            .map(|b| f64::from_ne_bytes(b.try_into().expect("8 bytes")))
            .collect(),
        "float32" => bytes
            .chunks_exact(4)
            .map(|b| f64::from(f32::from_ne_bytes(b.try_into().expect("4 bytes"))))
            .collect(),
        "float16" => bytes
            .chunks_exact(2)
            .map(|b| f64::from(f16::from_ne_bytes(b.try_into().expect("2 bytes"))))
            .collect(),
        "bfloat16" => bytes
            .chunks_exact(2)
            .map(|b| f64::from(bf16::from_ne_bytes(b.try_into().expect("2 bytes"))))
            .collect(),
        _ => {
            return Err(ArrayError::Other(format!(
                "data type {name} is not a float type (float16, bfloat16, float32, float64)"
            )));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::DataRange;

    #[test]
    fn the_range_of_values_holds_their_extent_and_special_values() {
        let range = DataRange::of([3.0, f64::NAN, -1.5, f64::INFINITY, 2.0]);
        assert_eq!(range.finite, Some((-1.5, 3.0)));
        assert!(range.nan && range.positive_infinity && !range.negative_infinity);
        let both = range.union(DataRange::of([f64::NEG_INFINITY, 7.0]));
        assert_eq!(both.finite, Some((-1.5, 7.0)));
        assert!(both.negative_infinity);
        assert_eq!(DataRange::of([f64::NAN]).finite, None);
    }
}
