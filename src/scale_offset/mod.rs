//! The `scale_offset` array-to-array codec.
//!
//! Encodes each element as `(x - offset) * scale` and decodes it as `(x / scale) + offset`, in the
//! arithmetic of the data type: float32 computes in float32, float16 in float16, integers exactly
//! (int64 and uint64 included). An intermediate or final value that the data type cannot hold is
//! an error naming the element, as is an integer decode that does not divide exactly. `offset`
//! and `scale` are written in the fill-value encoding of the data type (numbers, `"NaN"`,
//! `"Infinity"`, hex strings); a missing one is the identity, and without either the codec does
//! no arithmetic at all. A zero scale is rejected when the array is opened. The fill value is
//! transformed like an element.
//!
//! Usually followed by [`cast_value`](crate::cast_value) to store the result in a narrower type.
//!
//! Supported data types: `int2`, `int4`, `int8`, `int16`, `int32`, `int64`, `uint2`, `uint4`,
//! `uint8`, `uint16`, `uint32`, `uint64`, `float4_e2m1fn`, `float6_e2m3fn`, `float6_e3m2fn`,
//! `float8_e3m4`, `float8_e4m3`, `float8_e4m3b11fnuz`, `float8_e4m3fnuz`, `float8_e5m2`,
//! `float8_e5m2fnuz`, `float8_e8m0fnu`, `bfloat16`, `float16`, `float32` and `float64`.
//!
//! ### Specification
//! - <https://github.com/zarr-developers/zarr-extensions/tree/main/codecs/scale_offset>
//!
//! ### Codec `name` (Zarr V3)
//! - `scale_offset`
//!
//! ### Codec `configuration` example - [`ScaleOffsetCodecConfiguration`]
//! ```rust
//! # let JSON = r#"
//! {
//!     "offset": -10,
//!     "scale": 0.1
//! }
//! # "#;
//! # use zarrs_scale_offset_cast::scale_offset::ScaleOffsetCodecConfiguration;
//! # let configuration: ScaleOffsetCodecConfiguration = serde_json::from_str(JSON).unwrap();
//! ```

mod codec;
mod config;
pub(crate) mod kernel;
mod message;
#[cfg(test)]
mod tests;
mod zarrs_traits;

use std::sync::Arc;

pub use crate::error::ScaleOffsetError;
pub use codec::ScaleOffsetCodec;
pub use config::{ScaleOffsetCodecConfiguration, ScaleOffsetCodecConfigurationV1};
use zarrs::array::codec::api::{Codec, CodecPluginV3, CodecTraitsV3};
use zarrs::metadata::v3::MetadataV3;
use zarrs::plugin::PluginCreateError;

/// The codec name.
pub const NAME: &str = "scale_offset";

zarrs::plugin::impl_extension_aliases!(ScaleOffsetCodec, v3: "scale_offset");

inventory::submit! {
    CodecPluginV3::new::<ScaleOffsetCodec>()
}

impl CodecTraitsV3 for ScaleOffsetCodec {
    fn create(metadata: &MetadataV3) -> Result<Codec, PluginCreateError> {
        let configuration = metadata.configuration().cloned().unwrap_or_default();
        Ok(Codec::ArrayToArray(Arc::new(Self::from_metadata(
            &configuration,
        )?)))
    }
}
