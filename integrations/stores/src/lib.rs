//! Round trips of `zarrs_scale_offset_cast` through the stores its users read from: `object_store`
//! (in memory, on the local file system and over HTTP) through `zarrs_object_store`, zip archives
//! through `zarrs_zip`, HTTP through `zarrs_http`, and the ranged stores of
//! `zarrs_scale_offset_cast_stores`, against arrays zarr-python 3.4.2 wrote.
//!
//! - [`fixtures`]: the arrays (the crate's 44 interop fixtures and a Sentinel-2-like group with its
//!   zip archive, `tests/data`) and their expected values;
//! - [`server`]: a static HTTP server on the loopback interface, started by the tests, that can
//!   answer each request after a delay, as an object store does.
//!
//! The binaries `serve`, `read-http` and `read-windows` let `.ci/run` time zarrs against
//! zarr-python on the same URL (`zarr-python/read_http.py`, `zarr-python/read_windows.py`).

pub mod fixtures;
pub mod server;
