//! The fused read from zarrs' asynchronous stores (feature `async`): chunks fetched concurrently,
//! a batch at a time, and decoded on rayon threads as the synchronous read decodes them.

use std::mem::MaybeUninit;

use futures::{StreamExt, TryStreamExt};
use rayon::prelude::*;
use zarrs::array::{ArrayBytes, ArrayError, ArraySubset, ArraySubsetTraits, CodecOptions, Element};
use zarrs::storage::AsyncReadableStorageTraits;

use super::pieces::{self, ChunkWork, Filled};
use super::{FromFusedRead, FusedReader, Plan, concurrency, element_count, room};
use crate::kernel::as_uninit;

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
        if let Some(plan) = &self.plan {
            // SAFETY: the read writes only initialised bytes (decoded elements, fill values
            // and zarrs' bytes), so `output` stays initialised.
            let slots = unsafe { as_uninit(output) };
            self.async_read_fused(plan, &subset, slots, options).await
        } else {
            let bytes: ArrayBytes<'static> = self
                .array
                .async_retrieve_array_subset_opt(&subset, options)
                .await?;
            output.copy_from_slice(&bytes.into_fixed()?);
            Ok(())
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
        let values = match &self.plan {
            Some(plan) => {
                let mut values = Vec::new();
                let slots = room(&mut values, elements);
                self.async_read_fused(plan, &subset, slots, options).await?;
                // SAFETY: the read succeeded, so it wrote every byte of the room for `elements`
                // elements (the pieces it fills partition it, as `pieces::split` asserts), and
                // every bit pattern is a value of the `Pod` element type.
                unsafe { values.set_len(elements) };
                values
            }
            None => {
                self.array
                    .async_retrieve_array_subset_opt::<Vec<O::Element>>(&subset, options)
                    .await?
            }
        };
        O::from_elements(values, subset.shape())
    }

    async fn async_read_fused(
        &self,
        plan: &Plan,
        subset: &ArraySubset,
        output: &mut [MaybeUninit<u8>],
        options: &CodecOptions,
    ) -> Result<(), ArrayError> {
        let array = self.array;
        let threads = options.concurrent_target();
        let mut works = pieces::split(array, subset, output, plan.kernel.sizes().1, threads)?;
        let (limit, chunk_options) = concurrency(works.len(), options);
        let fill = array.fill_value().as_ne_bytes();
        for batch in works.chunks_mut(BATCH) {
            let encoded: Vec<_> = futures::stream::iter(
                batch
                    .iter()
                    .map(|work| array.async_retrieve_encoded_chunk(&work.indices)),
            )
            .buffered(BATCH)
            .try_collect()
            .await?;
            let decode = |(work, encoded): (&mut ChunkWork<'_>, Option<zarrs::storage::Bytes>)| {
                Ok::<_, ArrayError>(match encoded {
                    None => {
                        work.fill_with(fill);
                        Filled::Done
                    }
                    Some(encoded) => work.decode(plan, array, encoded.into(), &chunk_options)?,
                })
            };
            let pairs = batch.iter_mut().zip(encoded);
            let filled: Vec<Filled> = if limit <= 1 {
                pairs.map(decode).collect::<Result<_, _>>()?
            } else {
                let pairs: Vec<_> = pairs.collect();
                let per_task = pairs.len().div_ceil(limit);
                pairs
                    .into_par_iter()
                    .with_min_len(per_task)
                    .map(decode)
                    .collect::<Result<_, _>>()?
            };
            for (work, filled) in batch.iter_mut().zip(filled) {
                if let Filled::ThroughZarrs = filled {
                    let bytes: ArrayBytes<'static> = array
                        .async_retrieve_chunk_subset_opt(
                            &work.indices,
                            &work.within()?,
                            &chunk_options,
                        )
                        .await?;
                    work.copy_from(&bytes.into_fixed()?);
                }
            }
        }
        Ok(())
    }
}
