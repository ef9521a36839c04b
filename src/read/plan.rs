//! A read as rounds of requests, made without I/O: what the first round asks the store for (each
//! chunk, or each shard's index or whole shard), and what each answer becomes (the fill value, a
//! decode into the chunk's pieces of the output, or the requests of the next round: the inner
//! chunks' ranges once an index is in, the rest of a Blosc chunk once its front is in). The
//! drivers ([`super::drive`]) carry out each round's requests all at once, synchronously or
//! asynchronously, so that both make the same requests for the same read.
//!
//! Ranges of one value that follow each other, end to end or at most [`GAP`] bytes apart, are
//! asked for in one request ([`coalesce`]): shards store their inner chunks in the order they were
//! written (zarr-python in Morton order, so the two chunks of a window across a boundary between
//! rows of inner chunks lie end to end), and a request costs an object store far more than a page
//! of bytes.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use zarrs::array::{Array, ArrayError, ArrayIndices, ArraySubset, CodecOptions};
use zarrs::storage::byte_range::ByteRange;
use zarrs::storage::{Bytes, StorageError, StoreKey};

use super::Fallback;
use super::blosc::{self, AfterFront, BlockTable, Rest};
use super::decode::{Stored, decode, elements_part, worth_a_part};
use super::layout::Layout;
use super::output::{ChunkWork, split, stagger};
use super::shard::{Entry, Kept};
use crate::kernel::driver::Output;
use crate::parallel;

/// The most bytes between two ranges asked for in one request (those in the gap are fetched and
/// left).
pub(super) const GAP: u64 = 4096;

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
    /// A chunk's stored bytes, or a part of them.
    Chunk(ChunkWork<'o>, Part),
    /// Ranges of one value asked for in one request: each one's first byte and length.
    Together(Vec<(u64, u64, ChunkWork<'o>, Part)>),
}

/// What the bytes fetched for a chunk are.
enum Part {
    /// What [`Stored`] says.
    Stored(Stored),
    /// The blocks `within` the chunk's stored bytes, by a kept block table.
    Blocks(Arc<BlockTable>, Range<usize>),
    /// The front of a Blosc chunk of this many stored bytes at this offset of its shard, whose
    /// block table the reader does not know; the decompressed bytes the read needs.
    Front(usize, u64, Range<usize>),
    /// The rest the front lacked.
    Rest(Rest),
}

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

    fn fetch(&mut self, key: &StoreKey, range: Option<ByteRange>, then: Then<'o>) {
        self.next.push(Fetch {
            key: key.clone(),
            range,
            then,
        });
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
        stagger(&mut works, |work| work.indices.last().copied().unwrap_or(0));
        for work in works {
            let (range, stored) = match stored_part(layout, &work, None) {
                Some((range, first)) => (Some(range), Stored::Elements(first)),
                None => (None, Stored::Whole),
            };
            let key = array.chunk_key(&work.indices);
            outcome.fetch(&key, range, Then::Chunk(work, Part::Stored(stored)));
        }
        return Ok(outcome);
    };
    let mut works = split(&sharding.grid, subset, output, out_size, threads)?;
    stagger(&mut works, |work| {
        sharding
            .shard_of(&work.indices)
            .last()
            .copied()
            .unwrap_or(0)
    });
    let (mut shards, mut slots) = (Vec::<(ArrayIndices, Vec<_>)>::new(), HashMap::new());
    for work in works {
        let shard = sharding.shard_of(&work.indices);
        let slot = *slots.entry(shard.clone()).or_insert(shards.len());
        if slot == shards.len() {
            shards.push((shard, Vec::new()));
        }
        shards[slot].1.push(work);
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
                outcome.fetch(&key, range, Then::Shard(shard, whole, works));
            }
        }
    }
    Ok(outcome)
}

/// Where a chunk stored by the `bytes` codec alone is read in part: the range of the stored
/// elements from the first to the last its pieces need (of a shard whose inner chunk is `at` this
/// offset and size), and the first one's position in the chunk.
fn stored_part(
    layout: &Layout,
    work: &ChunkWork<'_>,
    at: Option<(u64, u64)>,
) -> Option<(ByteRange, usize)> {
    let (size, elements) = (layout.stored.fixed_size()?, work.chunk.num_elements());
    let whole = elements.checked_mul(size as u64);
    if layout.compressed() || at.is_some_and(|(_, len)| whole != Some(len)) {
        return None;
    }
    let span = work.span(layout.kernel.sizes().1);
    let (start, len) = elements_part(size, elements, &span)?;
    let offset = at.map_or(0, |(offset, _)| offset);
    Some((ByteRange::FromStart(offset + start, Some(len)), span.start))
}

/// What `works`, the inner chunks a read needs of the shard at `shard` (of `key`), become by the
/// shard's index `entries`: the fill value, a decode of the chunk out of the shard where the read
/// `held` it whole, or a request for its range.
fn in_shard<'o>(
    key: &StoreKey,
    shard: &[u64],
    entries: &[u64],
    held: Option<&Bytes>,
    works: Vec<ChunkWork<'o>>,
    context: &Context<'_>,
) -> Outcome<'o> {
    let (layout, mut outcome, mut decodes) = (context.layout, Outcome::default(), Vec::new());
    let sharding = layout.shards.as_ref().expect("a sharded array");
    let len = held.map(|held| held.len() as u64);
    for work in works {
        match (sharding.entry(entries, &work.indices, len), held) {
            (Entry::Missing, _) => match &sharding.missing {
                Some(fill) => outcome.fill(work, fill),
                None => outcome.zarrs.push((work, Fallback::MissingFill)),
            },
            (Entry::Outside, _) => outcome.zarrs.push((work, Fallback::ChunkEntry)),
            (Entry::At(offset, size), Some(held)) => {
                let bytes = held.slice(to_usize(offset)..to_usize(offset + size));
                decodes.push((work, Part::Stored(Stored::Whole), bytes));
            }
            (Entry::At(offset, size), None) => {
                let (range, part) = chunk_range(layout, context.kept, shard, &work, (offset, size));
                outcome.fetch(key, Some(range), Then::Chunk(work, part));
            }
        }
    }
    outcome.merge(each(decodes, context, |(work, part, bytes), context| {
        answer_chunk(key, work, part, Some(bytes), context)
    }));
    outcome
}

/// The range of its shard a read of the inner chunk of `work`, `at` this offset and size, fetches,
/// and what it gets: the stored elements it needs of an uncompressed chunk; of a chunk Blosc alone
/// compresses, where the read needs few enough of its elements, the blocks holding them where
/// the reader kept the chunk's block table, else the chunk's front; else the whole chunk.
fn chunk_range(
    layout: &Layout,
    kept: Option<&Kept>,
    shard: &[u64],
    work: &ChunkWork<'_>,
    (offset, size): (u64, u64),
) -> (ByteRange, Part) {
    let range = |start: u64, len: u64| ByteRange::FromStart(offset + start, Some(len));
    let whole = (range(0, size), Part::Stored(Stored::Whole));
    if let Some((range, first)) = stored_part(layout, work, Some((offset, size))) {
        return (range, Part::Stored(Stored::Elements(first)));
    }
    let (elements, span) = (
        work.chunk.num_elements(),
        work.span(layout.kernel.sizes().1),
    );
    let (Some((element, block)), Ok(stored)) = (layout.blocks, usize::try_from(size)) else {
        return whole;
    };
    if !worth_a_part(span.len(), elements) {
        return whole;
    }
    let needed = span.start * element..span.end * element;
    let sharding = layout.shards.as_ref().expect("a sharded array");
    let table = kept.and_then(|kept| kept.table(shard, sharding.position(&work.indices)));
    let decoded = elements.saturating_mul(element as u64);
    match table.filter(|table| table.stored_size() == stored) {
        Some(table) => match table.blocks(needed, element) {
            Some(w) => (
                range(w.start as u64, w.len() as u64),
                Part::Blocks(table, w),
            ),
            None => whole,
        },
        None => match blosc::front(size, decoded, needed.end as u64, block) {
            Some(front) => (range(0, front), Part::Front(stored, offset, needed)),
            None => whole,
        },
    }
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
        let key = &self.key;
        let bytes = match (bytes, self.then) {
            (Ok(bytes), then) => (bytes, then),
            (Err(_), then) => {
                let works = match then {
                    Then::Shard(_, _, works) => works,
                    Then::Chunk(work, _) => vec![work],
                    Then::Together(parts) => parts.into_iter().map(|(.., work, _)| work).collect(),
                };
                let zarrs = works
                    .into_iter()
                    .map(|work| (work, Fallback::Store))
                    .collect();
                return Outcome {
                    zarrs,
                    ..Outcome::default()
                };
            }
        };
        match bytes {
            (None, Then::Shard(_, _, works)) => each(works, context, |work, context| {
                let mut outcome = Outcome::default();
                outcome.fill(work, context.fill);
                outcome
            }),
            (Some(bytes), Then::Shard(shard, whole, works)) => {
                let sharding = context.layout.shards.as_ref().expect("a sharded array");
                let Some(entries) = sharding.index(&bytes, whole) else {
                    let zarrs = works.into_iter().map(|work| (work, Fallback::ShardIndex));
                    return Outcome {
                        zarrs: zarrs.collect(),
                        ..Outcome::default()
                    };
                };
                if let Some(kept) = context.kept {
                    kept.keep_index(&shard, &entries);
                }
                in_shard(
                    key,
                    &shard,
                    &entries,
                    whole.then_some(&bytes),
                    works,
                    context,
                )
            }
            (bytes, Then::Chunk(work, part)) => answer_chunk(key, work, part, bytes, context),
            (bytes, Then::Together(parts)) => {
                let start = match self.range {
                    Some(ByteRange::FromStart(start, _)) => start,
                    _ => 0,
                };
                each(parts, context, |(at, len, work, part), context| {
                    // Each part's bytes, as many of them as the answer holds.
                    let part_of = |bytes: &Bytes| {
                        let from = to_usize(at - start).min(bytes.len());
                        bytes.slice(from..(from + to_usize(len)).min(bytes.len()))
                    };
                    answer_chunk(key, work, part, bytes.as_ref().map(part_of), context)
                })
            }
        }
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
            let (shard, at) = (
                sharding.shard_of(&work.indices),
                sharding.position(&work.indices),
            );
            kept.keep_table(&shard, at, table);
        }
    };
    let ready = match part {
        Part::Stored(stored) => {
            if stored == Stored::Whole && layout.blocks.is_some() && context.kept.is_some() {
                keep(
                    &work,
                    BlockTable::of_front(&bytes, bytes.len()).map(Arc::new),
                );
            }
            Some((bytes, stored))
        }
        Part::Blocks(table, within) => table
            .sparse(&within, &[&bytes])
            .map(|b| (b, Stored::Blocks)),
        Part::Front(stored, offset, needed) => {
            let element = layout.blocks.map_or(1, |(element, _)| element);
            match blosc::after_front(&bytes, stored, needed, element) {
                None => None,
                Some((AfterFront::Ready(bytes, stored), table)) => {
                    keep(&work, table);
                    Some((bytes, stored))
                }
                Some((AfterFront::More(rest, more), table)) => {
                    keep(&work, table);
                    let range =
                        ByteRange::FromStart(offset + rest.start as u64, Some(rest.len() as u64));
                    outcome.fetch(key, Some(range), Then::Chunk(work, Part::Rest(more)));
                    return outcome;
                }
            }
        }
        Part::Rest(rest) => rest.complete(&bytes),
    };
    let decoded = ready
        .ok_or(Fallback::StoredBytes)
        .and_then(|(bytes, stored)| decode(&mut work, layout, &bytes, stored, &context.options));
    match decoded {
        Ok(()) => outcome.decoded += 1,
        Err(reason) => outcome.zarrs.push((work, reason)),
    }
    outcome
}

/// `fetches` with the ranges of one value that follow each other (at most [`GAP`] bytes apart,
/// not overlapping) asked for in one request each.
pub(super) fn coalesce(fetches: Vec<Fetch<'_>>) -> Vec<Fetch<'_>> {
    let bounds = |fetch: &Fetch<'_>| match (fetch.range, &fetch.then) {
        (Some(ByteRange::FromStart(start, Some(len))), Then::Chunk(..)) => {
            start.checked_add(len).map(|end| (start, end))
        }
        _ => None,
    };
    // By value, in the order they come; each value's ranges by their start.
    let (mut groups, mut slots) = (Vec::<Vec<Fetch<'_>>>::new(), HashMap::new());
    for fetch in fetches {
        let slot = match bounds(&fetch) {
            Some(_) => *slots.entry(fetch.key.clone()).or_insert(groups.len()),
            None => groups.len(),
        };
        if slot == groups.len() {
            groups.push(Vec::new());
        }
        groups[slot].push(fetch);
    }
    let mut round = Vec::new();
    for mut group in groups {
        group.sort_by_key(|fetch| bounds(fetch).map(|(start, _)| start));
        let mut run: Option<Run<'_>> = None;
        for fetch in group {
            let Some((start, end)) = bounds(&fetch) else {
                round.push(fetch);
                continue;
            };
            let Then::Chunk(work, part) = fetch.then else {
                unreachable!("the ranges of chunks alone have bounds")
            };
            match &mut run {
                Some(run) if start >= run.end && start - run.end <= GAP => {
                    run.parts.push((start, end - start, work, part));
                    run.end = end;
                }
                _ => {
                    round.extend(run.take().map(Run::fetch));
                    let parts = vec![(start, end - start, work, part)];
                    run = Some(Run {
                        key: fetch.key,
                        start,
                        end,
                        parts,
                    });
                }
            }
        }
        round.extend(run.map(Run::fetch));
    }
    round
}

/// Ranges of one value that follow each other: the value, the first byte, the end, and each
/// range's first byte and length with what its bytes become.
struct Run<'o> {
    key: StoreKey,
    start: u64,
    end: u64,
    parts: Vec<(u64, u64, ChunkWork<'o>, Part)>,
}

impl<'o> Run<'o> {
    /// The request for the run's bytes.
    fn fetch(mut self) -> Fetch<'o> {
        let range = Some(ByteRange::FromStart(
            self.start,
            Some(self.end - self.start),
        ));
        let then = match self.parts.len() {
            1 => {
                let (.., work, part) = self.parts.pop().expect("one part");
                Then::Chunk(work, part)
            }
            _ => Then::Together(self.parts),
        };
        Fetch {
            key: self.key,
            range,
            then,
        }
    }
}

/// `n`, an offset within bytes held in memory.
fn to_usize(n: u64) -> usize {
    usize::try_from(n).expect("an offset within memory")
}
