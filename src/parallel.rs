//! Work split over threads: rayon's pool or, under Miri, scoped threads of the standard library.
//!
//! Miri's default model (Stacked Borrows) rejects the epoch-based memory reclamation inside
//! rayon's work stealing (crossbeam-epoch), whatever the work is. Under Miri the same splits run
//! on threads of their own, so that Miri checks the crate's parallel code, data races included.

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
