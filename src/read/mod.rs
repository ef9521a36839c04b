//! The fast path for reads: stored chunks decoded straight into the caller's buffer.
//!
//! zarrs decodes every chunk into a fresh buffer, one codec after the other, and then copies it
//! into the output. For arrays stored as `[scale_offset?, cast_value?, bytes, bytes-to-bytes
//! codecs...]`, also inside `sharding_indexed`, a [`FusedReader`] instead decodes each stored
//! chunk with zarrs' own `bytes` and compression codecs, and then runs the `cast_value` and
//! `scale_offset` decodes as one pass that writes straight into the caller's buffer. It fetches
//! only the byte ranges a read needs, in rounds whose requests are all in flight at once. The
//! results are the same as zarrs' bit for bit; whatever it does not read itself goes through
//! zarrs, for a reason each [`ReadReport`] names ([`Fallback`]).

mod blosc;
mod decode;
mod drive;
mod layout;
mod output;
mod plan;
mod shard;

use zarrs::array::{Array, ArrayError, ArraySubsetTraits, CodecOptions, Element, ElementOwned};
use zarrs::storage::ReadableStorageTraits;

use crate::engine::blockwise::Output;
use crate::engine::buffer;
pub use drive::{Fallback, ReadReport};
use layout::Layout;
pub use layout::Unfused;
use shard::Kept;

/// Reads array subsets into a caller's buffer, fusing the decode of `scale_offset` and
/// `cast_value` into one pass where the codec chain allows.
///
/// ```rust
/// # use std::sync::Arc;
/// # use zarrs::array::{Array, ArrayMetadata};
/// # use zarrs::storage::store::MemoryStore;
/// use zarrs_scale_offset_cast::FusedReader;
/// # let store = Arc::new(MemoryStore::new());
/// # let metadata: ArrayMetadata = serde_json::from_str(r#"{
/// #   "zarr_format": 3, "node_type": "array", "shape": [6, 6], "data_type": "float64",
/// #   "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4, 4]}},
/// #   "chunk_key_encoding": {"name": "default"}, "fill_value": "NaN",
/// #   "codecs": [
/// #     {"name": "scale_offset", "configuration": {"offset": -0.1, "scale": 10000}},
/// #     {"name": "cast_value", "configuration": {"data_type": "uint16", "out_of_range": "clamp",
/// #       "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}},
/// #     {"name": "bytes", "configuration": {"endian": "little"}}
/// #   ]
/// # }"#)?;
/// # let array = Array::new_with_metadata(store, "/", metadata)?;
/// # array.store_array_subset(&[0..6, 0..6], vec![0.5f64; 36])?;
/// let reader = FusedReader::new(&array);
/// assert!(reader.is_fused());
/// let mut values = vec![0.0f64; 16]; // reused from read to read
/// reader.retrieve_array_subset_into(&[2..6, 2..6], &mut values)?;
/// assert_eq!(values[0], 0.5);
/// // What a read did: here four chunks decoded on the fused path, in one round of requests.
/// let report = reader.retrieve_array_subset_into(&[2..6, 2..6], &mut values)?;
/// assert_eq!((report.decoded, report.rounds, report.through_zarrs.len()), (4, 1, 0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct FusedReader<'a, TStorage: ?Sized> {
    array: &'a Array<TStorage>,
    layout: Result<Layout, Unfused>,
    kept: Option<Kept>,
}

/// The bytes [`FusedReader::with_shard_index_cache`] keeps at most.
const KEPT_BYTES: usize = 64 << 20;

impl<'a, TStorage: ?Sized> FusedReader<'a, TStorage> {
    /// A reader of `array` (of a synchronous store or, with the `async` feature, an
    /// asynchronous one), fused where its codec chain allows.
    #[must_use]
    pub fn new(array: &'a Array<TStorage>) -> Self {
        Self {
            array,
            layout: layout::layout(array),
            kept: None,
        }
    }

    /// Keeps each shard's index once read, so that a later window within one inner chunk costs
    /// one request instead of two rounds (index, then chunk); and, of Blosc-compressed inner
    /// chunks, where their blocks lie, so that a later read of part of one fetches only its
    /// blocks. At most 64 MiB (16 bytes per inner chunk and per Blosc block), the shards kept
    /// longest ago let go first ([`Self::with_shard_index_cache_limit`]). As zarrs'
    /// `ArrayShardedExtCache`, for arrays not written meanwhile; no effect on unsharded arrays.
    #[must_use]
    pub fn with_shard_index_cache(self) -> Self {
        self.with_shard_index_cache_limit(KEPT_BYTES)
    }

    /// [`Self::with_shard_index_cache`], keeping at most `bytes`.
    #[must_use]
    pub fn with_shard_index_cache_limit(mut self, bytes: usize) -> Self {
        let sharded = matches!(&self.layout, Ok(layout) if layout.shards.is_some());
        self.kept = sharded.then(|| Kept::new(bytes));
        self
    }

    /// Whether reads take the fused path (else they go through zarrs, [`Self::unfused`] says why).
    #[must_use]
    pub fn is_fused(&self) -> bool {
        self.layout.is_ok()
    }

    /// Why reads go through zarrs, where they do.
    #[must_use]
    pub fn unfused(&self) -> Option<&Unfused> {
        self.layout.as_ref().err()
    }
}

impl<TStorage: ?Sized + ReadableStorageTraits + 'static> FusedReader<'_, TStorage> {
    /// Fetches in one round the index of every shard `subset` meets that the reader
    /// ([`Self::with_shard_index_cache`]) does not keep, so that each later read there takes one
    /// round. A tile server calls it once with `&array.subset_all()`: a request per shard, 16
    /// bytes kept per inner chunk, within the reader's limit; an index that does not decode is
    /// not kept (a read of its shard reports it). Nothing where the reader keeps no indexes;
    /// where reads are not fused, the report names why (zarrs reads the indexes itself).
    ///
    /// # Errors
    /// Returns an [`ArrayError`] where the subset does not have the array's dimensionality or
    /// lies outside its grid of shards.
    pub fn fetch_shard_indexes(
        &self,
        subset: &dyn ArraySubsetTraits,
    ) -> Result<ReadReport, ArrayError> {
        let subset = self.indexed(subset)?;
        match &self.layout {
            Ok(layout) => self.read_fused(layout, &subset, None, &CodecOptions::default()),
            Err(unfused) => self.through_zarrs(&subset, Fallback::Unfused(unfused.clone())),
        }
    }

    /// Reads `subset` of the array into `output` (C order), with default codec options, and
    /// says what the read did.
    ///
    /// Any subset zarrs' reads take (`&[0..512, 0..512]`), also one reaching beyond the array,
    /// whose elements there are the fill value.
    ///
    /// # Errors
    /// As [`Array::retrieve_array_subset_into`]: `T` not an element type of the data type,
    /// `output` not the subset's length, a subset of another dimensionality, a failed read.
    pub fn retrieve_array_subset_into<T: Element + bytemuck::Pod>(
        &self,
        subset: &dyn ArraySubsetTraits,
        output: &mut [T],
    ) -> Result<ReadReport, ArrayError> {
        self.retrieve_array_subset_into_opt(subset, output, &CodecOptions::default())
    }

    /// [`Self::retrieve_array_subset_into`] with `options`: as many chunks at once as their
    /// concurrent target allows, the work inside each split where there are fewer.
    ///
    /// # Errors
    /// As [`Self::retrieve_array_subset_into`].
    pub fn retrieve_array_subset_into_opt<T: Element + bytemuck::Pod>(
        &self,
        subset: &dyn ArraySubsetTraits,
        output: &mut [T],
        options: &CodecOptions,
    ) -> Result<ReadReport, ArrayError> {
        let (subset, route) = self.route::<T>(subset, output.len())?;
        let output: &mut [u8] = bytemuck::cast_slice_mut(output);
        match route {
            Ok(layout) => self.read_fused(layout, &subset, Some(Output::Init(output)), options),
            Err(reason) => {
                self.read_unfused(&subset, output, options)?;
                self.through_zarrs(&subset, reason)
            }
        }
    }

    /// Reads `subset` into a new `Vec<T>` or, with the `ndarray` feature, an `ndarray::Array<T, D>`
    /// (as zarrs' [`Array::retrieve_array_subset`] does), with default codec options.
    ///
    /// # Errors
    /// As [`Self::retrieve_array_subset_into`].
    pub fn retrieve_array_subset<O: FromFusedRead>(
        &self,
        subset: &dyn ArraySubsetTraits,
    ) -> Result<O, ArrayError> {
        self.retrieve_array_subset_opt(subset, &CodecOptions::default())
    }

    /// [`Self::retrieve_array_subset`] with `options`: the output is allocated once, never
    /// zero-filled, and filled on as many threads as `options` allow.
    ///
    /// # Errors
    /// As [`Self::retrieve_array_subset_into`].
    pub fn retrieve_array_subset_opt<O: FromFusedRead>(
        &self,
        subset: &dyn ArraySubsetTraits,
        options: &CodecOptions,
    ) -> Result<O, ArrayError> {
        let elements = element_count(subset)?;
        let (subset, route) = self.route::<O::Element>(subset, elements)?;
        let mut values = Vec::new();
        if let Ok(layout) = route {
            let room = Output::Uninit(buffer::room(&mut values, elements));
            self.read_fused(layout, &subset, Some(room), options)?;
            // SAFETY: the read succeeded, so it wrote every byte of the room for `elements`
            // elements (the pieces it fills partition it, as `output::split` asserts), and every
            // bit pattern is a value of the `Pod` element type.
            unsafe { values.set_len(elements) };
        } else {
            values = buffer::zeroed_for_read(elements, options.concurrent_target());
            self.read_unfused(&subset, bytemuck::cast_slice_mut(&mut values), options)?;
        }
        O::from_elements(values, subset.shape(), sealed::Sealed)
    }
}

#[cfg(feature = "async")]
impl<TStorage: ?Sized + zarrs::storage::AsyncReadableStorageTraits + 'static>
    FusedReader<'_, TStorage>
{
    /// [`Self::fetch_shard_indexes`] from an asynchronous store.
    ///
    /// # Errors
    /// As [`Self::fetch_shard_indexes`].
    pub async fn async_fetch_shard_indexes(
        &self,
        subset: &dyn ArraySubsetTraits,
    ) -> Result<ReadReport, ArrayError> {
        let (subset, options) = (self.indexed(subset)?, CodecOptions::default());
        match &self.layout {
            Ok(layout) => self.async_read_fused(layout, &subset, None, &options).await,
            Err(unfused) => self.through_zarrs(&subset, Fallback::Unfused(unfused.clone())),
        }
    }

    /// [`Self::retrieve_array_subset_into`] from an asynchronous store.
    ///
    /// # Errors
    /// As [`Self::retrieve_array_subset_into`].
    pub async fn async_retrieve_array_subset_into<T: Element + bytemuck::Pod>(
        &self,
        subset: &dyn ArraySubsetTraits,
        output: &mut [T],
    ) -> Result<ReadReport, ArrayError> {
        let options = CodecOptions::default();
        self.async_retrieve_array_subset_into_opt(subset, output, &options)
            .await
    }

    /// [`Self::retrieve_array_subset_into_opt`] from an asynchronous store.
    ///
    /// # Errors
    /// As [`Self::retrieve_array_subset_into`].
    pub async fn async_retrieve_array_subset_into_opt<T: Element + bytemuck::Pod>(
        &self,
        subset: &dyn ArraySubsetTraits,
        output: &mut [T],
        options: &CodecOptions,
    ) -> Result<ReadReport, ArrayError> {
        let (subset, route) = self.route::<T>(subset, output.len())?;
        let output: &mut [u8] = bytemuck::cast_slice_mut(output);
        match route {
            Ok(layout) => {
                self.async_read_fused(layout, &subset, Some(Output::Init(output)), options)
                    .await
            }
            Err(reason) => {
                self.async_read_unfused(&subset, output, options).await?;
                self.through_zarrs(&subset, reason)
            }
        }
    }

    /// [`Self::retrieve_array_subset`] from an asynchronous store.
    ///
    /// # Errors
    /// As [`Self::retrieve_array_subset_into`].
    pub async fn async_retrieve_array_subset<O: FromFusedRead>(
        &self,
        subset: &dyn ArraySubsetTraits,
    ) -> Result<O, ArrayError> {
        self.async_retrieve_array_subset_opt(subset, &CodecOptions::default())
            .await
    }

    /// [`Self::retrieve_array_subset_opt`] from an asynchronous store (the output zeroed first:
    /// a network, not the memory, bounds such a read).
    ///
    /// # Errors
    /// As [`Self::retrieve_array_subset_into`].
    pub async fn async_retrieve_array_subset_opt<O: FromFusedRead>(
        &self,
        subset: &dyn ArraySubsetTraits,
        options: &CodecOptions,
    ) -> Result<O, ArrayError> {
        let mut values =
            buffer::zeroed_for_read(element_count(subset)?, options.concurrent_target());
        (self.async_retrieve_array_subset_into_opt(subset, &mut values, options)).await?;
        O::from_elements(values, subset.to_array_subset().shape(), sealed::Sealed)
    }
}

/// The number of elements of `subset`.
pub(super) fn element_count(subset: &dyn ArraySubsetTraits) -> Result<usize, ArrayError> {
    usize::try_from(subset.num_elements())
        .map_err(|_| ArrayError::Other("the subset has too many elements".into()))
}

/// A type [`FusedReader::retrieve_array_subset`](FusedReader::retrieve_array_subset) can
/// return: `Vec<T>` and, with the `ndarray` feature, `ndarray::Array<T, D>` (the element
/// types of zarrs' typed reads, such as `f64` for a float64 array). Only this crate implements it.
pub trait FromFusedRead: Sized {
    /// The element type.
    type Element: ElementOwned + bytemuck::Pod;

    /// The result from the read's elements in C order and the subset's shape; `Sealed`, a type
    /// no other crate can name, keeps other implementations out.
    ///
    /// # Errors
    /// Returns an [`ArrayError`] if the shape does not fit the type.
    #[doc(hidden)]
    fn from_elements(
        elements: Vec<Self::Element>,
        shape: &[u64],
        sealed: sealed::Sealed,
    ) -> Result<Self, ArrayError>;
}

mod sealed {
    /// What only this crate can hand [`FromFusedRead::from_elements`](super::FromFusedRead).
    #[derive(Clone, Copy, Debug)]
    pub struct Sealed;
}

impl<T: ElementOwned + bytemuck::Pod> FromFusedRead for Vec<T> {
    type Element = T;

    fn from_elements(
        elements: Vec<T>,
        _shape: &[u64],
        _: sealed::Sealed,
    ) -> Result<Self, ArrayError> {
        Ok(elements)
    }
}

#[cfg(feature = "ndarray")]
impl<T: ElementOwned + bytemuck::Pod, D: ndarray::Dimension> FromFusedRead
    for ndarray::Array<T, D>
{
    type Element = T;

    fn from_elements(
        elements: Vec<T>,
        shape: &[u64],
        _: sealed::Sealed,
    ) -> Result<Self, ArrayError> {
        let dimensions: Option<Vec<usize>> = shape.iter().map(|&d| d.try_into().ok()).collect();
        let array = dimensions.and_then(|d| ndarray::ArrayD::from_shape_vec(d, elements).ok());
        array
            .and_then(|array| array.into_dimensionality::<D>().ok())
            .ok_or_else(|| {
                let dimensions = D::NDIM.map_or_else(|| "any number of".into(), |n| n.to_string());
                let error =
                    format!("a read of shape {shape:?} as an array of {dimensions} dimensions");
                ArrayError::Other(error)
            })
    }
}
