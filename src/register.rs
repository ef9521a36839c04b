//! Explicit registration of both codecs with zarrs.

use std::sync::OnceLock;

use zarrs::array::codec::api::{
    CodecRuntimePluginV3, CodecRuntimeRegistryHandleV3, CodecTraitsV3, register_codec_v3,
};

use zarrs::plugin::ExtensionAliasesV3;

use crate::{CastValueCodec, ScaleOffsetCodec, cast_value, scale_offset};

/// Registers both codecs with zarrs at run time, once, and returns their names.
///
/// Naming the crate anywhere in a program is enough for zarrs to find both codecs: they register
/// themselves through `inventory`, whose registrations the linker keeps only for crates the
/// program names. Calling `register` names the crate and registers both codecs at run time too,
/// which zarrs consults before anything else, so they are found whatever else is linked (a codec
/// of the same name from another crate, or a future zarrs, would otherwise be picked in an
/// unspecified order). Calling it again does nothing.
///
/// ```rust
/// assert_eq!(zarrs_scale_offset_cast::register(), ["scale_offset", "cast_value"]);
/// ```
pub fn register() -> [&'static str; 2] {
    static HANDLES: OnceLock<[CodecRuntimeRegistryHandleV3; 2]> = OnceLock::new();
    HANDLES.get_or_init(|| {
        [
            register_codec_v3(CodecRuntimePluginV3::new(
                ScaleOffsetCodec::matches_name_v3,
                <ScaleOffsetCodec as CodecTraitsV3>::create,
            )),
            register_codec_v3(CodecRuntimePluginV3::new(
                CastValueCodec::matches_name_v3,
                <CastValueCodec as CodecTraitsV3>::create,
            )),
        ]
    });
    [scale_offset::NAME, cast_value::NAME]
}
