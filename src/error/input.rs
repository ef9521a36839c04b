//! Why the inputs of a codec call do not match each other (other crates call the codec traits
//! directly, with any shape, bytes and fill value).

/// Why an input of a codec call is not what the call describes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum InputError {
    /// The element count of the shape overflows.
    #[error("the shape {0:?} has more elements than this platform can address")]
    ShapeOverflow(Vec<u64>),
    /// The bytes do not hold exactly the elements of the shape.
    #[error(
        "the input has {actual} bytes, but {elements} elements of {size} bytes need {expected}"
    )]
    Length {
        /// Bytes given.
        actual: usize,
        /// Bytes needed.
        expected: usize,
        /// Elements of the shape.
        elements: usize,
        /// Bytes per element.
        size: usize,
    },
    /// The fill value is not one element of the data type.
    #[error("the fill value has {actual} bytes, but one element of the data type has {expected}")]
    FillValueSize {
        /// Bytes given.
        actual: usize,
        /// Bytes of one element.
        expected: usize,
    },
}
