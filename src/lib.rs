//! The `scale_offset` and `cast_value` Zarr V3 array-to-array codecs for [`zarrs`].
//!
//! Together they store floating-point data as small integers (float64 reflectances as uint16,
//! say), with NaN and other special values mapped explicitly; they supersede the legacy
//! `numcodecs.fixedscaleoffset` codec. zarr-python 3.2+ writes such arrays.
//!
//! | Codec | Specification | Data types |
//! |---|---|---|
//! | [`scale_offset`] | [zarr-extensions/codecs/scale_offset](https://github.com/zarr-developers/zarr-extensions/tree/main/codecs/scale_offset) | every integer and float type of zarrs |
//! | [`cast_value`] | [zarr-extensions/codecs/cast_value](https://github.com/zarr-developers/zarr-extensions/tree/main/codecs/cast_value) | every integer and float type of zarrs, on both sides |
//!
//! ## Usage
//! Add the crate and name it once in the application, so the linker keeps its codec
//! registrations; `Array::open` then finds both codecs by name:
//! ```rust
//! use zarrs_scale_offset_cast as _;
//! # use std::sync::Arc;
//! # use zarrs::array::{Array, ArrayBuilder, ArrayMetadata, data_type};
//! # use zarrs::storage::store::MemoryStore;
//! # let store = Arc::new(MemoryStore::new());
//! # let metadata: ArrayMetadata = serde_json::from_str(r#"{
//! #   "zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "float64",
//! #   "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
//! #   "chunk_key_encoding": {"name": "default"}, "fill_value": "NaN",
//! #   "codecs": [
//! #     {"name": "scale_offset", "configuration": {"offset": -10, "scale": 0.1}},
//! #     {"name": "cast_value", "configuration": {"data_type": "uint8", "rounding": "nearest-even",
//! #       "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}},
//! #     {"name": "bytes"}
//! #   ]
//! # }"#)?;
//! # Array::new_with_metadata(store.clone(), "/a", metadata)?.store_metadata()?;
//! let array = Array::open(store, "/a")?;
//! zarrs_scale_offset_cast::validate_array(&array)?; // optional: every check up front
//! array.store_array_subset(&[0..4], vec![0.0, 1270.0, f64::NAN, 2540.0])?;
//! let values: Vec<f64> = array.retrieve_array_subset(&[0..4])?;
//! assert_eq!(values[1], 1270.0);
//! assert!(values[2].is_nan());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! zarrs shows an array-to-array codec its data type only when chunks are encoded or decoded, so
//! configuration errors that depend on the data type (an `offset` that is not a value of it, an
//! unsupported data type, a fill value that cannot be cast) surface at the first read or write,
//! before any chunk is touched. [`validate_array`] runs all of them right after `Array::open`.
//!
//! ## Fill values
//! zarrs returns the fill value for chunks never written without running any codec. So that an
//! element reads the same whether or not its chunk was written, a write fails for a chunk holding
//! an element bit-equal to a fill value that the codec chain does not return bit for bit (any NaN
//! counts as the same NaN); the error suggests a fill value that does come back. `cast_value`
//! also requires the fill value to survive its own round trip, as the specification says. Reads
//! take any fill value, so that arrays other implementations wrote with one that does not come
//! back (zarr-python writes them) stay readable, element for element as they read them.
//!
//! ## Beyond the codecs
//! - [`FusedReader`]: the fast path for large reads.
//! - The crate `zarrs_scale_offset_cast_tools` plans quantisations, migrates
//!   `numcodecs.fixedscaleoffset` and inspects chains (library and the `zarrs-scale-offset`
//!   command).
//!
//! ## Licence
//! `zarrs_scale_offset_cast` is licensed under either of the Apache License, Version 2.0, or the
//! MIT license, at your option.

pub mod cast_value;
mod chain;
mod element;
mod engine;
mod error;
mod numeric;
mod parallel;
mod plugin;
mod read;
mod register;
pub mod scale_offset;
mod validate;

pub use cast_value::{
    CastValueCodec, CastValueCodecBuilder, CastValueCodecConfiguration, CastValueError,
    CastValueOutOfRangeMode, CastValueRoundingMode,
};
pub use error::{Direction, ElementErrorKind, Error};
pub use read::{Fallback, FromFusedRead, FusedReader, ReadReport, Unfused};
pub use register::register;
pub use scale_offset::{ScaleOffsetCodec, ScaleOffsetCodecConfiguration, ScaleOffsetError};
pub use validate::{CheckedArray, validate_array};
