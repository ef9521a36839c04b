//! The fast path for large reads: stored chunks decoded straight into the caller's buffer.
//!
//! zarrs decodes every chunk into a fresh buffer, one codec after the other, and then copies it
//! into the output. For arrays stored as `[scale_offset?, cast_value?, bytes, bytes-to-bytes
//! codecs...]` a [`FusedReader`] instead decodes each stored chunk with zarrs' own `bytes` and
//! compression codecs, and then runs the `cast_value` and `scale_offset` decodes as one pass that
//! writes straight into the caller's buffer, block by block through the cache. The results are the
//! same as zarrs' bit for bit; anything else (other codecs, nested sharding, an element that fails
//! to decode, whole reads of chunks whose rows are short, [`Plan::short_runs`]) goes through
//! zarrs.

#[cfg(feature = "async")]
mod asynchronous;
mod blocks;
mod front;
mod fused;
mod output;
mod pieces;
mod plan;
mod runs;
mod shards;
mod span;
mod split;
mod together;

use std::mem::MaybeUninit;
use std::sync::{Arc, Mutex};

use unsafe_cell_slice::UnsafeCellSlice;
use zarrs::array::{
    Array, ArrayBytesDecodeIntoTarget, ArrayBytesFixedDisjointView, ArrayError, ArraySubset,
    ArraySubsetTraits, CodecOptions, Element,
};
use zarrs::storage::{ReadableStorage, ReadableStorageTraits, StorageHandle};

use crate::kernel::driver::Output;
pub use output::FromFusedRead;
use pieces::{ChunkWork, Filled, Stored};
use plan::{Plan, plan};

use crate::kernel::buffer;
use crate::parallel;

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
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct FusedReader<'a, TStorage: ?Sized> {
    array: &'a Array<TStorage>,
    plan: Option<Plan>,
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
        self.retrieve_array_subset_into_opt(subset, output, &CodecOptions::default())
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
        let subset = self.check::<T>(subset, output.len())?;
        let output: &mut [u8] = bytemuck::cast_slice_mut(output);
        if let Some(plan) = self.plan_for(&subset) {
            self.read_fused(plan, &subset, Output::Init(output), options)
        } else {
            self.read_unfused(&subset, output, options)
        }
    }

    /// Reads `subset` of the array into a new `Vec<T>` or, with the `ndarray` feature, an
    /// `ndarray::Array<T, D>` (as zarrs' [`Array::retrieve_array_subset`] does), with default
    /// codec options.
    ///
    /// ```rust
    /// # use std::sync::Arc;
    /// # use zarrs::array::{ArrayBuilder, data_type};
    /// # use zarrs::storage::store::MemoryStore;
    /// # use zarrs_scale_offset_cast::{CastValueCodec, FusedReader, ScaleOffsetCodec};
    /// # let array = ArrayBuilder::new(vec![8, 8], vec![4, 4], data_type::float32(), 0.0f32)
    /// #     .array_to_array_codecs(vec![
    /// #         Arc::new(ScaleOffsetCodec::new(0, 100)?),
    /// #         Arc::new(CastValueCodec::builder(data_type::int16()).build()?),
    /// #     ])
    /// #     .build(Arc::new(MemoryStore::new()), "/")?;
    /// # array.store_array_subset(&[0..8, 0..8], vec![0.25f32; 64])?;
    /// let values: Vec<f32> = FusedReader::new(&array).retrieve_array_subset(&[0..8, 2..6])?;
    /// assert_eq!(values, vec![0.25; 32]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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
        let subset = self.check::<O::Element>(subset, elements)?;
        let values = if let Some(plan) = self.plan_for(&subset) {
            let mut values = Vec::new();
            let room = Output::Uninit(room(&mut values, elements));
            self.read_fused(plan, &subset, room, options)?;
            // SAFETY: the read succeeded, so it wrote every byte of the room for `elements`
            // elements (the pieces it fills partition it, as `pieces::split` asserts), and every
            // bit pattern is a value of the `Pod` element type.
            unsafe { values.set_len(elements) };
            values
        } else {
            let mut values = buffer::zeroed_for_read(elements, options.concurrent_target());
            self.read_unfused(&subset, bytemuck::cast_slice_mut(&mut values), options)?;
            values
        };
        O::from_elements(values, subset.shape())
    }

    /// Reads `subset` into `output` (bytes not yet written), every byte of which is written when
    /// it succeeds: the chunks on rayon threads within `options`' concurrent target.
    fn read_fused(
        &self,
        plan: &Plan,
        subset: &ArraySubset,
        output: Output<'_>,
        options: &CodecOptions,
    ) -> Result<(), ArrayError> {
        let array = self.array;
        if let Some(sharding) = &plan.shards {
            return shards::read(array, plan, sharding, subset, output, options);
        }
        let threads = options.concurrent_target();
        let grid = &***array.chunk_grid();
        let mut works = split::split(grid, subset, output, plan.kernel.sizes().1, threads)?;
        split::stagger(&mut works);
        let (limit, options) = concurrency(works.len(), options);
        let fill = array.fill_value().as_ne_bytes();
        let storage = storage(array)?;
        let read = |mut work: ChunkWork<'_>| {
            let (key, shape) = (
                array.chunk_key(&work.indices),
                array.chunk_shape(&work.indices)?,
            );
            // An uncompressed chunk's elements are fetched from the first to the last the read
            // needs; any other chunk whole.
            let (encoded, stored) = match work.stored_part(plan, &shape) {
                Some((range, first)) => (storage.get_partial(&key, range), Stored::Elements(first)),
                None => (Ok(storage.get(&key)?), Stored::Whole),
            };
            let filled = match encoded {
                Ok(None) => {
                    work.fill_with(fill);
                    Filled::Done
                }
                Ok(Some(encoded)) => work.decode(plan, &shape, &encoded, stored, &options),
                Err(_) => Filled::ThroughZarrs,
            };
            if let Filled::ThroughZarrs = filled {
                let (chunk, region) = (work.indices.clone(), work.overlap.clone());
                work.read_through_zarrs(array, &chunk, &region, &options)?;
            }
            Ok(())
        };
        for_each_limited(works, limit, read)
    }

    /// Reads `subset` into `output` through zarrs' own read into a buffer.
    fn read_unfused(
        &self,
        subset: &ArraySubset,
        output: &mut [u8],
        options: &CodecOptions,
    ) -> Result<(), ArrayError> {
        let mut view = view_of(subset, output)?;
        self.array.retrieve_array_subset_into_opt(
            subset,
            ArrayBytesDecodeIntoTarget::Fixed(&mut view),
            options,
        )
    }
}

impl<'a, TStorage: ?Sized> FusedReader<'a, TStorage> {
    /// A reader of `array` (of any store, synchronous or, with the `async` feature,
    /// asynchronous), fused where its codec chain allows.
    #[must_use]
    pub fn new(array: &'a Array<TStorage>) -> Self {
        Self {
            array,
            plan: plan(array),
        }
    }

    /// Keeps the index of each shard after its first read, so that later reads take it from
    /// memory: a window within one inner chunk of a sharded array then costs one range request
    /// (the inner chunk) instead of two (the shard's index, then the inner chunk), which for an
    /// object store or HTTP server is a round trip less per window. As zarrs'
    /// `ArrayShardedExtCache`, it is for arrays that are not written while the reader is used:
    /// an index kept from before a shard was rewritten points at bytes that are no longer the
    /// inner chunk's. An absent shard or an index that could not be read is not kept. A read
    /// that covers a shard reads it whole as before, and so does the first read that needs every
    /// one of its compressed inner chunks (one request); the index is kept from it too.
    ///
    /// Of each inner chunk compressed by Blosc alone whose head it has fetched (the whole chunk,
    /// or the front a read of its first rows fetches), the reader also keeps where the Blosc
    /// blocks lie (the Blosc header and block starts): a later read of at most half of that chunk
    /// fetches only the blocks holding the elements it needs (one range request, a third of the
    /// chunk's bytes for a 512² window of a 1830² chunk in blocks of 256 KiB), and where those
    /// blocks cannot be decoded zarrs reads the chunk and reports what it finds. The reader holds what it keeps (16 bytes per inner chunk of the shards read,
    /// and 4 bytes per Blosc block of the chunks read) until it is dropped.
    ///
    /// Has no effect where reads are not fused or the array is not sharded.
    #[must_use]
    pub fn with_shard_index_cache(mut self) -> Self {
        if let Some(sharding) = self.plan.as_mut().and_then(|plan| plan.shards.as_mut()) {
            sharding.kept = Some(Mutex::default());
        }
        self
    }

    /// Whether reads take the fused path (else they go through zarrs). Whole reads of chunks (or
    /// inner chunks) whose rows are shorter than 128 elements go through zarrs' own read either
    /// way, which writes their many short runs for less.
    #[must_use]
    pub fn is_fused(&self) -> bool {
        self.plan.is_some()
    }

    /// The plan a read of `subset` takes: none where zarrs' own read is the faster
    /// ([`Plan::short_runs`]).
    fn plan_for(&self, subset: &ArraySubset) -> Option<&Plan> {
        self.plan
            .as_ref()
            .filter(|plan| !plan.short_runs(self.array, subset))
    }

    /// Checks the element type `T` and the output's length against the array and `subset`.
    fn check<T: Element>(
        &self,
        subset: &dyn ArraySubsetTraits,
        len: usize,
    ) -> Result<ArraySubset, ArrayError> {
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
        Ok(subset)
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

/// The number of chunks to read at once and the codec options of each: as many chunks as the
/// concurrent target allows (at least zarrs' chunk concurrent minimum), since each is read and
/// decoded by one task; the rest of the target goes to the work inside each chunk, where there
/// are fewer chunks than that.
fn concurrency(chunks: usize, options: &CodecOptions) -> (usize, CodecOptions) {
    let target = options.concurrent_target().max(1);
    let chunks = chunks.max(1);
    let outer = target
        .min(chunks)
        .max(options.chunk_concurrent_minimum().min(chunks));
    (
        outer,
        options.with_concurrent_target(target.div_ceil(outer)),
    )
}

/// The array's store with its storage transformers, as zarrs reads chunks through them.
pub(super) fn storage<TStorage: ?Sized + ReadableStorageTraits + 'static>(
    array: &Array<TStorage>,
) -> Result<ReadableStorage, ArrayError> {
    let handle = Arc::new(StorageHandle::new(array.storage()));
    Ok(array
        .storage_transformers()
        .create_readable_transformer(handle)?)
}

/// Runs `op` on every item, at most `limit` at a time on rayon threads; the first error.
pub(super) fn for_each_limited<T: Send, E: Send>(
    items: Vec<T>,
    limit: usize,
    op: impl Fn(T) -> Result<(), E> + Sync + Send,
) -> Result<(), E> {
    if limit <= 1 || items.len() <= 1 {
        items.into_iter().try_for_each(op)
    } else {
        let per_task = items.len().div_ceil(limit);
        parallel::try_for_each(items, per_task, op)
    }
}

/// The room of `values` (a new vector) for `len` elements, as bytes to write: never
/// zero-filled, and offered huge pages where it is large.
fn room<T: bytemuck::Pod>(values: &mut Vec<T>, len: usize) -> &mut [MaybeUninit<u8>] {
    values.reserve_exact(len);
    let slots = &mut values.spare_capacity_mut()[..len];
    let bytes_len = size_of_val(slots);
    // SAFETY: the `len` slots as their bytes, borrowed mutably for as long as `values`; bytes
    // have no alignment requirement, and `MaybeUninit<u8>` may hold anything.
    let bytes: &mut [MaybeUninit<u8>] =
        unsafe { std::slice::from_raw_parts_mut(slots.as_mut_ptr().cast(), bytes_len) };
    buffer::advise(bytes);
    bytes
}

#[cfg(test)]
mod tests;
