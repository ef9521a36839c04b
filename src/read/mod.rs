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

use unsafe_cell_slice::UnsafeCellSlice;
use zarrs::array::{
    Array, ArrayBytes, ArrayBytesDecodeIntoTarget, ArrayBytesFixedDisjointView, ArrayError,
    ArraySubset, ArraySubsetTraits, CodecOptions, Element,
};
use zarrs::storage::ReadableStorageTraits;

use crate::kernel::buffer;
use crate::kernel::driver::Output;
use layout::Layout;
pub use output::FromFusedRead;
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
/// let report = reader.read_into(&[2..6, 2..6], &mut values, &Default::default())?;
/// assert_eq!((report.decoded, report.rounds, report.through_zarrs.len()), (4, 1, 0));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct FusedReader<'a, TStorage: ?Sized> {
    array: &'a Array<TStorage>,
    layout: Result<Layout, Unfused>,
    kept: Option<Kept>,
}

/// What a read did: the chunks it decoded on the fused path, filled with the fill value or read
/// through zarrs (and why), and the requests it made of the store.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadReport {
    /// Chunks (of a sharded array, inner chunks) decoded on the fused path.
    pub decoded: usize,
    /// Chunks (inner chunks) never written, whose elements are the fill value.
    pub filled: usize,
    /// Chunks (inner chunks) read through zarrs, by reason; where the whole read went through
    /// zarrs, its reason and the chunks (shards) of the array's grid it touches.
    pub through_zarrs: Vec<(Fallback, usize)>,
    /// Requests the fused path made of the store (zarrs' own not counted).
    pub requests: usize,
    /// The rounds those requests went in: the requests of a round are in flight at once, so a
    /// read from an object store takes about this many round trips.
    pub rounds: usize,
}

/// Why a read, or a chunk of it, went through zarrs.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Fallback {
    /// The whole read: the codec chain is not one the reader fuses.
    Unfused(Unfused),
    /// The whole read: it covers whole chunks of rows shorter than 128 elements in at least
    /// 16,384 runs, which zarrs' own read writes for less.
    ShortRuns,
    /// The whole read: the subset has no elements, and zarrs answers it without a request.
    EmptySubset,
    /// A request the store answered with an error: zarrs reads the chunks it was for, and
    /// reports what the store answers it.
    Store,
    /// A shard whose index does not decode: zarrs reads it and reports what it finds.
    ShardIndex,
    /// An inner chunk whose index entry lies outside its shard.
    ChunkEntry,
    /// A chunk whose stored bytes do not decode, or not to its size.
    StoredBytes,
    /// A chunk holding an element that does not decode: zarrs reads it, to report the element as
    /// zarrs reports it.
    Element,
    /// Inner chunks a shard does not hold, whose fill value does not decode through the codecs
    /// outside the sharding codec.
    MissingFill,
}

/// Why a reader does not fuse an array's codec chain.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Unfused {
    /// The chain has neither of the crate's codecs.
    NothingToFuse,
    /// An array-to-array codec of zarrs or of another crate (its name), such as `transpose`.
    OtherCodec(String),
    /// Chunks stored otherwise than by `bytes` and bytes-to-bytes codecs, themselves or as the
    /// inner chunks of one `sharding_indexed` codec on a regular grid: what is in the way.
    Layout(String),
    /// One of the crate's codecs refuses the data type or fill value it is given: zarrs reads,
    /// and reports the error.
    Refused,
}

/// The bytes [`FusedReader::with_shard_index_cache`] keeps at most.
const KEPT_BYTES: usize = 64 << 20;

impl<'a, TStorage: ?Sized> FusedReader<'a, TStorage> {
    /// A reader of `array` (of any store, synchronous or, with the `async` feature,
    /// asynchronous), fused where its codec chain allows.
    #[must_use]
    pub fn new(array: &'a Array<TStorage>) -> Self {
        Self {
            array,
            layout: layout::layout(array),
            kept: None,
        }
    }

    /// Keeps the index of each shard after its first read, so that later reads take it from
    /// memory: a window within one inner chunk then costs one request (the inner chunk) instead
    /// of two rounds (the shard's index, then the inner chunk). Of each inner chunk compressed by
    /// Blosc alone whose head a read fetched, it also keeps where its blocks lie, so that a later
    /// read of at most half of it fetches only the blocks it needs. It keeps at most 64 MiB (16
    /// bytes per inner chunk of the shards read and 16 per Blosc block of the chunks read), the
    /// shards used longest ago let go first ([`Self::with_shard_index_cache_limit`]). As zarrs'
    /// `ArrayShardedExtCache`, it is for arrays not written while the reader is used. No effect
    /// where reads are not fused or the array is not sharded.
    #[must_use]
    pub fn with_shard_index_cache(self) -> Self {
        self.with_shard_index_cache_limit(KEPT_BYTES)
    }

    /// [`Self::with_shard_index_cache`], keeping at most `bytes`.
    #[must_use]
    pub fn with_shard_index_cache_limit(mut self, bytes: usize) -> Self {
        if self
            .layout
            .as_ref()
            .is_ok_and(|layout| layout.shards.is_some())
        {
            self.kept = Some(Kept::new(bytes));
        }
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

    /// The subset of a read, checked against the element type `T`, the output's length and the
    /// array; and the fused layout where it reads the subset itself, else why zarrs reads it.
    fn route<T: Element>(
        &self,
        subset: &dyn ArraySubsetTraits,
        len: usize,
    ) -> Result<(ArraySubset, Result<&Layout, Fallback>), ArrayError> {
        T::validate_data_type(self.array.data_type())?;
        let subset = subset.to_array_subset();
        if subset.dimensionality() != self.array.dimensionality() {
            return Err(ArrayError::InvalidArraySubset(
                subset,
                self.array.shape().to_vec(),
            ));
        }
        let elements = element_count(&subset)?;
        if len != elements {
            return Err(ArrayError::InvalidDataShape(vec![len], vec![elements]));
        }
        let route = match &self.layout {
            _ if elements == 0 => Err(Fallback::EmptySubset),
            Err(unfused) => Err(Fallback::Unfused(unfused.clone())),
            Ok(layout) if layout.short_runs(self.array.shape(), &subset) => {
                Err(Fallback::ShortRuns)
            }
            Ok(layout) => Ok(layout),
        };
        Ok((subset, route))
    }

    /// The report of a read that went through zarrs as a whole, for `reason`.
    fn through_zarrs(
        &self,
        subset: &ArraySubset,
        reason: Fallback,
    ) -> Result<ReadReport, ArrayError> {
        let chunks = self
            .array
            .chunks_in_array_subset(subset)?
            .map_or(0, |chunks| chunks.num_elements_usize());
        let chunks = if reason == Fallback::EmptySubset {
            0
        } else {
            chunks
        };
        Ok(ReadReport {
            through_zarrs: vec![(reason, chunks)],
            ..ReadReport::default()
        })
    }
}

impl<TStorage: ?Sized + ReadableStorageTraits + 'static> FusedReader<'_, TStorage> {
    /// Reads `subset` of the array into `output` (C order), with default codec options.
    ///
    /// Takes what zarrs' reads take: any array subset (`&[0..512, 0..512]`, an [`ArraySubset`]),
    /// also one reaching beyond the array, whose elements there are the fill value.
    ///
    /// # Errors
    /// Returns an [`ArrayError`] if `T` is not an element type of the array's data type (as
    /// zarrs' typed reads check it), `output` does not hold exactly the elements of `subset`, the
    /// subset does not have the array's dimensionality, or reading or decoding fails, as
    /// [`Array::retrieve_array_subset_into`] would.
    pub fn retrieve_array_subset_into<T: Element + bytemuck::Pod>(
        &self,
        subset: &dyn ArraySubsetTraits,
        output: &mut [T],
    ) -> Result<(), ArrayError> {
        self.read_into(subset, output, &CodecOptions::default())
            .map(drop)
    }

    /// Reads `subset` of the array into `output` (C order), with `options`: as many chunks are
    /// read and decoded at once, on rayon threads, as their concurrent target allows, and where
    /// there are fewer chunks than that, the work inside each is split too.
    ///
    /// # Errors
    /// As [`Self::retrieve_array_subset_into`].
    pub fn retrieve_array_subset_into_opt<T: Element + bytemuck::Pod>(
        &self,
        subset: &dyn ArraySubsetTraits,
        output: &mut [T],
        options: &CodecOptions,
    ) -> Result<(), ArrayError> {
        self.read_into(subset, output, options).map(drop)
    }

    /// [`Self::retrieve_array_subset_into_opt`], and what the read did: a synchronous read keeps
    /// at least 16 requests in flight where it has them.
    ///
    /// # Errors
    /// As [`Self::retrieve_array_subset_into`].
    pub fn read_into<T: Element + bytemuck::Pod>(
        &self,
        subset: &dyn ArraySubsetTraits,
        output: &mut [T],
        options: &CodecOptions,
    ) -> Result<ReadReport, ArrayError> {
        let (subset, route) = self.route::<T>(subset, output.len())?;
        let output: &mut [u8] = bytemuck::cast_slice_mut(output);
        match route {
            Ok(layout) => self.read_fused(layout, &subset, Output::Init(output), options),
            Err(reason) => {
                self.read_unfused(&subset, output, options)?;
                self.through_zarrs(&subset, reason)
            }
        }
    }

    /// Reads `subset` of the array into a new `Vec<T>` or, with the `ndarray` feature, an
    /// `ndarray::Array<T, D>` (as zarrs' [`Array::retrieve_array_subset`] does), with default
    /// codec options.
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
            self.read_fused(layout, &subset, room, options)?;
            // SAFETY: the read succeeded, so it wrote every byte of the room for `elements`
            // elements (the pieces it fills partition it, as `output::split` asserts), and every
            // bit pattern is a value of the `Pod` element type.
            unsafe { values.set_len(elements) };
        } else {
            values = buffer::zeroed_for_read(elements, options.concurrent_target());
            self.read_unfused(&subset, bytemuck::cast_slice_mut(&mut values), options)?;
        }
        O::from_elements(values, subset.shape())
    }

    /// Reads `subset` into `output` through zarrs' own read.
    fn read_unfused(
        &self,
        subset: &ArraySubset,
        output: &mut [u8],
        options: &CodecOptions,
    ) -> Result<(), ArrayError> {
        if output.is_empty() {
            // zarrs answers an empty subset (or its error) without a request.
            let _: ArrayBytes<'_> = self.array.retrieve_array_subset_opt(subset, options)?;
            return Ok(());
        }
        let mut view = view_of(subset, output)?;
        self.array.retrieve_array_subset_into_opt(
            subset,
            ArrayBytesDecodeIntoTarget::Fixed(&mut view),
            options,
        )
    }
}

#[cfg(feature = "async")]
impl<TStorage: ?Sized + zarrs::storage::AsyncReadableStorageTraits + 'static>
    FusedReader<'_, TStorage>
{
    /// [`Self::retrieve_array_subset_into`] from an asynchronous store.
    ///
    /// # Errors
    /// As [`Self::retrieve_array_subset_into`].
    pub async fn async_retrieve_array_subset_into<T: Element + bytemuck::Pod>(
        &self,
        subset: &dyn ArraySubsetTraits,
        output: &mut [T],
    ) -> Result<(), ArrayError> {
        self.async_read_into(subset, output, &CodecOptions::default())
            .await
            .map(drop)
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
    ) -> Result<(), ArrayError> {
        self.async_read_into(subset, output, options)
            .await
            .map(drop)
    }

    /// [`Self::read_into`] from an asynchronous store: up to 64 requests in flight at once, the
    /// chunks decoded on rayon threads as their bytes come in.
    ///
    /// # Errors
    /// As [`Self::retrieve_array_subset_into`].
    pub async fn async_read_into<T: Element + bytemuck::Pod>(
        &self,
        subset: &dyn ArraySubsetTraits,
        output: &mut [T],
        options: &CodecOptions,
    ) -> Result<ReadReport, ArrayError> {
        let (subset, route) = self.route::<T>(subset, output.len())?;
        let output: &mut [u8] = bytemuck::cast_slice_mut(output);
        match route {
            Ok(layout) => {
                self.async_read_fused(layout, &subset, Output::Init(output), options)
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

    /// [`Self::retrieve_array_subset_opt`] from an asynchronous store.
    ///
    /// # Errors
    /// As [`Self::retrieve_array_subset_into`].
    pub async fn async_retrieve_array_subset_opt<O: FromFusedRead>(
        &self,
        subset: &dyn ArraySubsetTraits,
        options: &CodecOptions,
    ) -> Result<O, ArrayError> {
        let elements = element_count(subset)?;
        let (subset, route) = self.route::<O::Element>(subset, elements)?;
        let mut values = Vec::new();
        if let Ok(layout) = route {
            let room = Output::Uninit(buffer::room(&mut values, elements));
            self.async_read_fused(layout, &subset, room, options)
                .await?;
            // SAFETY: as in `retrieve_array_subset_opt`: every byte of the room was written.
            unsafe { values.set_len(elements) };
        } else {
            values = buffer::zeroed_for_read(elements, options.concurrent_target());
            let bytes = bytemuck::cast_slice_mut(&mut values);
            self.async_read_unfused(&subset, bytes, options).await?;
        }
        O::from_elements(values, subset.shape())
    }

    /// Reads `subset` into `output` through zarrs' own asynchronous read.
    async fn async_read_unfused(
        &self,
        subset: &ArraySubset,
        output: &mut [u8],
        options: &CodecOptions,
    ) -> Result<(), ArrayError> {
        if output.is_empty() {
            let _: ArrayBytes<'_> = self
                .array
                .async_retrieve_array_subset_opt(subset, options)
                .await?;
            return Ok(());
        }
        let mut view = view_of(subset, output)?;
        let target = ArrayBytesDecodeIntoTarget::Fixed(&mut view);
        self.array
            .async_retrieve_array_subset_into_opt(subset, target, options)
            .await
    }
}

/// `output`, the elements of `subset` in C order, as a target of zarrs' reads into a buffer.
fn view_of<'a>(
    subset: &'a ArraySubset,
    output: &'a mut [u8],
) -> Result<ArrayBytesFixedDisjointView<'a>, ArrayError> {
    let size = output.len() / element_count(subset)?.max(1);
    let cells = UnsafeCellSlice::new(output);
    let shape = subset.shape();
    // SAFETY: the view is the only one of `output`, which it covers exactly (the subset's
    // elements of `size` bytes) and which it borrows for its whole life.
    let view = unsafe {
        ArrayBytesFixedDisjointView::new(
            cells,
            size,
            shape,
            ArraySubset::new_with_shape(shape.to_vec()),
        )
    }?;
    Ok(view)
}

/// The number of elements of `subset`.
fn element_count(subset: &dyn ArraySubsetTraits) -> Result<usize, ArrayError> {
    usize::try_from(subset.num_elements())
        .map_err(|_| ArrayError::Other("the subset has too many elements".into()))
}
