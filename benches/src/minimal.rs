//! A minimal array-to-array codec from float64 to uint16 and back, in one plain pass each way, as
//! a hand-written codec would do the reflectance chain (offset -0.1, scale 10000, NaN as 0): the
//! ceiling of what any array-to-array codec reaches through the zarrs `Array` API.

use std::num::NonZeroU64;
use std::sync::Arc;

use zarrs::array::codec::api::{
    ArrayCodecTraits, ArrayToArrayCodecTraits, CodecError, CodecMetadataOptions, CodecOptions,
    CodecTraits, PartialDecoderCapability, PartialEncoderCapability, RecommendedConcurrency,
};
use zarrs::array::{ArrayBytes, DataType, FillValue, data_type};
use zarrs::metadata::Configuration;
use zarrs::plugin::ZarrVersion;

use crate::with_capacity;

/// The minimal reflectance codec.
#[derive(Clone, Debug, Default)]
pub struct Minimal;

zarrs::plugin::impl_extension_aliases!(Minimal, v3: "bench.minimal_reflectance");

/// Writes `n` elements made by `element` into a new buffer (not zero-filled).
fn fill_new<O: bytemuck::Pod>(n: usize, element: impl Fn(usize) -> O) -> Vec<u8> {
    let mut output = with_capacity(n * size_of::<O>());
    let spare = &mut output.spare_capacity_mut()[..n * size_of::<O>()];
    assert_eq!(spare.as_ptr().align_offset(align_of::<O>()), 0);
    // SAFETY: the spare capacity holds `n` elements of `O` and is aligned for them (checked);
    // `MaybeUninit<O>` may hold any bytes.
    let typed: &mut [std::mem::MaybeUninit<O>] =
        unsafe { std::slice::from_raw_parts_mut(spare.as_mut_ptr().cast(), n) };
    for (i, y) in typed.iter_mut().enumerate() {
        y.write(element(i));
    }
    // SAFETY: every one of the `n` elements was written just above.
    unsafe { output.set_len(n * size_of::<O>()) };
    output
}

/// The decode of one stored element.
#[inline]
pub fn decode(x: u16) -> f64 {
    if x == 0 {
        f64::NAN
    } else {
        f64::from(x) / 10000.0 + -0.1
    }
}

/// The encode of one element.
#[inline]
#[expect(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "clamped"
)]
pub fn encode(x: f64) -> u16 {
    if x.is_nan() {
        0
    } else {
        ((x - -0.1) * 10000.0).round_ties_even().clamp(0.0, 65535.0) as u16
    }
}

impl CodecTraits for Minimal {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn configuration(&self, _: ZarrVersion, _: &CodecMetadataOptions) -> Option<Configuration> {
        Some(Configuration::default())
    }

    fn partial_decoder_capability(&self) -> PartialDecoderCapability {
        PartialDecoderCapability {
            partial_read: true,
            partial_decode: true,
        }
    }

    fn partial_encoder_capability(&self) -> PartialEncoderCapability {
        PartialEncoderCapability {
            partial_encode: false,
        }
    }
}

impl ArrayCodecTraits for Minimal {
    fn recommended_concurrency(
        &self,
        _: &[NonZeroU64],
        _: &DataType,
    ) -> Result<RecommendedConcurrency, CodecError> {
        Ok(RecommendedConcurrency::new_maximum(1))
    }
}

impl ArrayToArrayCodecTraits for Minimal {
    fn into_dyn(self: Arc<Self>) -> Arc<dyn ArrayToArrayCodecTraits> {
        self
    }

    fn encoded_data_type(&self, _: &DataType) -> Result<DataType, CodecError> {
        Ok(data_type::uint16())
    }

    fn encoded_fill_value(&self, _: &DataType, _: &FillValue) -> Result<FillValue, CodecError> {
        Ok(FillValue::from(0u16))
    }

    fn encode<'a>(
        &self,
        bytes: ArrayBytes<'a>,
        _: &[NonZeroU64],
        _: &DataType,
        _: &FillValue,
        _: &CodecOptions,
    ) -> Result<ArrayBytes<'a>, CodecError> {
        let input = bytes.into_fixed()?;
        let value = |i: usize| f64::from_ne_bytes(input[8 * i..8 * i + 8].try_into().unwrap());
        Ok(ArrayBytes::new_flen(fill_new(input.len() / 8, |i| {
            encode(value(i))
        })))
    }

    fn decode<'a>(
        &self,
        bytes: ArrayBytes<'a>,
        _: &[NonZeroU64],
        _: &DataType,
        _: &FillValue,
        _: &CodecOptions,
    ) -> Result<ArrayBytes<'a>, CodecError> {
        let input = bytes.into_fixed()?;
        let stored = |i: usize| u16::from_ne_bytes([input[2 * i], input[2 * i + 1]]);
        Ok(ArrayBytes::new_flen(fill_new(input.len() / 2, |i| {
            decode(stored(i))
        })))
    }
}
