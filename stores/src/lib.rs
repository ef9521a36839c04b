//! Round trips of `zarrs_scale_offset_cast` through the stores its users read from: `object_store`
//! (in memory, on the local file system and over HTTP) through `zarrs_object_store`, zip archives
//! through `zarrs_zip`, and HTTP through `zarrs_http`, against arrays zarr-python 3.4.2 wrote.
//!
//! - [`fixtures`]: the arrays (the crate's 44 interop fixtures and a Sentinel-2-like group with its
//!   zip archive, `tests/data`) and their expected values;
//! - [`ranged`]: stores that send each byte range as it is asked for, without the `HEAD`
//!   request `zarrs_http` and `zarrs_object_store` send first;
//! - [`server`]: a static HTTP server on the loopback interface, started by the tests.
//!
//! The binaries `serve` and `read-http` let `.ci/run` time zarrs against zarr-python on the same
//! URL (`zarr-python/read_http.py`).

pub mod fixtures;
pub mod ranged;
pub mod server;
