//! The codecs register by name: zarrs finds both (`cast_value` with the feature of that name). An
//! application that names the crate with `use zarrs_scale_offset_cast as _;` alone gets them too
//! (`examples/feature-app`, which `.ci/run` runs with and without its feature).

use zarrs::array::codec::api::Codec;
use zarrs::metadata::v3::MetadataV3;

#[test]
fn both_codecs_are_found_by_name() {
    for json in [
        r#"{"name": "scale_offset", "configuration": {"offset": 1, "scale": 2}}"#,
        r#""scale_offset""#,
    ] {
        let metadata: MetadataV3 = serde_json::from_str(json).unwrap();
        let codec = Codec::from_metadata(&metadata).unwrap_or_else(|e| panic!("{json}: {e}"));
        assert!(matches!(codec, Codec::ArrayToArray(_)), "{json}");
    }
    // With the `cast_value` feature (on by default) only: off, zarrs' own would be used.
    let metadata: MetadataV3 =
        serde_json::from_str(r#"{"name": "cast_value", "configuration": {"data_type": "uint8"}}"#)
            .unwrap();
    let found = Codec::from_metadata(&metadata);
    assert_eq!(found.is_ok(), cfg!(feature = "cast_value"), "{found:?}");
}
