//! `FusedReader` reads exactly what zarrs' own reads give, bit for bit, and fails where they fail,
//! on every path: chunked and sharded arrays, missing, partial and edge chunks, compressors,
//! empty subsets, errors, synchronous and asynchronous stores; each read held to the path it is
//! expected to take ([`support::compare`]), and to the requests it makes of the store.

#[cfg(feature = "async")]
mod asynchronous;
mod chunked;
mod counted;
mod errors;
mod fetches;
mod kept;
mod miri;
mod random;
#[cfg(feature = "async")]
mod requests;
mod sharded;
mod support;
