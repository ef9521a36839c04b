//! Work split over threads: rayon's pool or, under Miri, scoped threads of the standard library;
//! and fetches kept in flight on threads of their own where they wait on a network.
//!
//! Miri's default model (Stacked Borrows) rejects the epoch-based memory reclamation inside
//! rayon's work stealing (crossbeam-epoch), whatever the work is. Under Miri the same splits run
//! on threads of their own, so that Miri checks the crate's parallel code, data races included.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

/// `f` of every item, in order, the items taken by threads `per_task` (at least) at a time.
pub(crate) fn map<T: Send, R: Send>(
    items: Vec<T>,
    per_task: usize,
    f: impl Fn(T) -> R + Sync + Send,
) -> Vec<R> {
    #[cfg(not(miri))]
    {
        use rayon::prelude::*;
        items
            .into_par_iter()
            .with_min_len(per_task.max(1))
            .map(f)
            .collect()
    }
    #[cfg(miri)]
    {
        let f = &f;
        let mut groups: Vec<Vec<T>> = Vec::new();
        let mut items = items.into_iter().peekable();
        while items.peek().is_some() {
            groups.push(items.by_ref().take(per_task.max(1)).collect());
        }
        std::thread::scope(|scope| {
            let tasks: Vec<_> = groups
                .into_iter()
                .map(|group| scope.spawn(move || group.into_iter().map(f).collect::<Vec<R>>()))
                .collect();
            tasks
                .into_iter()
                .flat_map(|task| task.join().expect("a task finished"))
                .collect()
        })
    }
}

/// `f` of every item (split as [`map`] splits them); the first error in the items' order.
///
/// # Errors
/// The first error of `f`.
pub(crate) fn try_for_each<T: Send, E: Send>(
    items: Vec<T>,
    per_task: usize,
    f: impl Fn(T) -> Result<(), E> + Sync + Send,
) -> Result<(), E> {
    #[cfg(not(miri))]
    {
        use rayon::prelude::*;
        items
            .into_par_iter()
            .with_min_len(per_task.max(1))
            .try_for_each(f)
    }
    #[cfg(miri)]
    {
        map(items, per_task, f).into_iter().collect()
    }
}

/// `f` of every item, in order, at most `limit` at a time (one at a time where `limit` is 1).
pub(crate) fn map_limited<T: Send, R: Send>(
    items: Vec<T>,
    limit: usize,
    f: impl Fn(T) -> R + Sync + Send,
) -> Vec<R> {
    if limit <= 1 || items.len() <= 1 {
        items.into_iter().map(f).collect()
    } else {
        let per_task = items.len().div_ceil(limit);
        map(items, per_task, f)
    }
}

/// The number of items to work on at once and the codec options of each: as many as the
/// concurrent target allows (at least zarrs' chunk concurrent minimum), the rest of the target
/// going to the work inside each, where there are fewer items than that.
pub(crate) fn concurrency(
    items: usize,
    options: &zarrs::array::CodecOptions,
) -> (usize, zarrs::array::CodecOptions) {
    let (target, items) = (options.concurrent_target().max(1), items.max(1));
    let outer = target
        .min(items)
        .max(options.chunk_concurrent_minimum().min(items));
    (
        outer,
        options.with_concurrent_target(target.div_ceil(outer)),
    )
}

/// Items fetched at once once fetches are slow ([`in_flight`]): requests to a store across a
/// network, more where there are more threads.
const IN_FLIGHT: usize = 16;

/// A fetch that takes this long or more shows a store across a network (an object store, an HTTP
/// server), and the rest go [`IN_FLIGHT`] at a time ([`in_flight`]).
const SLOW: Duration = Duration::from_millis(5);

/// Fetches every item with `fetch` and hands each answer to `answer`, up to `workers` items at
/// once on rayon's threads, each worker taking the items of its own contiguous share first (as
/// [`map_limited`] shares them) and then those other workers have not reached; once a fetch of
/// the read took [`SLOW`] or more (`slow`), up to [`IN_FLIGHT`] items are fetched at once
/// altogether, the others by threads of their own, which take items from the far ends of the
/// shares and whose answers rayon's threads take as they come.
pub(crate) fn in_flight<T: Send, A: Send>(
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
    // The workers' shares, contiguous, in order.
    let per_share = items.len().div_ceil(workers).max(1);
    let mut items = items.into_iter();
    let shares: Vec<Mutex<std::vec::IntoIter<T>>> = (0..workers)
        .map(|_| {
            Mutex::new(
                items
                    .by_ref()
                    .take(per_share)
                    .collect::<Vec<_>>()
                    .into_iter(),
            )
        })
        .collect();
    // The next item of share `own`, else of the shares after it (from their far ends where
    // `from_back`).
    let take = |own: usize, from_back: bool| {
        (0..workers).find_map(|k| {
            let mut share = shares[(own + k) % workers].lock().ok()?;
            if from_back {
                share.next_back()
            } else {
                share.next()
            }
        })
    };
    let (send, receive) = mpsc::sync_channel::<(T, A)>(helpers);
    let (send, receive) = (Mutex::new(Some(send)), Mutex::new(receive));
    std::thread::scope(|scope| {
        // The helpers, where there would be any, the first time a worker sees the read is slow.
        let helping = || {
            let Some(send) = send.lock().ok()?.take() else {
                return Some(());
            };
            for helper in 0..helpers {
                let send = send.clone();
                scope.spawn(move || {
                    while let Some(item) = take(helper % workers, true) {
                        if send.send(timed(item)).is_err() {
                            break;
                        }
                    }
                });
            }
            Some(())
        };
        // Each worker: what the helpers fetched first, then an item of its own, then, once the
        // items are all taken, what the helpers still bring.
        let work = |own: usize| loop {
            let helped = helpers > 0 && slow.load(Ordering::Relaxed) && helping().is_some();
            let next = receive.lock().ok().and_then(|r| r.try_recv().ok());
            let next = match next.or_else(|| take(own, false).map(timed)) {
                None if helped => receive.lock().ok().and_then(|r| r.recv().ok()),
                next => next,
            };
            let Some((item, answered)) = next else { break };
            answer(item, answered);
        };
        map_limited((0..workers).collect(), workers, work);
    });
}

#[cfg(test)]
mod tests {
    use zarrs::array::CodecOptions;

    #[test]
    fn items_take_the_threads_first_and_large_items_the_rest() {
        let split = |items, threads| {
            let options = CodecOptions::default().with_concurrent_target(threads);
            let (outer, inner) = super::concurrency(items, &options);
            (outer, inner.concurrent_target())
        };
        assert_eq!(split(256, 16), (16, 1));
        assert_eq!(split(5, 16), (5, 4));
        assert_eq!(split(1, 16), (1, 16));
        // At least zarrs' chunk concurrent minimum (4) of chunks at once, as zarrs reads them.
        assert_eq!(split(16, 1), (4, 1));
        assert_eq!(split(2, 1), (2, 1));
        assert_eq!(split(0, 8), (1, 8));
    }
}
