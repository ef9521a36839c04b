//! The zarrs trait pieces both codecs share, and the checks of the inputs every public entry point
//! of both codecs receives.
//!
//! Other crates call the codec traits directly, with any shape, bytes and fill value: the element
//! count is computed with checked arithmetic, the bytes must hold exactly that many elements, and
//! the fill value must be one element of the data type.

use std::num::NonZeroU64;

use crate::error::input::InputError;

/// The number of elements of `shape`.
///
/// # Errors
/// Returns [`InputError::ShapeOverflow`] if it does not fit a `usize`.
pub(crate) fn element_count(shape: &[NonZeroU64]) -> Result<usize, InputError> {
    shape
        .iter()
        .try_fold(1usize, |count, &d| {
            usize::try_from(d.get())
                .ok()
                .and_then(|d| count.checked_mul(d))
        })
        .ok_or_else(|| InputError::ShapeOverflow(shape.iter().map(|d| d.get()).collect()))
}

/// Checks that `len` bytes hold exactly the elements of `shape`, of `size` bytes each.
///
/// # Errors
/// Returns an [`InputError`] otherwise.
pub(crate) fn check_length(
    len: usize,
    shape: &[NonZeroU64],
    size: usize,
) -> Result<(), InputError> {
    let elements = element_count(shape)?;
    let expected = elements
        .checked_mul(size)
        .ok_or_else(|| InputError::ShapeOverflow(shape.iter().map(|d| d.get()).collect()))?;
    if len == expected {
        Ok(())
    } else {
        Err(InputError::Length {
            actual: len,
            expected,
            elements,
            size,
        })
    }
}

/// Checks that a fill value of `len` bytes is one element of `size` bytes.
///
/// # Errors
/// Returns [`InputError::FillValueSize`] otherwise.
pub(crate) fn check_fill_size(len: usize, size: usize) -> Result<(), InputError> {
    if len == size {
        Ok(())
    } else {
        Err(InputError::FillValueSize {
            actual: len,
            expected: size,
        })
    }
}

/// The zarrs `CodecTraits` and `ArrayCodecTraits` both codecs share: the configuration as given
/// (the codec's `configuration`, version 1 of `$configuration`),
/// partial decoding and encoding (element-wise codecs decode and encode any subset), and a
/// recommended concurrency of one once the data type is known to be supported (the codec's `bound`
/// in scope).
///
/// One, as every element-wise codec of zarrs recommends: zarrs raises a chain's inner concurrency
/// up to its recommended maximum before it decodes more chunks at once, and only the kernels would
/// use inner threads (the store read, the bytes codec and the copy into the output of each chunk
/// run on one), so a higher maximum left threads idle on reads of many chunks. A read of one chunk
/// still splits the kernels over the threads that `CodecOptions` gives them.
macro_rules! impl_codec_traits {
    ($codec:ty, $configuration:ident) => {
        impl zarrs::array::codec::api::CodecTraits for $codec {
            fn as_any(&self) -> &dyn std::any::Any {
                self
            }

            fn configuration(
                &self,
                _version: zarrs::plugin::ZarrVersion,
                _options: &zarrs::array::codec::api::CodecMetadataOptions,
            ) -> Option<zarrs::metadata::Configuration> {
                Some($configuration::V1(self.configuration.clone()).into())
            }

            fn partial_decoder_capability(
                &self,
            ) -> zarrs::array::codec::api::PartialDecoderCapability {
                zarrs::array::codec::api::PartialDecoderCapability {
                    partial_read: true,
                    partial_decode: true,
                }
            }

            fn partial_encoder_capability(
                &self,
            ) -> zarrs::array::codec::api::PartialEncoderCapability {
                zarrs::array::codec::api::PartialEncoderCapability {
                    partial_encode: true,
                }
            }
        }

        impl zarrs::array::codec::api::ArrayCodecTraits for $codec {
            fn recommended_concurrency(
                &self,
                _shape: &[std::num::NonZeroU64],
                data_type: &zarrs::array::DataType,
            ) -> Result<
                zarrs::array::codec::api::RecommendedConcurrency,
                zarrs::array::codec::api::CodecError,
            > {
                self.bound(data_type)?;
                Ok(zarrs::array::codec::api::RecommendedConcurrency::new_maximum(1))
            }
        }
    };
}
pub(crate) use impl_codec_traits;

/// `into_dyn` of `ArrayToArrayCodecTraits`, and `encode` and `decode`, forwarded to the codec's
/// `convert` with the direction.
macro_rules! forward_encode_decode {
    () => {
        fn into_dyn(
            self: std::sync::Arc<Self>,
        ) -> std::sync::Arc<dyn zarrs::array::codec::api::ArrayToArrayCodecTraits> {
            self
        }
        $crate::plugin::codec_traits::forward_encode_decode!(@one encode Encode);
        $crate::plugin::codec_traits::forward_encode_decode!(@one decode Decode);
    };
    (@one $method:ident $direction:ident) => {
        fn $method<'a>(
            &self,
            bytes: zarrs::array::ArrayBytes<'a>,
            shape: &[std::num::NonZeroU64],
            data_type: &zarrs::array::DataType,
            fill_value: &zarrs::array::FillValue,
            options: &zarrs::array::codec::api::CodecOptions,
        ) -> Result<zarrs::array::ArrayBytes<'a>, zarrs::array::codec::api::CodecError> {
            let direction = $crate::Direction::$direction;
            self.convert(direction, bytes, shape, data_type, fill_value, options)
        }
    };
}
pub(crate) use forward_encode_decode;

/// `partial_decoder`, `partial_encoder` and (with the `async` feature) `async_partial_decoder` of
/// `ArrayToArrayCodecTraits`: see `plugin::partial_decoder` and `plugin::partial_encoder`.
/// Asynchronous partial writes take zarrs' default, which encodes the whole chunk again.
///
/// `async_partial_decoder` is written as `async_trait` expands it (the trait's `async fn` with
/// its lifetimes, returning a boxed future): `async_trait` does not see into macros, and the
/// decoder is made at once, so the future is a ready value.
macro_rules! partial_coders {
    () => {
        fn partial_decoder(
            self: std::sync::Arc<Self>,
            input_handle: std::sync::Arc<dyn zarrs::array::codec::api::ArrayPartialDecoderTraits>,
            _shape: &[std::num::NonZeroU64],
            data_type: &zarrs::array::DataType,
            fill_value: &zarrs::array::FillValue,
            _options: &zarrs::array::codec::api::CodecOptions,
        ) -> Result<
            std::sync::Arc<dyn zarrs::array::codec::api::ArrayPartialDecoderTraits>,
            zarrs::array::codec::api::CodecError,
        > {
            Ok($crate::plugin::partial_decoder::partial_decoder(
                self,
                input_handle,
                data_type,
                fill_value,
            ))
        }

        fn partial_encoder(
            self: std::sync::Arc<Self>,
            input_output_handle: std::sync::Arc<
                dyn zarrs::array::codec::api::ArrayPartialEncoderTraits,
            >,
            _shape: &[std::num::NonZeroU64],
            data_type: &zarrs::array::DataType,
            fill_value: &zarrs::array::FillValue,
            _options: &zarrs::array::codec::api::CodecOptions,
        ) -> Result<
            std::sync::Arc<dyn zarrs::array::codec::api::ArrayPartialEncoderTraits>,
            zarrs::array::codec::api::CodecError,
        > {
            Ok($crate::plugin::partial_encoder::partial_encoder(
                self,
                input_output_handle,
                data_type,
                fill_value,
            ))
        }

        #[cfg(feature = "async")]
        fn async_partial_decoder<'life0, 'life1, 'life2, 'life3, 'async_trait>(
            self: std::sync::Arc<Self>,
            input_handle: std::sync::Arc<
                dyn zarrs::array::codec::api::AsyncArrayPartialDecoderTraits,
            >,
            _shape: &'life0 [std::num::NonZeroU64],
            data_type: &'life1 zarrs::array::DataType,
            fill_value: &'life2 zarrs::array::FillValue,
            _options: &'life3 zarrs::array::codec::api::CodecOptions,
        ) -> std::pin::Pin<
            Box<
                dyn std::future::Future<
                        Output = Result<
                            std::sync::Arc<
                                dyn zarrs::array::codec::api::AsyncArrayPartialDecoderTraits,
                            >,
                            zarrs::array::codec::api::CodecError,
                        >,
                    > + Send
                    + 'async_trait,
            >,
        >
        where
            'life0: 'async_trait,
            'life1: 'async_trait,
            'life2: 'async_trait,
            'life3: 'async_trait,
            Self: 'async_trait,
        {
            Box::pin(std::future::ready(Ok(
                $crate::plugin::partial_decoder::async_partial_decoder(
                    self,
                    input_handle,
                    data_type,
                    fill_value,
                ),
            )))
        }
    };
}
pub(crate) use partial_coders;

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(dims: &[u64]) -> Vec<NonZeroU64> {
        dims.iter().map(|&d| NonZeroU64::new(d).unwrap()).collect()
    }

    #[test]
    fn element_counts_overflow_into_an_error() {
        assert_eq!(element_count(&shape(&[3, 4])), Ok(12));
        assert!(matches!(
            element_count(&shape(&[u64::MAX, 2])),
            Err(InputError::ShapeOverflow(_))
        ));
        assert!(check_length(usize::MAX, &shape(&[u64::MAX / 4]), 8).is_err());
    }

    #[test]
    fn lengths_must_match_the_shape_exactly() {
        assert_eq!(check_length(24, &shape(&[3, 4]), 2), Ok(()));
        assert_eq!(
            check_length(23, &shape(&[3, 4]), 2),
            Err(InputError::Length {
                actual: 23,
                expected: 24,
                elements: 12,
                size: 2
            })
        );
        assert!(check_fill_size(4, 8).is_err());
    }
}
