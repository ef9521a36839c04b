//! A read as rounds of requests, planned without I/O: the first round (each chunk, or each
//! shard's index or whole shard), and what each answer becomes (the fill value, a decode into the
//! chunk's pieces of the output, or the next round's requests: inner chunks once an index is in,
//! the rest of a Blosc chunk once its front is in). The drivers ([`super::drive`]) send each
//! round at once, so synchronous and asynchronous reads make the same requests.
//!
//! A shard's ranges at most [`GAP`] bytes apart go in one request: zarr-python writes inner
//! chunks in Morton order, so a window's chunks often lie end to end, and a request costs an
//! object store far more than some bytes.

use std::collections::BTreeMap;
use std::sync::Arc;

use zarrs::array::{Array, ArrayError, ArrayIndices, ArraySubset, CodecOptions};
use zarrs::storage::byte_range::ByteRange;
use zarrs::storage::{Bytes, StorageError, StoreKey};

use super::Fallback;
use super::blosc::{self, BlockTable};
use super::decode::{Part, Stored, chunk_range, decode};
use super::layout::{Layout, stored_part};
use super::output::{ChunkWork, split, stagger};
use super::shard::{Entry, Kept};
use crate::engine::blockwise::Output;
use crate::parallel;

/// The most bytes between two ranges of a shard asked for in one request (those in the gap are
/// fetched and left).
const GAP: u64 = 4096;

/// One request of a round, and what its answer becomes.
pub(super) struct Fetch<'o> {
    /// The value asked for.
    pub(super) key: StoreKey,
    /// The bytes of it asked for; `None` for all of them.
    pub(super) range: Option<ByteRange>,
    then: Then<'o>,
}

enum Then<'o> {
    /// A shard's index (or, where `true`, the whole shard): where its inner chunks' bytes lie.
    Shard(ArrayIndices, bool, Vec<ChunkWork<'o>>),
    /// Chunks' stored bytes, or parts of them.
    Chunks(Vec<Piece<'o>>),
}

/// A chunk's bytes in an answer: their first byte and length (at most: to the answer's end), the
/// chunk, and what they are.
type Piece<'o> = (usize, usize, ChunkWork<'o>, Part);

/// What answers came to: the next round's requests, the counts, and the chunks zarrs must read.
#[derive(Default)]
pub(super) struct Outcome<'o> {
    pub(super) next: Vec<Fetch<'o>>,
    pub(super) zarrs: Vec<(ChunkWork<'o>, Fallback)>,
    pub(super) decoded: usize,
    pub(super) filled: usize,
}

/// What answers are read with.
pub(super) struct Context<'a> {
    pub(super) layout: &'a Layout,
    pub(super) kept: Option<&'a Kept>,
    /// The array's fill value (one element).
    pub(super) fill: &'a [u8],
    /// The codec options of one answer's decodes (its share of the threads).
    pub(super) options: CodecOptions,
}

impl<'o> Outcome<'o> {
    pub(super) fn merge(&mut self, other: Self) {
        self.next.extend(other.next);
        self.zarrs.extend(other.zarrs);
        (self.decoded, self.filled) = (self.decoded + other.decoded, self.filled + other.filled);
    }

    fn fill(&mut self, mut work: ChunkWork<'o>, fill: &[u8]) {
        work.fill_with(fill);
        self.filled += 1;
    }

    /// A request for a chunk's bytes (the first byte and length of `key` it asks for; all of them
    /// where `None`), which are `part`.
    fn fetch(&mut self, key: &StoreKey, at: Option<(u64, u64)>, work: ChunkWork<'o>, part: Part) {
        let range = at.map(|(start, len)| ByteRange::FromStart(start, Some(len)));
        let then = Then::Chunks(vec![(0, usize::MAX, work, part)]);
        self.next.push(Fetch::new(key, range, then));
    }
}

impl<'o> Fetch<'o> {
    fn new(key: &StoreKey, range: Option<ByteRange>, then: Then<'o>) -> Self {
        let key = key.clone();
        Self { key, range, then }
    }
}

/// The read of `subset` of `array` into `output`: its first round of requests, and the chunks it
/// fills without any (those of shards whose index the reader kept ask for their ranges).
///
/// # Errors
/// Where the subset is not within the chunk grid.
pub(super) fn start<'o, TStorage: ?Sized>(
    array: &Array<TStorage>,
    context: &Context<'_>,
    subset: &ArraySubset,
    output: Output<'o>,
) -> Result<Outcome<'o>, ArrayError> {
    let layout = context.layout;
    let (out_size, threads) = (layout.kernel.sizes().1, context.options.concurrent_target());
    let mut outcome = Outcome::default();
    let Some(sharding) = &layout.shards else {
        let mut works = split(&***array.chunk_grid(), subset, output, out_size, threads)?;
        stagger(&mut works, |indices| indices.last().copied().unwrap_or(0));
        for work in works {
            let (range, stored) = match stored_part(layout, &work, None) {
                Some((start, len, first)) => (Some((start, len)), Stored::Elements(first)),
                None => (None, Stored::Whole),
            };
            let key = array.chunk_key(&work.indices);
            outcome.fetch(&key, range, work, Part::Bytes(stored, Bytes::new()));
        }
        return Ok(outcome);
    };
    let mut works = split(&sharding.grid, subset, output, out_size, threads)?;
    stagger(&mut works, |at| {
        sharding.shard_of(at).last().copied().unwrap_or(0)
    });
    // By shard, in C order: the order in which the works meet them.
    let mut shards: BTreeMap<ArrayIndices, Vec<_>> = BTreeMap::new();
    for work in works {
        let shard = sharding.shard_of(&work.indices);
        shards.entry(shard).or_default().push(work);
    }
    for (shard, works) in shards {
        let (key, region) = (array.chunk_key(&shard), array.chunk_subset(&shard)?);
        let whole = |compressed| sharding.whole(&region, subset, array.shape(), compressed);
        match context.kept.and_then(|kept| kept.index(&shard)) {
            Some(entries) if !whole(false) => {
                outcome.merge(in_shard(&key, &shard, &entries, None, works, context));
            }
            _ => {
                let whole = whole(layout.compressed());
                let range = (!whole).then_some(sharding.index_range);
                let then = Then::Shard(shard, whole, works);
                outcome.next.push(Fetch { key, range, then });
            }
        }
    }
    Ok(outcome)
}

/// The requests for the index of each shard `subset` meets that the reader does not keep, one
/// round of them.
///
/// # Errors
/// Where the subset is not within the array's grid of shards.
pub(super) fn indexes<'o, TStorage: ?Sized>(
    array: &Array<TStorage>,
    context: &Context<'_>,
    subset: &ArraySubset,
) -> Result<Outcome<'o>, ArrayError> {
    let mut outcome = Outcome::default();
    let (Some(sharding), Some(kept)) = (&context.layout.shards, context.kept) else {
        return Ok(outcome);
    };
    let outside = || ArrayError::InvalidArraySubset(subset.clone(), array.shape().to_vec());
    let shards = array.chunks_in_array_subset(subset)?.ok_or_else(outside)?;
    for shard in &shards.indices() {
        if kept.index(&shard).is_none() {
            let then = Then::Shard(shard.to_vec(), false, Vec::new());
            let range = Some(sharding.index_range);
            outcome
                .next
                .push(Fetch::new(&array.chunk_key(&shard), range, then));
        }
    }
    Ok(outcome)
}

/// What `works`, the inner chunks a read needs of the shard at `shard` (of `key`), become by the
/// shard's index `entries`: the fill value, a decode of the chunk out of the shard where the read
/// `held` it whole, or a request for its range, those that follow each other in one.
fn in_shard<'o>(
    key: &StoreKey,
    shard: &[u64],
    entries: &[u64],
    held: Option<&Bytes>,
    works: Vec<ChunkWork<'o>>,
    context: &Context<'_>,
) -> Outcome<'o> {
    let (layout, mut outcome) = (context.layout, Outcome::default());
    let sharding = layout.shards.as_ref().expect("a sharded array");
    let (mut decodes, mut ranges) = (Vec::new(), Vec::new());
    for work in works {
        match (
            sharding.entry(entries, &work.indices, held.map(|held| held.len() as u64)),
            held,
        ) {
            (Entry::Missing, _) => match &sharding.missing {
                Ok(fill) => outcome.fill(work, fill),
                Err(reason) => outcome.zarrs.push((work, reason.clone())),
            },
            (Entry::Outside, _) => outcome.zarrs.push((work, Fallback::ChunkEntry)),
            (Entry::At(offset, size), Some(held)) => {
                let bytes = held.slice(to_usize(offset)..to_usize(offset + size));
                decodes.push((work, Part::Bytes(Stored::Whole, Bytes::new()), bytes));
            }
            (Entry::At(offset, size), None) => {
                let (start, len, part) =
                    chunk_range(layout, context.kept, shard, &work, (offset, size));
                ranges.push((start, len, work, part));
            }
        }
    }
    // The ranges by their start, those that follow each other (not overlapping) in one request.
    ranges.sort_by_key(|&(start, ..)| start);
    let mut runs: Vec<(u64, u64, Vec<Piece<'o>>)> = Vec::new();
    for (start, len, work, part) in ranges {
        match runs.last_mut() {
            Some((first, end, parts)) if start >= *end && start - *end <= GAP => {
                parts.push((to_usize(start - *first), to_usize(len), work, part));
                *end = start + len;
            }
            _ => runs.push((start, start + len, vec![(0, to_usize(len), work, part)])),
        }
    }
    for (first, end, parts) in runs {
        let range = ByteRange::FromStart(first, Some(end - first));
        outcome
            .next
            .push(Fetch::new(key, Some(range), Then::Chunks(parts)));
    }
    outcome.merge(each(decodes, context, |(work, part, bytes), context| {
        answer_chunk(key, work, part, Some(bytes), context)
    }));
    outcome
}

/// `f` of each item, on as many threads as `context` allows, the outcomes merged.
fn each<'o, T: Send>(
    items: Vec<T>,
    context: &Context<'_>,
    f: impl Fn(T, &Context<'_>) -> Outcome<'o> + Sync,
) -> Outcome<'o> {
    let (limit, options) = parallel::concurrency(items.len(), &context.options);
    let context = Context {
        options,
        ..*context
    };
    let mut outcome = Outcome::default();
    for one in parallel::map_limited(items, limit, |item| f(item, &context)) {
        outcome.merge(one);
    }
    outcome
}

impl<'o> Fetch<'o> {
    /// What the answer `bytes` (`None`: the store has no such value) becomes; where the store
    /// answered with an error, zarrs reads the chunks, and reports what the store answers it.
    pub(super) fn answer(
        self,
        bytes: Result<Option<Bytes>, StorageError>,
        context: &Context<'_>,
    ) -> Outcome<'o> {
        let (key, mut outcome) = (&self.key, Outcome::default());
        match (bytes, self.then) {
            (Err(_), Then::Shard(_, _, works)) => outcome
                .zarrs
                .extend(works.into_iter().map(|w| (w, Fallback::Store))),
            (Err(_), Then::Chunks(parts)) => outcome
                .zarrs
                .extend(parts.into_iter().map(|(.., w, _)| (w, Fallback::Store))),
            (Ok(None), Then::Shard(_, _, works)) => works
                .into_iter()
                .for_each(|work| outcome.fill(work, context.fill)),
            (Ok(Some(bytes)), Then::Shard(shard, whole, works)) => {
                let sharding = context.layout.shards.as_ref().expect("a sharded array");
                let entries = match sharding.index(&bytes) {
                    Ok(entries) => entries,
                    Err(reason) => {
                        let works = works.into_iter().map(|work| (work, reason.clone()));
                        outcome.zarrs.extend(works);
                        return outcome;
                    }
                };
                if let Some(kept) = context.kept {
                    kept.keep_index(&shard, &entries);
                }
                outcome = in_shard(
                    key,
                    &shard,
                    &entries,
                    whole.then_some(&bytes),
                    works,
                    context,
                );
            }
            (Ok(bytes), Then::Chunks(parts)) => {
                outcome = each(parts, context, |(at, len, work, part), context| {
                    // Each part's bytes, as many of them as the answer holds.
                    let part_of = |bytes: &Bytes| {
                        let from = at.min(bytes.len());
                        bytes.slice(from..from.saturating_add(len).min(bytes.len()))
                    };
                    answer_chunk(key, work, part, bytes.as_ref().map(part_of), context)
                });
            }
        }
        outcome
    }
}

/// What the answer `bytes` to a request for `part` of the chunk of `work` (of `key`) becomes.
fn answer_chunk<'o>(
    key: &StoreKey,
    mut work: ChunkWork<'o>,
    part: Part,
    bytes: Option<Bytes>,
    context: &Context<'_>,
) -> Outcome<'o> {
    let (layout, mut outcome) = (context.layout, Outcome::default());
    let Some(bytes) = bytes else {
        outcome.fill(work, context.fill);
        return outcome;
    };
    // Keeps the block table of a sharded array's Blosc-compressed inner chunk.
    let keep = |work: &ChunkWork<'_>, table: Option<Arc<BlockTable>>| {
        if let (Some(kept), Some(sharding), Some(table)) = (context.kept, &layout.shards, table) {
            let shard = sharding.shard_of(&work.indices);
            kept.keep_table(&shard, sharding.position(&work.indices), table);
        }
    };
    let (stored, bytes) = match part {
        Part::Bytes(stored, held) if held.is_empty() => (stored, bytes),
        Part::Bytes(stored, held) => (stored, Bytes::from([&held[..], &bytes[..]].concat())),
        Part::Front(size, offset, needed) => {
            let element = layout.blocks.map_or(1, |(element, _)| element);
            let (range, stored) = match blosc::after_front(&bytes, size, needed, element) {
                Some((table, within)) => {
                    keep(&work, Some(Arc::clone(&table)));
                    (within.clone(), Stored::Blocks(table, within))
                }
                None => (0..size, Stored::Whole),
            };
            let held = bytes.slice(range.start.min(bytes.len())..range.end.min(bytes.len()));
            if range.end > bytes.len() {
                // The rest of the stored bytes it needs, in a request of its own.
                let start = range.start.max(bytes.len());
                let rest = (offset + start as u64, (range.end - start) as u64);
                outcome.fetch(key, Some(rest), work, Part::Bytes(stored, held));
                return outcome;
            }
            (stored, held)
        }
    };
    if matches!(stored, Stored::Whole) && layout.blocks.is_some() && context.kept.is_some() {
        keep(
            &work,
            BlockTable::of_front(&bytes, bytes.len()).map(Arc::new),
        );
    }
    match decode(&mut work, layout, &bytes, &stored, &context.options) {
        Ok(()) => outcome.decoded += 1,
        Err(reason) => outcome.zarrs.push((work, reason)),
    }
    outcome
}

/// `n`, an offset within bytes held in memory.
fn to_usize(n: u64) -> usize {
    usize::try_from(n).expect("an offset within memory")
}
