//! Tools for Zarr arrays stored with the `scale_offset` and `cast_value` codecs of
//! [`zarrs_scale_offset_cast`]: choosing an encoding for a wanted error bound and rewriting an
//! array with it ([`quantize`]), replacing the legacy `numcodecs.fixedscaleoffset` codec by the two
//! codecs ([`migrate`]), and looking at a chain step by step ([`inspect`]).
//!
//! The `zarrs-scale-offset` command offers each as a subcommand (`zarrs-scale-offset --help`).
//! The tools use only the public API of `zarrs_scale_offset_cast` and zarrs.
//!
//! ## Licence
//! Licensed under either of the Apache License, Version 2.0, or the MIT license, at your option.

pub mod inspect;
mod int_type;
pub mod migrate;
pub mod quantize;
mod values;
