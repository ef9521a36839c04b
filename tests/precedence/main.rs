//! Another implementation registered under the same codec names, as a zarrs with codecs of its
//! own registers them (through `inventory`, in an unspecified order with the crate's): zarrs
//! consults run-time registrations first, and `register()` registers the crate's codecs at run
//! time, so they are the ones zarrs picks.

use zarrs::array::codec::api::{
    Codec, CodecPluginV3, CodecRuntimePluginV3, CodecTraitsV3, register_codec_v3,
    unregister_codec_v3,
};
use zarrs::metadata::v3::MetadataV3;
use zarrs::plugin::{ExtensionAliasesV3, PluginCreateError};
use zarrs_scale_offset_cast::{CastValueCodec, ScaleOffsetCodec};

/// The other implementation: it refuses every configuration, naming itself.
macro_rules! other_codec {
    ($type:ident, $name:literal) => {
        struct $type;

        zarrs::plugin::impl_extension_aliases!($type, v3: $name);

        impl CodecTraitsV3 for $type {
            fn create(_metadata: &MetadataV3) -> Result<Codec, PluginCreateError> {
                Err(PluginCreateError::Other(concat!("the other ", $name).into()))
            }
        }

        inventory::submit! {
            CodecPluginV3::new::<$type>()
        }
    };
}

other_codec!(OtherScaleOffset, "scale_offset");
other_codec!(OtherCastValue, "cast_value");

const SCALE_OFFSET: &str =
    r#"{"name": "scale_offset", "configuration": {"offset": 1, "scale": 2}}"#;
const CAST_VALUE: &str = r#"{"name": "cast_value", "configuration": {"data_type": "uint8"}}"#;

/// What zarrs makes of `json`: the crate's codec (`true`), or the other one (`false`).
fn ours(json: &str) -> bool {
    let metadata: MetadataV3 = serde_json::from_str(json).unwrap();
    match Codec::from_metadata(&metadata) {
        Ok(Codec::ArrayToArray(codec)) => {
            codec.as_any().is::<ScaleOffsetCodec>() || codec.as_any().is::<CastValueCodec>()
        }
        Ok(_) => panic!("{json}: another kind of codec"),
        Err(error) => {
            assert!(error.to_string().contains("the other"), "{json}: {error}");
            false
        }
    }
}

#[test]
fn register_puts_the_crates_codecs_ahead_of_another_registration_of_the_same_name() {
    // A run-time registration wins over any `inventory` registration (the crate's, here).
    let other = register_codec_v3(CodecRuntimePluginV3::new(
        OtherCastValue::matches_name_v3,
        <OtherCastValue as CodecTraitsV3>::create,
    ));
    assert!(!ours(CAST_VALUE));
    assert!(unregister_codec_v3(&other));
    // So `register()` makes the crate's codecs win over the other `inventory` registrations.
    assert_eq!(
        zarrs_scale_offset_cast::register(),
        ["scale_offset", "cast_value"]
    );
    assert!(ours(SCALE_OFFSET) && ours(CAST_VALUE));
    // Among run-time registrations the first wins: registered later, the other one stays behind.
    let later = register_codec_v3(CodecRuntimePluginV3::new(
        OtherScaleOffset::matches_name_v3,
        <OtherScaleOffset as CodecTraitsV3>::create,
    ));
    assert!(ours(SCALE_OFFSET));
    assert!(unregister_codec_v3(&later));
}
