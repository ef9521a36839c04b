//! What [`migrate_array`](super::migrate_array) reports.

use serde_json::Value;

/// How zarrs' own `numcodecs.fixedscaleoffset` (which reads offset and scale as float32) reads
/// the stored chunks, compared with numcodecs.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ZarrsBuiltin {
    /// It reads `elements` of them differently, by up to `largest` (none: as numcodecs does).
    Reads {
        /// The elements read differently.
        elements: u64,
        /// The largest difference.
        largest: f64,
    },
    /// zarrs cannot read the array with it.
    CannotRead {
        /// What zarrs says.
        reason: String,
    },
}

/// What [`migrate_array`](super::migrate_array) found, and did unless it was a dry run.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct MigrationReport {
    pub(super) zarr_format: u8,
    pub(super) legacy: Value,
    pub(super) codecs: Vec<Value>,
    pub(super) metadata: Value,
    pub(super) chunks: u64,
    pub(super) elements: u64,
    pub(super) zarrs_builtin: ZarrsBuiltin,
    pub(super) notes: Vec<String>,
    pub(super) applied: bool,
}

impl MigrationReport {
    /// The array's Zarr format before the migration (2 or 3).
    #[must_use]
    pub fn zarr_format(&self) -> u8 {
        self.zarr_format
    }

    /// The legacy codec's configuration, as JSON.
    #[must_use]
    pub fn legacy(&self) -> &Value {
        &self.legacy
    }

    /// The codecs that replace it, as JSON.
    #[must_use]
    pub fn codecs(&self) -> &[Value] {
        &self.codecs
    }

    /// The array's `zarr.json` after the migration.
    #[must_use]
    pub fn metadata(&self) -> &Value {
        &self.metadata
    }

    /// The stored chunks checked (chunks never written read the fill value either way).
    #[must_use]
    pub fn chunks(&self) -> u64 {
        self.chunks
    }

    /// The elements of those chunks, all of which decode the same through both.
    #[must_use]
    pub fn elements(&self) -> u64 {
        self.elements
    }

    /// How zarrs' own `numcodecs.fixedscaleoffset` reads them.
    #[must_use]
    pub fn zarrs_builtin(&self) -> &ZarrsBuiltin {
        &self.zarrs_builtin
    }

    /// Where the new chain behaves differently from numcodecs for values written from now on.
    #[must_use]
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Whether the metadata was rewritten (false for a dry run).
    #[must_use]
    pub fn applied(&self) -> bool {
        self.applied
    }
}
