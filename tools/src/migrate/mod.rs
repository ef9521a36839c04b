//! Migrating arrays from the legacy `numcodecs.fixedscaleoffset` codec (Zarr V3) or
//! `fixedscaleoffset` filter (Zarr V2) to `scale_offset` and `cast_value`.
//!
//! [`migrate_array`] replaces the legacy codec as the specification's "Conversion to
//! `scale_offset`" says: a `scale_offset` with the same offset and scale, then a `cast_value` to
//! the stored integer type with `nearest-even` rounding and `out_of_range: "wrap"`. numcodecs
//! decodes in float64 and only then rounds to the array's type, so for float32 and float16 arrays
//! the chain starts with a `cast_value` to float64, which does the same. A Zarr V2 array becomes a
//! Zarr V3 array with the `v2` chunk key encoding, so its chunks stay where they are.
//!
//! Only the metadata is rewritten, and only once every stored chunk is proven to decode through
//! the new chain to exactly (bit for bit) the values numcodecs decodes it to. The oracle is
//! numcodecs' own arithmetic (`q / scale + offset` in float64 with offset and scale as float64,
//! then a cast to the array's type), computed independently of the codecs. A chunk that does not
//! verify stops the migration before anything is written, with the chunk, the element and both
//! values.
//!
//! zarrs 0.23's own `numcodecs.fixedscaleoffset` reads `offset` and `scale` as float32 and
//! computes in float32: the report counts the elements it reads differently from numcodecs (and
//! from the migrated chain).

mod elementwise;
mod fill;
mod legacy;
mod report;

pub use report::{MigrationReport, ZarrsBuiltin};

use std::sync::Arc;

use serde_json::Value;
use zarrs::array::{Array, ArrayBytes, ArrayError, ArrayMetadata, DataType};
use zarrs::metadata::v2::ArrayMetadataV2;
use zarrs::metadata::v3::MetadataV3;
use zarrs::node::{NodePath, meta_key_v2_array, meta_key_v2_attributes, meta_key_v3};
use zarrs::storage::{ReadableWritableListableStorageTraits, StorageError};

use crate::quantize::{chunk_indices, to_f64};
use elementwise::Elementwise;
use legacy::{Legacy, integers};

/// The name of the legacy codec in Zarr V3 metadata.
pub const LEGACY_NAME: &str = "numcodecs.fixedscaleoffset";

/// How [`migrate_array`] migrates.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct MigrateOptions {
    dry_run: bool,
}

impl MigrateOptions {
    /// The same, checking and reporting without writing anything if `dry_run`.
    #[must_use]
    pub fn with_dry_run(mut self, dry_run: bool) -> Self {
        self.dry_run = dry_run;
        self
    }

    /// Whether nothing is written.
    #[must_use]
    pub fn dry_run(&self) -> bool {
        self.dry_run
    }
}

/// Why [`migrate_array`] did not migrate an array.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MigrateError {
    /// The node is not an array with exactly one legacy codec that can be migrated.
    #[error("{0}")]
    Unsupported(String),
    /// A stored chunk does not decode the same through the new chain.
    #[error(
        "element {element} of chunk {chunk:?} decodes to {numcodecs} in numcodecs but to {new} through the new chain; nothing was changed"
    )]
    NotExact {
        /// The chunk's indices.
        chunk: Vec<u64>,
        /// The element's index within the chunk.
        element: usize,
        /// numcodecs' value.
        numcodecs: f64,
        /// The new chain's value.
        new: f64,
    },
    /// A stored chunk fails to decode through the new chain.
    #[error(
        "chunk {chunk:?} does not decode through the new chain ({reason}); nothing was changed"
    )]
    ChunkFails {
        /// The chunk's indices.
        chunk: Vec<u64>,
        /// The decode error.
        reason: String,
    },
    /// The metadata is not valid.
    #[error("{0}")]
    Metadata(String),
    /// Reading a chunk failed.
    #[error(transparent)]
    Array(#[from] ArrayError),
    /// Reading or writing the store failed.
    #[error(transparent)]
    Storage(#[from] StorageError),
}

fn metadata_error(error: impl std::fmt::Display) -> MigrateError {
    MigrateError::Metadata(error.to_string())
}

/// The array's metadata as Zarr V3 JSON, its Zarr format, and for Zarr V2 the legacy filter's
/// own configuration (zarrs' conversion reads offset and scale as float32).
fn read_metadata<TStorage: ?Sized + ReadableWritableListableStorageTraits>(
    store: &TStorage,
    node: &NodePath,
) -> Result<(Value, u8, Option<Value>), MigrateError> {
    let json = |bytes: &[u8]| serde_json::from_slice::<Value>(bytes).map_err(metadata_error);
    if let Some(bytes) = store.get(&meta_key_v3(node))? {
        return Ok((json(&bytes)?, 3, None));
    }
    let Some(bytes) = store.get(&meta_key_v2_array(node))? else {
        return Err(MigrateError::Unsupported(format!(
            "{} holds no array (no zarr.json or .zarray)",
            node.as_str()
        )));
    };
    let mut v2_json = json(&bytes)?;
    // zarrs' conversion parses the legacy filter itself (and rejects some of them, such as
    // `astype: "|u1"`): convert without it, and put it back as Zarr V3 codec metadata.
    let filters = v2_json["filters"].as_array().cloned().unwrap_or_default();
    let position = filters.iter().position(|f| f["id"] == "fixedscaleoffset");
    let filter = position.map(|i| filters[i].clone());
    if let Some(i) = position {
        let mut rest = filters;
        rest.remove(i);
        v2_json["filters"] = if rest.is_empty() {
            Value::Null
        } else {
            Value::Array(rest)
        };
    }
    let mut v2: ArrayMetadataV2 =
        serde_json::from_value(v2_json.clone()).map_err(metadata_error)?;
    if let Some(attributes) = store.get(&meta_key_v2_attributes(node))?
        && let Value::Object(map) = json(&attributes)?
    {
        v2.attributes = map;
    }
    let v3 = zarrs::convert::array_metadata_v2_to_v3(&v2).map_err(metadata_error)?;
    let mut v3 = serde_json::to_value(v3).map_err(metadata_error)?;
    if let (Some(i), Some(filter), Some(codecs)) = (position, &filter, v3["codecs"].as_array_mut())
    {
        let mut configuration = filter.clone();
        if let Some(map) = configuration.as_object_mut() {
            map.remove("id");
        }
        // The filters follow the transpose of Fortran order, if any.
        let transposed = usize::from(v2_json["order"] == "F");
        let legacy = serde_json::json!({"name": LEGACY_NAME, "configuration": configuration});
        codecs.insert((transposed + i).min(codecs.len()), legacy);
    }
    Ok((v3, 2, filter))
}

/// Replaces the legacy codec of the array at `path` in `store` by `scale_offset` and
/// `cast_value` (see the [module](self) documentation), after checking every stored chunk.
/// With [`MigrateOptions::with_dry_run`], checks and reports without writing anything.
///
/// # Errors
/// Returns a [`MigrateError`] if the array has no legacy codec or one that cannot be migrated
/// (a data type other than a float array stored as integers, the codec inside another codec), if
/// a stored chunk does not decode the same through the new chain, or if the store fails.
#[expect(
    clippy::needless_pass_by_value,
    reason = "as zarrs' Array::open, which takes the store's Arc"
)]
pub fn migrate_array<TStorage: ?Sized + ReadableWritableListableStorageTraits + 'static>(
    store: Arc<TStorage>,
    path: &str,
    options: &MigrateOptions,
) -> Result<MigrationReport, MigrateError> {
    let node = NodePath::new(path).map_err(metadata_error)?;
    let (old, zarr_format, v2_filter) = read_metadata(&*store, &node)?;
    let codecs = old["codecs"].as_array().cloned().unwrap_or_default();
    let position = legacy_position(&old, &codecs)?;
    let configuration = v2_filter.unwrap_or_else(|| codecs[position]["configuration"].clone());
    let legacy = Legacy::new(&configuration)?;
    if old["data_type"] != legacy.dtype_name() {
        return Err(MigrateError::Unsupported(format!(
            "the legacy codec's dtype {} is not the array's data type {}",
            configuration["dtype"], old["data_type"]
        )));
    }
    let open = |json: &Value| -> Result<Array<TStorage>, MigrateError> {
        let metadata: ArrayMetadata =
            serde_json::from_value(json.clone()).map_err(metadata_error)?;
        Array::new_with_metadata(store.clone(), path, metadata).map_err(metadata_error)
    };
    // The stored integers: the chain without the legacy codec, on the integer type.
    let mut raw = old.clone();
    let mut raw_codecs = codecs.clone();
    raw_codecs.remove(position);
    raw["codecs"] = Value::Array(raw_codecs);
    raw["data_type"] = Value::from(legacy.astype.name());
    raw["fill_value"] = Value::from(0);
    let raw_array = open(&raw)?;
    let mut used = fill::UsedCodes::new(legacy.astype);
    for indices in chunk_indices(&raw_array) {
        if let Some(stored) = raw_array.retrieve_chunk_if_exists(&indices)? {
            used.add(legacy.astype, stored)?;
        }
    }
    let fill = fill::fill_value(&old["fill_value"], legacy.dtype)?;
    let fill_entry = fill::fill_entry(&legacy, fill, &used)?;
    let replacement = legacy.codecs(fill_entry);
    let mut new = old.clone();
    let mut new_codecs = codecs.clone();
    new_codecs.splice(position..=position, replacement.clone());
    new["codecs"] = Value::Array(new_codecs);
    let new_array = open(&new)?;
    let notes = validate_new_chain(&new_array)?;
    let mut report = MigrationReport {
        zarr_format,
        legacy: configuration,
        codecs: replacement,
        metadata: new.clone(),
        chunks: 0,
        elements: 0,
        zarrs_builtin: ZarrsBuiltin::Reads {
            elements: 0,
            largest: 0.0,
        },
        notes: legacy
            .differences(fill, fill_entry)
            .into_iter()
            .chain(notes)
            .collect(),
        applied: false,
    };
    // The legacy codec and its replacement, run on the stored integers of each chunk.
    let replacement = Elementwise::new(
        &report.codecs,
        new_array.data_type(),
        new_array.fill_value(),
    )
    .map_err(MigrateError::Metadata)?;
    // zarrs' own legacy codec, where zarrs can create it.
    let builtin = Elementwise::new(
        &codecs[position..=position],
        new_array.data_type(),
        new_array.fill_value(),
    );
    if let Err(error) = &builtin {
        report.zarrs_builtin = ZarrsBuiltin::CannotRead {
            reason: error.clone(),
        };
    }
    verify_chunks(
        &legacy,
        &raw_array,
        &replacement,
        builtin.as_ref().ok(),
        &mut report,
    )?;
    if !options.dry_run {
        let bytes = serde_json::to_vec_pretty(&new).map_err(metadata_error)?;
        store.set(&meta_key_v3(&node), bytes.into())?;
        if zarr_format == 2 {
            store.erase(&meta_key_v2_array(&node))?;
            store.erase(&meta_key_v2_attributes(&node))?;
        }
        report.applied = true;
    }
    Ok(report)
}

/// The position of the one legacy codec among `codecs` (of the metadata `old`).
fn legacy_position(old: &Value, codecs: &[Value]) -> Result<usize, MigrateError> {
    let is_legacy =
        |c: &Value| c["name"] == LEGACY_NAME || c["name"] == "fixedscaleoffset" || c == LEGACY_NAME;
    let positions: Vec<usize> = (0..codecs.len())
        .filter(|&i| is_legacy(&codecs[i]))
        .collect();
    let [position] = positions[..] else {
        let nested = serde_json::to_string(&old["codecs"]).unwrap_or_default();
        return Err(MigrateError::Unsupported(
            if nested.contains("fixedscaleoffset") {
                "the legacy codec sits inside another codec (sharding?) or appears more than once"
                    .into()
            } else {
                format!("the array uses no {LEGACY_NAME}")
            },
        ));
    };
    Ok(position)
}

/// Validates the migrated array. The stored chunks are verified apart; a chain that later writes
/// could not always read back (a legacy wrap into the stored type) is noted, not refused.
fn validate_new_chain<TStorage: ?Sized>(
    array: &Array<TStorage>,
) -> Result<Vec<String>, MigrateError> {
    match zarrs_scale_offset_cast::validate_array(array) {
        Ok(()) => Ok(Vec::new()),
        Err(error) => {
            match zarrs_scale_offset_cast::Error::find(&error) {
                Some(unreadable @ zarrs_scale_offset_cast::Error::ChainUnreadable { .. }) => Ok(
                    vec![format!("new writes may not always read back: {unreadable}")],
                ),
                _ => Err(metadata_error(error)),
            }
        }
    }
}

/// Checks that the integers of every stored chunk (read by `raw_array`) decode through
/// `replacement` bit for bit as numcodecs decodes them, and counts the elements `builtin` (zarrs'
/// own legacy codec) reads differently.
fn verify_chunks<TStorage: ?Sized + ReadableWritableListableStorageTraits + 'static>(
    legacy: &Legacy,
    raw_array: &Array<TStorage>,
    replacement: &Elementwise,
    builtin: Option<&Elementwise>,
    report: &mut MigrationReport,
) -> Result<(), MigrateError> {
    let data_type =
        DataType::from_metadata(&MetadataV3::new(legacy.dtype_name())).map_err(metadata_error)?;
    for indices in chunk_indices(raw_array) {
        // Each stored chunk read and decompressed once.
        let Some(stored) = raw_array.retrieve_chunk_if_exists::<ArrayBytes<'static>>(&indices)?
        else {
            continue;
        };
        let stored = stored.into_fixed().map_err(ArrayError::from)?;
        let expected: Vec<f64> = integers(legacy.astype, &stored)
            .into_iter()
            .map(|q| legacy.decode(q))
            .collect();
        let got = match replacement
            .decode(&stored)
            .map_err(ArrayError::from)
            .and_then(|bytes| to_f64(&data_type, &bytes))
        {
            Ok(got) => got,
            Err(error) => {
                return Err(MigrateError::ChunkFails {
                    chunk: indices,
                    reason: error.to_string(),
                });
            }
        };
        for (element, (&want, &have)) in expected.iter().zip(&got).enumerate() {
            if !(want.to_bits() == have.to_bits() || (want.is_nan() && have.is_nan())) {
                return Err(MigrateError::NotExact {
                    chunk: indices,
                    element,
                    numcodecs: want,
                    new: have,
                });
            }
        }
        if let (
            Some(builtin),
            ZarrsBuiltin::Reads {
                elements: count,
                largest,
            },
        ) = (builtin, &mut report.zarrs_builtin)
        {
            match builtin
                .decode(&stored)
                .map_err(ArrayError::from)
                .and_then(|bytes| to_f64(&data_type, &bytes))
            {
                Ok(builtin) => {
                    for (&want, &zarrs) in expected.iter().zip(&builtin) {
                        if want.to_bits() != zarrs.to_bits() {
                            *count += 1;
                            *largest = largest.max((want - zarrs).abs());
                        }
                    }
                }
                Err(error) => {
                    report.zarrs_builtin = ZarrsBuiltin::CannotRead {
                        reason: error.to_string(),
                    };
                }
            }
        }
        report.chunks += 1;
        report.elements += expected.len() as u64;
    }
    Ok(())
}
