//! The crate beside zarr-python 3.4.2: the arrays zarr-python wrote (`tests/data/interop`) read
//! as it reads them, written again with the same chunks, and fresh random arrays
//! (`tests/data/random`, or those `ZARR_PYTHON_RANDOM` names) read and written as zarr-python does.

mod chunk_files;
mod random;
mod read;
mod write;

use serde_json::Value as Json;

/// Interop fixture values where this crate follows the specification rather than zarr-python
/// 3.4.2: `(case id, element index, value the specification gives, why)`.
pub(crate) const SPEC_OVERRIDES: &[(&str, usize, f64, &str)] = &[(
    "so-f64-noop",
    1,
    -0.0,
    "scale_offset without offset and scale does no arithmetic, so -0.0 stays -0.0; zarr-python computes (x / 1) + 0",
)];

/// The expected value of element `index` of fixture `id`: the manifest's, or the specification's
/// where they differ.
pub(crate) fn expected_value(id: &str, index: usize, manifest: &Json) -> Json {
    SPEC_OVERRIDES
        .iter()
        .find(|(case, i, _, _)| *case == id && *i == index)
        .map_or_else(|| manifest.clone(), |&(_, _, value, _)| Json::from(value))
}
