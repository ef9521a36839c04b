//! The drivers of a read's rounds ([`super::plan`]): each round's requests all at once, the
//! synchronous one on threads, the asynchronous one as concurrent futures, each answer decoded on
//! rayon's threads as it comes in; then the chunks zarrs must read; and what the read did.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use unsafe_cell_slice::UnsafeCellSlice;
use zarrs::array::{
    Array, ArrayBytes, ArrayBytesDecodeIntoTarget, ArrayBytesFixedDisjointView, ArrayError,
    ArraySubset, CodecOptions,
};
use zarrs::storage::{ReadableStorage, ReadableStorageTraits, StorageHandle};

use super::layout::{Layout, Unfused};
use super::output::ChunkWork;
use super::plan::{self, Context, Fetch, Outcome};
use super::{FusedReader, element_count};
use crate::engine::blockwise::Output;
use crate::parallel;
use zarrs::array::{ArraySubsetTraits, Element};

/// Requests an asynchronous read keeps in flight.
#[cfg(feature = "async")]
const ASYNC_IN_FLIGHT: usize = 64;

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

/// What zarrs reads: regions of the array, and the chunks (inner chunks) each fills.
type ZarrsReads<'o> = Vec<(ArraySubset, Vec<ChunkWork<'o>>)>;

/// A read's rounds: what comes next, and what it did.
struct Rounds<'o> {
    outcome: Outcome<'o>,
    report: ReadReport,
    zarrs: Vec<(ChunkWork<'o>, Fallback)>,
}

impl<'o> Rounds<'o> {
    /// The next round's requests, with how many answers to read at once and the options of each;
    /// none where the read is done.
    fn next(&mut self, options: &CodecOptions) -> Option<(Vec<Fetch<'o>>, usize, CodecOptions)> {
        let outcome = &mut self.outcome;
        self.report.decoded += std::mem::take(&mut outcome.decoded);
        self.report.filled += std::mem::take(&mut outcome.filled);
        self.zarrs.append(&mut outcome.zarrs);
        let round = std::mem::take(&mut outcome.next);
        self.report.rounds += usize::from(!round.is_empty());
        self.report.requests += round.len();
        let (limit, inner) = parallel::concurrency(round.len(), options);
        (!round.is_empty()).then_some((round, limit, inner))
    }

    /// What the read did, and what zarrs reads of `array` for it: the region each chunk (shard)
    /// of the array's grid shares with `subset`, as zarrs' own read of the subset reads it (and
    /// fails where it fails), for the chunks (inner chunks) left to it.
    fn finish<T: ?Sized>(
        self,
        array: &Array<T>,
        layout: &Layout,
        subset: &ArraySubset,
    ) -> Result<(ReadReport, ZarrsReads<'o>), ArrayError> {
        let (mut report, mut reasons, mut chunks) = (self.report, BTreeMap::new(), BTreeMap::new());
        for (work, reason) in self.zarrs {
            *reasons.entry(reason).or_default() += 1;
            let (shards, indices) = (layout.shards.as_ref(), &work.indices);
            let chunk = shards.map_or_else(|| indices.clone(), |s| s.shard_of(indices));
            chunks.entry(chunk).or_insert_with(Vec::new).push(work);
        }
        report.through_zarrs.extend(reasons);
        let regions = chunks
            .into_iter()
            .map(|(chunk, works)| Ok((array.chunk_subset(&chunk)?.overlap(subset)?, works)));
        Ok((report, regions.collect::<Result<_, ArrayError>>()?))
    }
}

impl<TStorage: ?Sized> FusedReader<'_, TStorage> {
    /// The first round of a read of `subset` into `output` or, without one, of fetching the
    /// indexes of the shards `subset` meets that the reader does not keep.
    fn rounds<'o>(
        &self,
        layout: &Layout,
        subset: &ArraySubset,
        output: Option<Output<'o>>,
        options: &CodecOptions,
    ) -> Result<Rounds<'o>, ArrayError> {
        let context = self.context(layout, options);
        let outcome = match output {
            Some(output) => plan::start(self.array, &context, subset, output)?,
            None => plan::indexes(self.array, &context, subset)?,
        };
        Ok(Rounds {
            outcome,
            report: ReadReport::default(),
            zarrs: Vec::new(),
        })
    }

    /// The subset of a read, checked against the element type `T`, the output's length and the
    /// array; and the fused layout where it reads the subset itself, else why zarrs reads it.
    pub(super) fn route<T: Element>(
        &self,
        subset: &dyn ArraySubsetTraits,
        len: usize,
    ) -> Result<(ArraySubset, Result<&Layout, Fallback>), ArrayError> {
        T::validate_data_type(self.array.data_type())?;
        let subset = self.indexed(subset)?;
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

    /// `subset`, checked to have the array's dimensionality.
    pub(super) fn indexed(
        &self,
        subset: &dyn ArraySubsetTraits,
    ) -> Result<ArraySubset, ArrayError> {
        let subset = subset.to_array_subset();
        if subset.dimensionality() == self.array.dimensionality() {
            Ok(subset)
        } else {
            let shape = self.array.shape().to_vec();
            Err(ArrayError::InvalidArraySubset(subset, shape))
        }
    }

    /// The report of a read that went through zarrs as a whole, for `reason`.
    pub(super) fn through_zarrs(
        &self,
        subset: &ArraySubset,
        reason: Fallback,
    ) -> Result<ReadReport, ArrayError> {
        let chunks = match reason {
            Fallback::EmptySubset => None,
            _ => self.array.chunks_in_array_subset(subset)?,
        };
        let chunks = chunks.map_or(0, |chunks| chunks.num_elements_usize());
        Ok(ReadReport {
            through_zarrs: vec![(reason, chunks)],
            ..ReadReport::default()
        })
    }

    /// What answers are read with, on `options`.
    fn context<'r>(&'r self, layout: &'r Layout, options: &CodecOptions) -> Context<'r> {
        let fill = self.array.fill_value().as_ne_bytes();
        Context {
            layout,
            kept: self.kept.as_ref(),
            fill,
            options: *options,
        }
    }
}

impl<TStorage: ?Sized + ReadableStorageTraits + 'static> FusedReader<'_, TStorage> {
    /// Reads `subset` into `output` through `layout`, round by round (without an output, fetches
    /// the indexes [`plan::indexes`] names).
    pub(super) fn read_fused(
        &self,
        layout: &Layout,
        subset: &ArraySubset,
        output: Option<Output<'_>>,
        options: &CodecOptions,
    ) -> Result<ReadReport, ArrayError> {
        let array: &Array<TStorage> = self.array;
        let handle = Arc::new(StorageHandle::new(array.storage()));
        let storage: ReadableStorage = array
            .storage_transformers()
            .create_readable_transformer(handle)?;
        let mut rounds = self.rounds(layout, subset, output, options)?;
        let slow = AtomicBool::new(false);
        while let Some((round, limit, inner)) = rounds.next(options) {
            let (context, next) = (self.context(layout, &inner), Mutex::new(Outcome::default()));
            let fetch = |fetch: &Fetch<'_>| match fetch.range {
                None => storage.get(&fetch.key),
                Some(range) => storage.get_partial(&fetch.key, range),
            };
            parallel::in_flight(round, limit, &slow, fetch, |fetch, answer| {
                let outcome = fetch.answer(answer, &context);
                next.lock().expect("no answer panicked").merge(outcome);
            });
            rounds.outcome = next.into_inner().expect("no answer panicked");
        }
        let (report, reads) = rounds.finish(array, layout, subset)?;
        for (region, mut works) in reads {
            let bytes: ArrayBytes<'_> = array.retrieve_array_subset_opt(&region, options)?;
            let bytes = bytes.into_fixed()?;
            for work in &mut works {
                work.copy_from_region(&region, &bytes);
            }
        }
        Ok(report)
    }

    /// Reads `subset` into `output` through zarrs' own read.
    pub(super) fn read_unfused(
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
mod asynchronous {
    use futures::StreamExt;
    use zarrs::storage::{AsyncReadableStorage, AsyncReadableStorageTraits};

    use super::{ASYNC_IN_FLIGHT, Arc, ArrayError, ArraySubset, CodecOptions, Context, Fetch};
    use super::{ArrayBytes, ArrayBytesDecodeIntoTarget, parallel, view_of};
    use super::{FusedReader, Layout, Outcome, Output, ReadReport, StorageHandle};

    impl<TStorage: ?Sized + AsyncReadableStorageTraits + 'static> FusedReader<'_, TStorage> {
        /// [`FusedReader::read_fused`] from an asynchronous store.
        pub(in crate::read) async fn async_read_fused(
            &self,
            layout: &Layout,
            subset: &ArraySubset,
            output: Option<Output<'_>>,
            options: &CodecOptions,
        ) -> Result<ReadReport, ArrayError> {
            let array = self.array;
            let handle = Arc::new(StorageHandle::new(array.storage()));
            let transformers = array.storage_transformers();
            let storage = transformers
                .create_async_readable_transformer(handle)
                .await?;
            let mut rounds = self.rounds(layout, subset, output, options)?;
            while let Some((round, limit, inner)) = rounds.next(options) {
                let context = self.context(layout, &inner);
                rounds.outcome = in_flight(round, limit, &storage, &context).await;
            }
            let (report, reads) = rounds.finish(array, layout, subset)?;
            for (region, mut works) in reads {
                let read = array.async_retrieve_array_subset_opt(&region, options);
                let bytes: ArrayBytes<'_> = read.await?;
                let bytes = bytes.into_fixed()?;
                for work in &mut works {
                    work.copy_from_region(&region, &bytes);
                }
            }
            Ok(report)
        }

        /// Reads `subset` into `output` through zarrs' own asynchronous read.
        pub(in crate::read) async fn async_read_unfused(
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

    /// The answers to `round`, [`ASYNC_IN_FLIGHT`] requests in flight at once, read `limit` at a
    /// time on rayon's threads as they come in.
    async fn in_flight<'o>(
        round: Vec<Fetch<'o>>,
        limit: usize,
        storage: &AsyncReadableStorage,
        context: &Context<'_>,
    ) -> Outcome<'o> {
        let fetch = async |fetch: Fetch<'o>| {
            let answer = match fetch.range {
                None => storage.get(&fetch.key).await,
                Some(range) => storage.get_partial(&fetch.key, range).await,
            };
            (fetch, answer)
        };
        let mut answers = futures::stream::iter(round)
            .map(fetch)
            .buffer_unordered(ASYNC_IN_FLIGHT);
        let mut outcome = Outcome::default();
        while let Some(first) = answers.next().await {
            // `limit` answers (or the last) decoded at once, while the others come in.
            let mut batch = vec![first];
            while batch.len() < limit
                && let Some(answer) = answers.next().await
            {
                batch.push(answer);
            }
            for one in parallel::map_limited(batch, limit, |(f, a)| f.answer(a, context)) {
                outcome.merge(one);
            }
        }
        outcome
    }
}

/// `output`, the elements of `subset` in C order, as a target of zarrs' reads into a buffer.
pub(super) fn view_of<'a>(
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
