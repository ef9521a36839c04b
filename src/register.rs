//! Explicit registration of the codecs with zarrs.

use std::sync::OnceLock;

use zarrs::array::codec::api::{
    CodecRuntimePluginV3, CodecRuntimeRegistryHandleV3, CodecTraitsV3, register_codec_v3,
};
use zarrs::plugin::ExtensionAliasesV3;

use crate::ScaleOffsetCodec;

/// Registers the codecs with zarrs at run time, once, and returns their names: `scale_offset`,
/// and `cast_value` with the `cast_value` feature (on by default).
///
/// Naming the crate anywhere in a program is enough for zarrs to find the codecs: they register
/// themselves through `inventory`, whose registrations the linker keeps only for crates the
/// program names. Calling `register` names the crate and registers the codecs at run time too,
/// which zarrs consults before any `inventory` registration, so they are found whatever else is
/// linked (a codec of the same name from another crate, or a future zarrs, would otherwise be
/// picked in an unspecified order). Among run-time registrations the first one wins: call it early.
/// Calling it again does nothing.
///
/// ```rust
/// assert_eq!(zarrs_scale_offset_cast::register(), ["scale_offset", "cast_value"]);
/// ```
pub fn register() -> &'static [&'static str] {
    static HANDLES: OnceLock<Vec<CodecRuntimeRegistryHandleV3>> = OnceLock::new();
    HANDLES.get_or_init(|| {
        #[cfg_attr(not(feature = "cast_value"), expect(unused_mut, reason = "one codec"))]
        let mut handles = vec![register_codec_v3(CodecRuntimePluginV3::new(
            ScaleOffsetCodec::matches_name_v3,
            <ScaleOffsetCodec as CodecTraitsV3>::create,
        ))];
        #[cfg(feature = "cast_value")]
        handles.push(register_codec_v3(CodecRuntimePluginV3::new(
            crate::CastValueCodec::matches_name_v3,
            <crate::CastValueCodec as CodecTraitsV3>::create,
        )));
        handles
    });
    if cfg!(feature = "cast_value") {
        &[crate::scale_offset::NAME, crate::cast_value::NAME]
    } else {
        &[crate::scale_offset::NAME]
    }
}
