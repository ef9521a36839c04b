//! The drivers of a read's rounds ([`super::plan`]): each round's requests all at once, the
//! synchronous one on threads, the asynchronous one as concurrent futures; each answer decoded on
//! rayon's threads as it comes in; then the chunks zarrs must read, each read once.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use zarrs::array::{Array, ArrayBytes, ArrayError, ArrayIndices, ArraySubset, CodecOptions};
use zarrs::storage::{ReadableStorage, ReadableStorageTraits, StorageHandle};

use super::layout::Layout;
use super::output::ChunkWork;
use super::plan::{self, Context, Fetch, Outcome};
use super::{Fallback, FusedReader, ReadReport};
use crate::kernel::driver::Output;
use crate::parallel;

/// Requests a synchronous read from a store across a network keeps in flight, where a round has
/// that many (more where the read has more threads): those past the read's threads are sent by
/// threads of their own.
const IN_FLIGHT: usize = 16;

/// A request that takes this long or more shows a store across a network (an object store, an
/// HTTP server): the rest of the read's requests are sent [`IN_FLIGHT`] at a time.
const SLOW: Duration = Duration::from_millis(5);

/// Requests an asynchronous read keeps in flight.
#[cfg(feature = "async")]
const ASYNC_IN_FLIGHT: usize = 64;

/// A read's rounds: what comes next, and what it did.
struct Rounds<'o> {
    outcome: Outcome<'o>,
    report: ReadReport,
    zarrs: Vec<(ChunkWork<'o>, Fallback)>,
}

/// The chunks zarrs reads: each chunk of the array's grid (a shard), the region of it zarrs reads
/// (its overlap with the read) and within it where that is not the whole chunk, and the works it
/// fills.
type ZarrsReads<'o> = Vec<(
    ArrayIndices,
    ArraySubset,
    Option<ArraySubset>,
    Vec<ChunkWork<'o>>,
)>;

impl<'o> Rounds<'o> {
    /// The next round's requests, with how many answers to read at once and the options of each;
    /// none where the read is done.
    fn next(
        &mut self,
        sharded: bool,
        options: &CodecOptions,
    ) -> Option<(Vec<Fetch<'o>>, usize, CodecOptions)> {
        let outcome = &mut self.outcome;
        self.report.decoded += std::mem::take(&mut outcome.decoded);
        self.report.filled += std::mem::take(&mut outcome.filled);
        self.zarrs.append(&mut outcome.zarrs);
        // Only a shard's inner chunks are ranges of one value.
        let next = std::mem::take(&mut outcome.next);
        let round = if sharded { plan::coalesce(next) } else { next };
        if round.is_empty() {
            return None;
        }
        (self.report.rounds, self.report.requests) =
            (self.report.rounds + 1, self.report.requests + round.len());
        let (limit, inner) = parallel::concurrency(round.len(), options);
        Some((round, limit, inner))
    }

    /// What the read did, and what zarrs must read of `array` for it: the chunks of its grid
    /// holding the works left to zarrs, counted by their reasons.
    fn finish<TStorage: ?Sized>(
        self,
        array: &Array<TStorage>,
        layout: &Layout,
        subset: &ArraySubset,
    ) -> Result<(ReadReport, ZarrsReads<'o>), ArrayError> {
        let mut report = self.report;
        let (mut chunks, mut reasons) = (BTreeMap::<_, Vec<_>>::new(), BTreeMap::new());
        for (work, reason) in self.zarrs {
            *reasons.entry(reason).or_default() += 1;
            let chunk = match &layout.shards {
                Some(sharding) => sharding.shard_of(&work.indices),
                None => work.indices.clone(),
            };
            chunks.entry(chunk).or_default().push(work);
        }
        report.through_zarrs.extend(reasons);
        let reads = chunks.into_iter().map(|(chunk, works)| {
            let whole = array.chunk_subset(&chunk)?;
            let region = whole.overlap(subset)?;
            let within = (region != whole)
                .then(|| region.relative_to(whole.start()))
                .transpose()?;
            Ok((chunk, region, within, works))
        });
        Ok((report, reads.collect::<Result<_, ArrayError>>()?))
    }
}

impl<TStorage: ?Sized> FusedReader<'_, TStorage> {
    /// The first round of a read of `subset` into `output`, and what answers are read with.
    fn rounds<'o>(
        &self,
        layout: &Layout,
        subset: &ArraySubset,
        output: Output<'o>,
        options: &CodecOptions,
    ) -> Result<Rounds<'o>, ArrayError> {
        let outcome = plan::start(self.array, &self.context(layout, options), subset, output)?;
        Ok(Rounds {
            outcome,
            report: ReadReport::default(),
            zarrs: Vec::new(),
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
    /// Reads `subset` into `output` through `layout`, round by round.
    pub(super) fn read_fused(
        &self,
        layout: &Layout,
        subset: &ArraySubset,
        output: Output<'_>,
        options: &CodecOptions,
    ) -> Result<ReadReport, ArrayError> {
        let array = self.array;
        let handle = Arc::new(StorageHandle::new(array.storage()));
        let storage: ReadableStorage = array
            .storage_transformers()
            .create_readable_transformer(handle)?;
        let (mut rounds, slow) = (
            self.rounds(layout, subset, output, options)?,
            AtomicBool::new(false),
        );
        while let Some((round, limit, inner)) = rounds.next(layout.shards.is_some(), options) {
            let (context, next) = (self.context(layout, &inner), Mutex::new(Outcome::default()));
            let fetch = |fetch: &Fetch<'_>| match fetch.range {
                None => storage.get(&fetch.key),
                Some(range) => storage.get_partial(&fetch.key, range),
            };
            in_flight(round, limit, &slow, fetch, |fetch, answer| {
                let outcome = fetch.answer(answer, &context);
                next.lock().expect("no answer panicked").merge(outcome);
            });
            rounds.outcome = next.into_inner().expect("no answer panicked");
        }
        let (report, reads) = rounds.finish(array, layout, subset)?;
        for (chunk, region, within, mut works) in reads {
            let bytes: ArrayBytes<'static> = match within {
                None => array.retrieve_chunk_opt(&chunk, options)?,
                Some(within) => array.retrieve_chunk_subset_opt(&chunk, &within, options)?,
            };
            let bytes = bytes.into_fixed()?;
            for work in &mut works {
                work.copy_from_region(&region, &bytes);
            }
        }
        Ok(report)
    }
}

/// Fetches every item with `fetch` and hands each answer to `answer`, up to `workers` items at
/// once on rayon's threads; once a fetch of the read took [`SLOW`] or more (`slow`), up to
/// [`IN_FLIGHT`] items are fetched at once altogether, the others by threads of their own, whose
/// answers rayon's threads take as they come.
fn in_flight<T: Send, A: Send>(
    items: Vec<T>,
    workers: usize,
    slow: &AtomicBool,
    fetch: impl Fn(&T) -> A + Sync,
    answer: impl Fn(T, A) + Sync,
) {
    let workers = workers.clamp(1, items.len().max(1));
    let helpers = IN_FLIGHT.saturating_sub(workers).min(items.len() - workers);
    let timed = |item: T| {
        let start = Instant::now();
        let answered = fetch(&item);
        if start.elapsed() >= SLOW {
            slow.store(true, Ordering::Relaxed);
        }
        (item, answered)
    };
    let queue = Mutex::new(items.into_iter());
    let take = || queue.lock().ok()?.next();
    if helpers == 0 {
        let work = |_| {
            while let Some((item, answered)) = take().map(timed) {
                answer(item, answered);
            }
        };
        parallel::map_limited((0..workers).collect(), workers, work);
        return;
    }
    let (send, receive) = mpsc::sync_channel::<(T, A)>(helpers);
    let (send, receive) = (Mutex::new(Some(send)), Mutex::new(receive));
    std::thread::scope(|scope| {
        // The helpers, the first time a worker sees the read is slow.
        let started = || {
            let Some(send) = send.lock().ok()?.take() else {
                return Some(true);
            };
            for _ in 0..helpers {
                let send = send.clone();
                scope.spawn(move || {
                    while let Some(item) = take() {
                        if send.send(timed(item)).is_err() {
                            break;
                        }
                    }
                });
            }
            Some(true)
        };
        // Each worker: what the helpers fetched first, then an item of its own, then, once the
        // items are all taken, what the helpers still bring.
        let work = |_| loop {
            let helping = slow.load(Ordering::Relaxed) && started().is_some();
            let next = receive.lock().ok().and_then(|r| r.try_recv().ok());
            let next = next.or_else(|| take().map(timed));
            let next = match next {
                Some(next) => Some(next),
                None if helping => receive.lock().ok().and_then(|r| r.recv().ok()),
                None => None,
            };
            let Some((item, answered)) = next else { break };
            answer(item, answered);
        };
        parallel::map_limited((0..workers).collect(), workers, work);
    });
}

#[cfg(feature = "async")]
mod asynchronous {
    use futures::StreamExt;
    use zarrs::storage::{AsyncReadableStorage, AsyncReadableStorageTraits};

    use super::{ASYNC_IN_FLIGHT, Arc, ArrayBytes, ArrayError, ArraySubset, CodecOptions};
    use super::{Context, Fetch, FusedReader, Layout, Outcome, Output, ReadReport};
    use super::{StorageHandle, parallel};

    impl<TStorage: ?Sized + AsyncReadableStorageTraits + 'static> FusedReader<'_, TStorage> {
        /// [`FusedReader::read_fused`] from an asynchronous store.
        pub(in crate::read) async fn async_read_fused(
            &self,
            layout: &Layout,
            subset: &ArraySubset,
            output: Output<'_>,
            options: &CodecOptions,
        ) -> Result<ReadReport, ArrayError> {
            let array = self.array;
            let handle = Arc::new(StorageHandle::new(array.storage()));
            let transformers = array.storage_transformers();
            let storage = transformers
                .create_async_readable_transformer(handle)
                .await?;
            let mut rounds = self.rounds(layout, subset, output, options)?;
            while let Some((round, limit, inner)) = rounds.next(layout.shards.is_some(), options) {
                let context = self.context(layout, &inner);
                rounds.outcome = in_flight(round, limit, &storage, &context).await;
            }
            let (report, reads) = rounds.finish(array, layout, subset)?;
            for (chunk, region, within, mut works) in reads {
                let bytes: ArrayBytes<'static> = match within {
                    None => array.async_retrieve_chunk_opt(&chunk, options).await?,
                    Some(within) => {
                        array
                            .async_retrieve_chunk_subset_opt(&chunk, &within, options)
                            .await?
                    }
                };
                let bytes = bytes.into_fixed()?;
                for work in &mut works {
                    work.copy_from_region(&region, &bytes);
                }
            }
            Ok(report)
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
            let answers = parallel::map_limited(batch, limit, |(f, a)| f.answer(a, context));
            for one in answers {
                outcome.merge(one);
            }
        }
        outcome
    }
}
