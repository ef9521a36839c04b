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
