//! The fused read from zarrs' asynchronous stores (feature `async`): chunks fetched concurrently,
//! a batch at a time, and decoded on rayon threads as the synchronous read decodes them.

use std::borrow::Cow;
use std::num::NonZeroU64;
use std::sync::Arc;

use futures::{StreamExt, TryStreamExt};
use zarrs::array::chunk_grid::api::ChunkGridTraits;
use zarrs::array::{Array, ArrayIndices};
use zarrs::array::{
    ArrayBytes, ArrayBytesDecodeIntoTarget, ArrayError, ArraySubset, ArraySubsetTraits,
    CodecOptions, Element,
};
use zarrs::storage::{AsyncReadableStorage, AsyncReadableStorageTraits, Bytes, StorageHandle};

use super::front::AfterFront;
use super::pieces::{self, ChunkWork, Filled, Stored};
use super::shards::{self, IndexFrom, ShardIndex, Sharding, Source};
use super::together::{self, Part, Together};
use super::{FromFusedRead, FusedReader, Plan, concurrency, element_count, room, view_of};
use crate::kernel::driver::Output;
use crate::parallel;

/// The most chunks fetched before they are decoded (and held in memory at once).
const BATCH: usize = 64;

impl<TStorage: ?Sized + AsyncReadableStorageTraits + 'static> FusedReader<'_, TStorage> {
    /// [`Self::retrieve_array_subset_into`] from an asynchronous store, with default codec
    /// options.
    ///
    /// # Errors
    /// As [`Self::retrieve_array_subset_into`].
    pub async fn async_retrieve_array_subset_into<T: Element + bytemuck::Pod>(
        &self,
        subset: &dyn ArraySubsetTraits,
        output: &mut [T],
    ) -> Result<(), ArrayError> {
        self.async_retrieve_array_subset_into_opt(subset, output, &CodecOptions::default())
            .await
    }

    /// [`Self::retrieve_array_subset_into_opt`] from an asynchronous store: up to 64 chunks are
    /// fetched concurrently, then decoded on rayon threads within `options`' concurrent target.
    ///
    /// # Errors
    /// As [`Self::retrieve_array_subset_into`].
    pub async fn async_retrieve_array_subset_into_opt<T: Element + bytemuck::Pod>(
        &self,
        subset: &dyn ArraySubsetTraits,
        output: &mut [T],
        options: &CodecOptions,
    ) -> Result<(), ArrayError> {
        let subset = self.check::<T>(subset, output.len())?;
        let output: &mut [u8] = bytemuck::cast_slice_mut(output);
        if let Some(plan) = self.plan_for(&subset) {
            self.async_read_fused(plan, &subset, Output::Init(output), options)
                .await
        } else {
            self.async_read_unfused(&subset, output, options).await
        }
    }

    /// [`Self::retrieve_array_subset`] from an asynchronous store, with default codec options.
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
        let subset = self.check::<O::Element>(subset, elements)?;
        let values = if let Some(plan) = self.plan_for(&subset) {
            let mut values = Vec::new();
            let room = Output::Uninit(room(&mut values, elements));
            self.async_read_fused(plan, &subset, room, options).await?;
            // SAFETY: the read succeeded, so it wrote every byte of the room for `elements`
            // elements (the pieces it fills partition it, as `pieces::split` asserts), and every
            // bit pattern is a value of the `Pod` element type.
            unsafe { values.set_len(elements) };
            values
        } else {
            let mut values =
                crate::kernel::buffer::zeroed_for_read(elements, options.concurrent_target());
            self.async_read_unfused(&subset, bytemuck::cast_slice_mut(&mut values), options)
                .await?;
            values
        };
        O::from_elements(values, subset.shape())
    }

    /// Reads `subset` into `output` through zarrs' own asynchronous read into a buffer.
    async fn async_read_unfused(
        &self,
        subset: &ArraySubset,
        output: &mut [u8],
        options: &CodecOptions,
    ) -> Result<(), ArrayError> {
        let mut view = view_of(subset, output)?;
        self.array
            .async_retrieve_array_subset_into_opt(
                subset,
                ArrayBytesDecodeIntoTarget::Fixed(&mut view),
                options,
            )
            .await
    }

    async fn async_read_fused(
        &self,
        plan: &Plan,
        subset: &ArraySubset,
        output: Output<'_>,
        options: &CodecOptions,
    ) -> Result<(), ArrayError> {
        let array = self.array;
        let threads = options.concurrent_target();
        let grid: &dyn ChunkGridTraits = match &plan.shards {
            Some(sharding) => &sharding.grid,
            None => &***array.chunk_grid(),
        };
        let mut works = super::split::split(grid, subset, output, plan.kernel.sizes().1, threads)?;
        if plan.shards.is_none() {
            super::split::stagger(&mut works);
        }
        let (limit, chunk_options) = concurrency(works.len(), options);
        let handle = Arc::new(StorageHandle::new(array.storage()));
        let storage = array
            .storage_transformers()
            .create_async_readable_transformer(handle)
            .await?;
        let shards = match &plan.shards {
            Some(sharding) => {
                Some(Shards::fetch(array, plan, sharding, &storage, &works, subset).await?)
            }
            None => None,
        };
        // Where each inner chunk's elements come from, and the ranges that follow each other in
        // a shard fetched together, each run of them in one request, before the batches (their
        // bytes, at most the read's, held until their chunks are decoded).
        let (sources, together) = match (&plan.shards, &shards) {
            (Some(sharding), Some(shards)) => {
                let sources = shards.sources(plan, sharding, &works);
                let together = shards.together(array, &storage, &sources).await;
                (sources, together)
            }
            _ => (Vec::new(), Together::default()),
        };
        let mut sources = sources.into_iter().map(Some);
        let mut first = 0;
        for batch in works.chunks_mut(BATCH) {
            let sources: Vec<Option<Source>> =
                (0..batch.len()).map(|_| sources.next().flatten()).collect();
            let fetched: Vec<Fetched> = futures::stream::iter(
                (first..first + batch.len())
                    .zip(batch.iter().zip(sources))
                    .map(|(i, (work, source))| {
                        self.fetch(plan, &storage, shards.as_ref(), &together, i, work, source)
                    }),
            )
            .buffered(BATCH)
            .try_collect()
            .await?;
            let decode = |(work, fetched): (&mut ChunkWork<'_>, Fetched)| {
                Ok::<_, ArrayError>(match fetched {
                    Fetched::Fill(fill) => {
                        work.fill_with(fill);
                        Filled::Done
                    }
                    Fetched::Zarrs => Filled::ThroughZarrs,
                    Fetched::Stored(encoded, stored) => {
                        let shape: Cow<'_, [NonZeroU64]> = match &plan.shards {
                            Some(sharding) => Cow::Borrowed(sharding.inner_shape()),
                            None => Cow::Owned(array.chunk_shape(&work.indices)?),
                        };
                        work.decode(plan, &shape, &encoded, stored, &chunk_options)
                    }
                })
            };
            let pairs = batch.iter_mut().zip(fetched);
            let filled: Vec<Filled> = if limit <= 1 {
                pairs.map(decode).collect::<Result<_, _>>()?
            } else {
                let pairs: Vec<_> = pairs.collect();
                let per_task = pairs.len().div_ceil(limit);
                parallel::map(pairs, per_task, decode)
                    .into_iter()
                    .collect::<Result<_, _>>()?
            };
            for (i, (work, filled)) in (first..).zip(batch.iter_mut().zip(filled)) {
                if let Filled::ThroughZarrs = filled {
                    self.async_read_through_zarrs(work, shards.as_ref(), i, subset, &chunk_options)
                        .await?;
                }
            }
            first += batch.len();
        }
        Ok(())
    }

    /// What the chunk of `work` (the `i`th of the read) holds: for a sharded array, out of its
    /// shard's index (`source`), or of the ranges fetched `together`.
    #[expect(
        clippy::too_many_arguments,
        reason = "the read's state, passed to each chunk's future"
    )]
    async fn fetch<'a>(
        &'a self,
        plan: &'a Plan,
        storage: &AsyncReadableStorage,
        shards: Option<&'a Shards>,
        together: &Together,
        i: usize,
        work: &ChunkWork<'_>,
        source: Option<Source>,
    ) -> Result<Fetched<'a>, ArrayError> {
        let array = self.array;
        let (Some(sharding), Some(shards), Some(source)) = (&plan.shards, shards, source) else {
            let key = array.chunk_key(&work.indices);
            let shape = array.chunk_shape(&work.indices)?;
            // An uncompressed chunk's elements from the first to the last the read needs; any
            // other chunk whole.
            let (encoded, stored) = match work.stored_part(plan, &shape) {
                Some((range, first)) => match storage.get_partial(&key, range).await {
                    Ok(encoded) => (encoded, Stored::Elements(first)),
                    Err(_) => return Ok(Fetched::Zarrs),
                },
                None => (storage.get(&key).await?, Stored::Whole),
            };
            return Ok(match encoded {
                None => Fetched::Fill(array.fill_value().as_ne_bytes()),
                Some(encoded) => Fetched::Stored(encoded, stored),
            });
        };
        let slot = shards.slots[i];
        let index = &shards.indexes[slot];
        let key = array.chunk_key(&shards.indices[slot]);
        let get = async |range| match together.get(slot, range) {
            Part::With(bytes) => bytes,
            Part::Alone => storage.get_partial(&key, range).await.ok().flatten(),
        };
        Ok(match source {
            Source::Fill => Fetched::Fill(match index {
                ShardIndex::Absent => array.fill_value().as_ne_bytes(),
                _ => sharding.missing.as_deref().expect("checked by `source`"),
            }),
            Source::Zarrs => Fetched::Zarrs,
            Source::Held(encoded) => {
                sharding.keep_blocks(&work.indices, &encoded);
                Fetched::Stored(encoded, Stored::Whole)
            }
            Source::Range(range) => match get(range).await {
                Some(encoded) => {
                    sharding.keep_blocks(&work.indices, &encoded);
                    Fetched::Stored(encoded, Stored::Whole)
                }
                None => Fetched::Zarrs,
            },
            Source::Front(range, stored, needed) => {
                let front = get(range).await.map(|front| {
                    sharding.after_front(&work.indices, (range, stored, needed), &front)
                });
                let ready = match front {
                    Some(AfterFront::Ready(encoded, stored)) => Some((encoded, stored)),
                    Some(AfterFront::More(more, rest)) => {
                        get(more).await.and_then(|more| rest.complete(&more))
                    }
                    Some(AfterFront::Zarrs) | None => None,
                };
                match ready {
                    Some((encoded, stored)) => Fetched::Stored(encoded, stored),
                    None => Fetched::Zarrs,
                }
            }
            Source::Blocks(range, table, within) => {
                match get(range)
                    .await
                    .and_then(|part| table.sparse(within, &[&part]))
                {
                    Some(sparse) => Fetched::Stored(sparse, Stored::Blocks),
                    None => Fetched::Zarrs,
                }
            }
            Source::Elements(range, first) => match get(range).await {
                Some(part) => Fetched::Stored(part, Stored::Elements(first)),
                None => Fetched::Zarrs,
            },
        })
    }

    /// Fills the pieces of `work` (the `i`th of the read of `subset`) through zarrs, which reads
    /// the part of the chunk (or of the shard holding it) again, as its own read of the subset
    /// would: it reports the error, or reads it.
    async fn async_read_through_zarrs(
        &self,
        work: &mut ChunkWork<'_>,
        shards: Option<&Shards>,
        i: usize,
        subset: &ArraySubset,
        options: &CodecOptions,
    ) -> Result<(), ArrayError> {
        let array = self.array;
        let (chunk, region) = match shards {
            Some(shards) => {
                let shard = &shards.indices[shards.slots[i]];
                (shard.clone(), array.chunk_subset(shard)?.overlap(subset)?)
            }
            None => (work.indices.clone(), work.overlap.clone()),
        };
        let bytes: ArrayBytes<'static> = match pieces::zarrs_read(array, &chunk, &region)? {
            None => array.async_retrieve_chunk_opt(&chunk, options).await?,
            Some(within) => {
                array
                    .async_retrieve_chunk_subset_opt(&chunk, &within, options)
                    .await?
            }
        };
        work.copy_from_region(&region, &bytes.into_fixed()?);
        Ok(())
    }
}

/// The shards a read touches, and their indexes.
struct Shards {
    /// Each shard's indices in the array's grid.
    indices: Vec<ArrayIndices>,
    /// Each shard's index (with the whole shard, where the read covers it).
    indexes: Vec<ShardIndex>,
    /// For each chunk of the read, the position of its shard.
    slots: Vec<usize>,
}

impl Shards {
    /// The shards of `works`, each index (or whole shard) fetched once, concurrently.
    async fn fetch<TStorage: ?Sized>(
        array: &Array<TStorage>,
        plan: &Plan,
        sharding: &Sharding,
        storage: &AsyncReadableStorage,
        works: &[ChunkWork<'_>],
        subset: &ArraySubset,
    ) -> Result<Self, ArrayError> {
        let (indices, slots) = shards::shards_of(sharding, works);
        let indexes: Vec<ShardIndex> = futures::stream::iter(indices.iter().map(|shard| {
            let key = array.chunk_key(shard);
            async move {
                Ok::<_, ArrayError>(match sharding.index_from(plan, array, shard, subset)? {
                    IndexFrom::Kept(index) => index,
                    IndexFrom::Shard => sharding.index(shard, storage.get(&key).await, true),
                    IndexFrom::Range => {
                        let stored = storage.get_partial(&key, sharding.index_range).await;
                        sharding.index(shard, stored, false)
                    }
                })
            }
        }))
        .buffered(BATCH)
        .try_collect()
        .await?;
        Ok(Self {
            indices,
            indexes,
            slots,
        })
    }

    /// Where the elements of each inner chunk of `works` come from.
    fn sources(&self, plan: &Plan, sharding: &Sharding, works: &[ChunkWork<'_>]) -> Vec<Source> {
        works
            .iter()
            .zip(&self.slots)
            .map(|(work, &slot)| {
                let source = sharding.source(&self.indexes[slot], &work.indices);
                sharding.narrow(plan, source, work)
            })
            .collect()
    }

    /// The ranges of `sources` (those of the read's works) that follow each other in their
    /// shard, each run of them fetched in one request, concurrently.
    async fn together<TStorage: ?Sized>(
        &self,
        array: &Array<TStorage>,
        storage: &AsyncReadableStorage,
        sources: &[Source],
    ) -> Together {
        let runs = together::runs(self.slots.iter().copied().zip(sources));
        let fetched: Vec<Option<Bytes>> = futures::stream::iter(runs.iter().map(|run| {
            let key = array.chunk_key(&self.indices[run.shard]);
            async move { storage.get_partial(&key, run.range).await.ok().flatten() }
        }))
        .buffered(BATCH)
        .collect()
        .await;
        Together::new(&runs, fetched)
    }
}

/// What a chunk holds, as fetched.
enum Fetched<'a> {
    /// Fill bytes of one element.
    Fill(&'a [u8]),
    /// Its stored bytes, or those of them the read needs.
    Stored(Bytes, Stored),
    /// zarrs reads it.
    Zarrs,
}
