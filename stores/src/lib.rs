//! Stores for [zarrs](https://docs.rs/zarrs) that ask for each byte range as it is: one request
//! per range, and no `HEAD` request first.
//!
//! `zarrs_http` 0.3 and `zarrs_object_store` 0.7 send a `HEAD` request for a value's size before
//! every ranged read, to turn each range into offsets: a window of a sharded array (a shard's
//! index, then an inner chunk) so costs four requests, in four round trips, where two do. An HTTP
//! range can count from the end (`bytes=-N`, as a shard index at the end is asked for) or run to
//! the end (`bytes=N-`), and so can `object_store`'s `GetRange`; these stores send each range as
//! it is:
//!
//! - [`RangedHttpStore`] (feature `http`, on by default): synchronous, over HTTP (`reqwest`'s
//!   blocking client), for zarrs' synchronous reads and
//!   [`FusedReader`](https://docs.rs/zarrs_scale_offset_cast/latest/zarrs_scale_offset_cast/struct.FusedReader.html);
//! - [`RangedObjectStore`] (feature `object_store`): asynchronous, over any `object_store`
//!   (Amazon S3, Google Cloud Storage, Azure, HTTP), for zarrs' asynchronous reads.
//!
//! They read; they do not write or list. A missing value reads as `None`; a range beyond the value
//! is an error, as it is for zarrs' file system store; a server that answers a range with the
//! whole value (`200 OK`) is understood, and one that answers with other bytes than those asked
//! for (its `Content-Range` says which) is an error. An empty range is answered without a
//! request.
//!
//! ```no_run
//! # #[cfg(feature = "http")] {
//! use std::sync::Arc;
//!
//! use zarrs::array::Array;
//! use zarrs_scale_offset_cast_stores::RangedHttpStore;
//!
//! let store = Arc::new(RangedHttpStore::new("https://example.com/product.zarr"));
//! let array = Array::open(store, "/measurements/reflectance/r10m/b04")?;
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(feature = "http")]
mod http;
#[cfg(feature = "object_store")]
mod object;

#[cfg(feature = "http")]
pub use http::RangedHttpStore;
#[cfg(feature = "object_store")]
pub use object::RangedObjectStore;

#[cfg(any(feature = "http", feature = "object_store"))]
mod range;
