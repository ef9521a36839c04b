//! The values of elements of any data type the codecs support, as float64 (exactly, but for
//! integers beyond 2^53): integers read directly, floats through `cast_value` to float64, which
//! holds every value of every float type.

use std::num::NonZeroU64;
use std::sync::Arc;

use zarrs::array::codec::api::{ArrayToArrayCodecTraits, CodecOptions};
use zarrs::array::{ArrayBytes, DataType, FillValue, data_type};
use zarrs_scale_offset_cast::{CastValueCodec, CastValueOutOfRangeMode};

use crate::int_type::IntType;

/// The values of the native-endian elements `bytes` of `data_type`, or `None` for a type the
/// codecs do not support (or an element that is not an encoding of it).
#[expect(
    clippy::cast_precision_loss,
    reason = "integers beyond 2^53 are rounded"
)]
pub(crate) fn to_f64(data_type: &DataType, bytes: &[u8]) -> Option<Vec<f64>> {
    let name = data_type.name_v3()?;
    if let Some(t) = IntType::from_name(&name) {
        return Some(t.values(bytes).into_iter().map(|v| v as f64).collect());
    }
    let size = data_type.fixed_size()?;
    let count = NonZeroU64::new(u64::try_from(bytes.len() / size).ok()?)?;
    let cast: Arc<dyn ArrayToArrayCodecTraits> = Arc::new(
        CastValueCodec::builder(data_type::float64())
            .out_of_range(CastValueOutOfRangeMode::Clamp)
            .build()
            .ok()?,
    );
    let encoded = cast
        .encode(
            ArrayBytes::new_flen(bytes.to_vec()),
            &[count],
            data_type,
            &FillValue::new(vec![0; size]),
            &CodecOptions::default(),
        )
        .ok()?
        .into_fixed()
        .ok()?;
    Some(
        encoded
            .chunks_exact(8)
            .map(|x| f64::from_ne_bytes(x.try_into().expect("8 bytes")))
            .collect(),
    )
}
