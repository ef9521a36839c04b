//! What a fused read can return.

use zarrs::array::{ArrayError, ElementOwned};

/// A type [`FusedReader::retrieve_array_subset`](super::FusedReader::retrieve_array_subset) can
/// return: `Vec<T>` and, with the `ndarray` feature, `ndarray::Array<T, D>` (the element
/// types of zarrs' typed reads, such as `f64` for a float64 array).
pub trait FromFusedRead: Sized + private::Sealed {
    /// The element type.
    type Element: ElementOwned + bytemuck::Pod;

    /// The result from the read's elements in C order and the subset's shape.
    ///
    /// # Errors
    /// Returns an [`ArrayError`] if the shape does not fit the type.
    fn from_elements(elements: Vec<Self::Element>, shape: &[u64]) -> Result<Self, ArrayError>;
}

mod private {
    pub trait Sealed {}
}

impl<T: ElementOwned + bytemuck::Pod> private::Sealed for Vec<T> {}

impl<T: ElementOwned + bytemuck::Pod> FromFusedRead for Vec<T> {
    type Element = T;

    fn from_elements(elements: Vec<T>, _shape: &[u64]) -> Result<Self, ArrayError> {
        Ok(elements)
    }
}

#[cfg(feature = "ndarray")]
impl<T: ElementOwned + bytemuck::Pod, D: ndarray::Dimension> private::Sealed
    for ndarray::Array<T, D>
{
}

#[cfg(feature = "ndarray")]
impl<T: ElementOwned + bytemuck::Pod, D: ndarray::Dimension> FromFusedRead
    for ndarray::Array<T, D>
{
    type Element = T;

    fn from_elements(elements: Vec<T>, shape: &[u64]) -> Result<Self, ArrayError> {
        let shape = shape
            .iter()
            .map(|&d| usize::try_from(d))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|_| ArrayError::Other(format!("the shape {shape:?} does not fit a usize")))?;
        ndarray::ArrayD::from_shape_vec(shape.clone(), elements)
            .map_err(|error| ArrayError::Other(format!("shape {shape:?}: {error}")))?
            .into_dimensionality::<D>()
            .map_err(|error| {
                ArrayError::Other(format!(
                    "a read of shape {shape:?} as an array of {} dimensions: {error}",
                    D::NDIM.map_or_else(|| "any number of".to_string(), |n| n.to_string())
                ))
            })
    }
}
