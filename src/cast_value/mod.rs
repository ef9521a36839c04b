//! The `cast_value` array-to-array codec.
//!
//! Converts the value of each element to another data type (`data_type`), following the ordered
//! procedure of the specification: an explicit `scalar_map` entry first, then the exact value if
//! the target holds it, else the value rounded by `rounding` and, if outside the target range,
//! handled by `out_of_range` (`"clamp"`, `"wrap"`, or an error). NaN propagates between float
//! types; NaN or an infinity into a type without it is an error unless `scalar_map` maps it. The
//! fill value is cast the same way and must survive the round trip.
//!
//! Supported data types, on both sides: `int2`, `int4`, `int8`, `int16`, `int32`, `int64`,
//! `uint2`, `uint4`, `uint8`, `uint16`, `uint32`, `uint64`, `float4_e2m1fn`, `float6_e2m3fn`,
//! `float6_e3m2fn`, `float8_e3m4`, `float8_e4m3`, `float8_e4m3b11fnuz`, `float8_e4m3fnuz`,
//! `float8_e5m2`, `float8_e5m2fnuz`, `float8_e8m0fnu`, `bfloat16`, `float16`, `float32` and
//! `float64`.
//!
//! | `rounding` | a value between two of the target goes to |
//! |---|---|
//! | `nearest-even` (default) | the nearer; ties to the one with an even last digit |
//! | `nearest-away` | the nearer; ties away from zero |
//! | `towards-zero` | the one nearer zero |
//! | `towards-positive` | the larger |
//! | `towards-negative` | the smaller |
//!
//! | `out_of_range` | a rounded value beyond the target's range |
//! |---|---|
//! | absent (default) | is an error naming the element |
//! | `clamp` | becomes the target's smallest or largest value (for float targets, ±Infinity where the target has infinities) |
//! | `wrap` | is reduced modulo 2^bits into an integer target (integer targets only) |
//!
//! ### Specification
//! - <https://github.com/zarr-developers/zarr-extensions/tree/main/codecs/cast_value>
//!
//! ### Codec `name` (Zarr V3)
//! - `cast_value`
//!
//! ### Codec `configuration` example - [`CastValueCodecConfiguration`]
//! ```rust
//! # let JSON = r#"
//! {
//!     "data_type": "uint8",
//!     "rounding": "nearest-even",
//!     "out_of_range": "clamp",
//!     "scalar_map": {
//!         "encode": [["NaN", 0]],
//!         "decode": [[0, "NaN"]]
//!     }
//! }
//! # "#;
//! # use zarrs_scale_offset_cast::cast_value::CastValueCodecConfiguration;
//! # let configuration: CastValueCodecConfiguration = serde_json::from_str(JSON).unwrap();
//! ```

mod builder;
mod codec;
mod config;
mod fill;
pub(crate) mod kernel;
mod message;
#[cfg(test)]
mod tests;
mod zarrs_traits;

use std::sync::Arc;

pub use crate::error::CastValueError;
pub use builder::CastValueCodecBuilder;
pub use codec::CastValueCodec;
use zarrs::array::codec::api::{Codec, CodecTraitsV3};
use zarrs::metadata::v3::MetadataV3;
use zarrs::plugin::PluginCreateError;
pub use zarrs_metadata_ext::codec::cast_value::{
    CastValueCodecConfiguration, CastValueCodecConfigurationV1, CastValueOutOfRangeMode,
    CastValueRoundingMode, CastValueScalarMap,
};

/// The codec name.
pub const NAME: &str = "cast_value";

zarrs::plugin::impl_extension_aliases!(CastValueCodec, v3: "cast_value");

#[cfg(feature = "cast_value")]
inventory::submit! {
    zarrs::array::codec::api::CodecPluginV3::new::<CastValueCodec>()
}

impl CodecTraitsV3 for CastValueCodec {
    fn create(metadata: &MetadataV3) -> Result<Codec, PluginCreateError> {
        let configuration = metadata
            .configuration()
            .cloned()
            .ok_or_else(|| config::invalid("the configuration must name the target data_type"))?;
        Ok(Codec::ArrayToArray(Arc::new(Self::from_metadata(
            &configuration,
        )?)))
    }
}
