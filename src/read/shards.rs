//! Sharded arrays (`sharding_indexed`), read inner chunk by inner chunk: each shard's index is
//! read once, then only the byte ranges of the inner chunks a read touches (those stored end to
//! end in one request, [`super::together`]), each decoded straight into the output as an
//! unsharded chunk is.
//!
//! The inner chunks of a regular grid of shards lie on a regular grid of their own over the whole
//! array (a shard's shape is a multiple of theirs), so a read is split over that grid exactly as
//! an unsharded read is split over its chunks.

use std::collections::HashMap;
use std::num::NonZeroU64;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use zarrs::array::chunk_grid::RegularChunkGrid;
use zarrs::array::codec::CodecChain;
use zarrs::array::codec::api::{ArrayToBytesCodecTraits, BytesRepresentation};
use zarrs::array::{
    Array, ArrayError, ArrayIndices, ArrayMetadata, ArraySubset, CodecOptions, FillValue, data_type,
};
use zarrs::storage::byte_range::ByteRange;
use zarrs::storage::{Bytes, ReadableStorageTraits};
use zarrs_metadata_ext::codec::sharding::{
    ShardingCodecConfiguration, ShardingCodecConfigurationV1, ShardingIndexLocation,
};

use super::blocks::BlockTable;
use super::front::{self, AfterFront};
use super::pieces::{ChunkWork, Filled, Stored};
use super::span::worth_a_part;
use super::together::{self, Part, Together};
use super::{Plan, concurrency, for_each_limited, storage};
use crate::kernel::driver::Output;
use crate::parallel;

/// The `sharding_indexed` codec of an array whose shards the fused read reads itself.
pub(super) struct Sharding {
    /// The inner chunks over the whole array.
    pub(super) grid: RegularChunkGrid,
    /// Inner chunks per shard, along each dimension.
    per_shard: Vec<u64>,
    index_codecs: CodecChain,
    index_shape: Vec<NonZeroU64>,
    /// Where a shard's index lies in it.
    pub(super) index_range: ByteRange,
    /// One element of the array's data type for the elements of an inner chunk a shard does not
    /// hold, as zarrs reads them; `None` where zarrs must read them.
    pub(super) missing: Option<Vec<u8>>,
    /// Blosc, where it compresses the inner chunks alone (a part of a chunk can then be fetched
    /// by its blocks).
    blosc: Option<Blosc>,
    /// The indexes and block tables read so far, where the reader keeps them
    /// ([`FusedReader::with_shard_index_cache`](crate::FusedReader::with_shard_index_cache)).
    pub(super) kept: Option<Mutex<Kept>>,
}

/// Blosc, as it compresses the inner chunks of a shard.
#[derive(Clone, Copy)]
pub(super) struct Blosc {
    /// The bytes of one stored element.
    pub(super) element: usize,
    /// The decompressed bytes of a block ([`front::block_size`]).
    pub(super) block: u64,
}

/// What a reader keeps of the shards it read.
#[derive(Default)]
pub(super) struct Kept {
    /// The index of each shard.
    indexes: HashMap<ArrayIndices, Vec<u64>>,
    /// The block table of each Blosc-compressed inner chunk read whole, by its indices on the
    /// inner grid.
    blocks: HashMap<ArrayIndices, Arc<BlockTable>>,
}

/// The index of one shard.
pub(super) enum ShardIndex {
    /// The shard does not exist: its elements are the array's fill value.
    Absent,
    /// Offsets and sizes of the inner chunks, two numbers each, in C order, and the whole
    /// shard where it was read whole.
    Entries(Vec<u64>, Option<Bytes>),
    /// An index that could not be read or decoded: zarrs reads the shard (and reports it).
    Unreadable,
}

/// Where a read takes a shard's index from ([`Sharding::index_from`]).
pub(super) enum IndexFrom {
    /// The whole shard, fetched in one request.
    Shard,
    /// The index's byte range.
    Range,
    /// The index the reader kept.
    Kept(ShardIndex),
}

/// Where an inner chunk's elements come from.
pub(super) enum Source {
    /// Fill bytes of one element.
    Fill,
    /// The inner chunk's stored bytes at this range of the shard.
    Range(ByteRange),
    /// The blocks of the inner chunk holding the elements a read needs, at this range of the
    /// shard: the chunk is then decoded from them alone (zarrs reads it where it cannot be).
    Blocks(ByteRange, Arc<BlockTable>, Range<usize>),
    /// The front of a Blosc-compressed inner chunk whose blocks the reader does not know yet, at
    /// this range of the shard ([`super::front`]); the chunk's stored size and the decompressed
    /// bytes a read needs of it.
    Front(ByteRange, u64, Range<usize>),
    /// The stored elements of an uncompressed inner chunk from the first to the last a read
    /// needs, at this range of the shard, and the first one's position in the chunk.
    Elements(ByteRange, usize),
    /// The inner chunk's stored bytes, out of the shard read whole.
    Held(Bytes),
    /// zarrs reads them.
    Zarrs,
}

/// The parts of a sharded chain: the `sharding_indexed` configuration and its inner codecs.
pub(super) struct Parts {
    pub(super) configuration: ShardingCodecConfigurationV1,
    pub(super) inner: CodecChain,
}

impl Parts {
    /// The `sharding_indexed` codec of `array`, where its codec chain ends with it (no
    /// bytes-to-bytes codecs after it, which would hide the inner chunks' byte ranges) and its
    /// chunk grid is regular.
    pub(super) fn of<TStorage: ?Sized>(array: &Array<TStorage>) -> Option<Self> {
        let ArrayMetadata::V3(metadata) = array.metadata() else {
            return None;
        };
        if metadata.chunk_grid.name() != "regular" {
            return None;
        }
        let codecs = &metadata.codecs;
        let a2b = codecs.get(array.codecs().array_to_array_codecs().len())?;
        if a2b.name() != "sharding_indexed" || !array.codecs().bytes_to_bytes_codecs().is_empty() {
            return None;
        }
        let configuration: ShardingCodecConfiguration = a2b.to_typed_configuration().ok()?;
        let ShardingCodecConfiguration::V1(configuration) = configuration else {
            return None;
        };
        let inner = CodecChain::from_metadata(&configuration.codecs).ok()?;
        Some(Self {
            configuration,
            inner,
        })
    }
}

impl Sharding {
    /// The sharding of `array` from its `parts`; `missing` as for [`Sharding::missing`],
    /// `blosc` as for [`Sharding::blosc`].
    pub(super) fn new<TStorage: ?Sized>(
        array: &Array<TStorage>,
        configuration: &ShardingCodecConfigurationV1,
        missing: Option<Vec<u8>>,
        blosc: Option<Blosc>,
    ) -> Option<Self> {
        let zeros = vec![0; array.dimensionality()];
        let shard_shape = array.chunk_shape(&zeros).ok()?;
        let inner_shape = configuration.chunk_shape.clone();
        if inner_shape.len() != shard_shape.len() {
            return None;
        }
        let per_shard = shard_shape
            .iter()
            .zip(inner_shape.iter())
            .map(|(shard, inner)| {
                (shard.get() % inner.get() == 0).then_some(shard.get() / inner.get())
            })
            .collect::<Option<Vec<u64>>>()?;
        let index_codecs = CodecChain::from_metadata(&configuration.index_codecs).ok()?;
        let mut index_shape: Vec<NonZeroU64> = per_shard
            .iter()
            .map(|&n| NonZeroU64::new(n))
            .collect::<Option<_>>()?;
        index_shape.push(NonZeroU64::new(2)?);
        let BytesRepresentation::FixedSize(index_size) = index_codecs
            .encoded_representation(
                &index_shape,
                &data_type::uint64(),
                &FillValue::from(u64::MAX),
            )
            .ok()?
        else {
            return None;
        };
        let index_range = match configuration.index_location {
            ShardingIndexLocation::Start => ByteRange::FromStart(0, Some(index_size)),
            ShardingIndexLocation::End => ByteRange::Suffix(index_size),
        };
        let grid = RegularChunkGrid::new(array.shape().to_vec(), inner_shape).ok()?;
        Some(Self {
            grid,
            per_shard,
            index_codecs,
            index_shape,
            index_range,
            missing,
            blosc,
            kept: None,
        })
    }

    /// The shape of every inner chunk.
    pub(super) fn inner_shape(&self) -> &[NonZeroU64] {
        self.grid.chunk_shape()
    }

    /// The shard holding the inner chunk at `inner` (indices on the inner grid).
    pub(super) fn shard_of(&self, inner: &[u64]) -> ArrayIndices {
        inner
            .iter()
            .zip(&self.per_shard)
            .map(|(i, n)| i / n)
            .collect()
    }

    /// Where a read of `subset` takes the index of the shard at `shard` from: the whole shard,
    /// fetched in one request, where the read covers it (as zarrs reads such a shard); what the
    /// reader kept; the whole shard again where the read reaches into every inner chunk of it
    /// within the array and those are compressed (each would be fetched whole anyway, after the
    /// index: zarr-python reads such a shard whole too); else the index's range.
    pub(super) fn index_from<TStorage: ?Sized>(
        &self,
        plan: &Plan,
        array: &Array<TStorage>,
        shard: &[u64],
        subset: &ArraySubset,
    ) -> Result<IndexFrom, ArrayError> {
        let region = array.chunk_subset(shard)?;
        let (start, end) = (region.start(), region.end_exc());
        let (from, to) = (subset.start(), subset.end_exc());
        let dims = 0..start.len();
        if dims.clone().all(|d| from[d] <= start[d] && end[d] <= to[d]) {
            return Ok(IndexFrom::Shard);
        }
        if let Some(index) = self.kept(shard) {
            return Ok(IndexFrom::Kept(index));
        }
        // Along each dimension, the read reaches into the shard's first inner chunk and into
        // its last within the array.
        let inner = self.inner_shape();
        let every = dims.into_iter().all(|d| {
            let size = inner[d].get();
            let within = end[d].min(array.shape()[d]);
            let last = start[d] + within.saturating_sub(start[d] + 1) / size * size;
            from[d] < start[d] + size && to[d] > last
        });
        Ok(if every && plan.compressed() {
            IndexFrom::Shard
        } else {
            IndexFrom::Range
        })
    }

    /// The index of `shard` read from what the store returned for the index range or, where
    /// `whole`, for the whole shard; kept where the reader keeps indexes.
    pub(super) fn index<E>(
        &self,
        shard: &[u64],
        stored: Result<Option<Bytes>, E>,
        whole: bool,
    ) -> ShardIndex {
        let index = self.decode_index(stored, whole);
        self.keep(shard, &index);
        index
    }

    /// The index read from a shard: `stored` is what the store returned for the index range or,
    /// where `whole`, for the whole shard.
    fn decode_index<E>(&self, stored: Result<Option<Bytes>, E>, whole: bool) -> ShardIndex {
        let bytes = match stored {
            Ok(None) => return ShardIndex::Absent,
            Ok(Some(bytes)) => bytes,
            Err(_) => return ShardIndex::Unreadable,
        };
        let encoded = if whole {
            let len = bytes.len() as u64;
            let range = match self.index_range {
                ByteRange::FromStart(start, Some(size)) => {
                    start.checked_add(size).map(|end| start..end)
                }
                ByteRange::Suffix(size) => len.checked_sub(size).map(|start| start..len),
                ByteRange::FromStart(_, None) => None,
            };
            match range.filter(|range| range.end <= len) {
                Some(range) => bytes.slice(to_usize(range.start)..to_usize(range.end)),
                None => return ShardIndex::Unreadable,
            }
        } else {
            bytes.clone()
        };
        let decoded = self
            .index_codecs
            .decode(
                (&*encoded).into(),
                &self.index_shape,
                &data_type::uint64(),
                &FillValue::from(u64::MAX),
                &CodecOptions::default(),
            )
            .ok()
            .and_then(|decoded| decoded.into_fixed().ok());
        match decoded {
            Some(decoded) => ShardIndex::Entries(
                decoded
                    .chunks_exact(8)
                    .map(|entry| u64::from_ne_bytes(entry.try_into().expect("8 bytes")))
                    .collect(),
                whole.then_some(bytes),
            ),
            None => ShardIndex::Unreadable,
        }
    }

    /// The index of `shard` kept from an earlier read, where the reader keeps them.
    pub(super) fn kept(&self, shard: &[u64]) -> Option<ShardIndex> {
        let kept = self.kept.as_ref()?.lock().ok()?;
        let entries = kept.indexes.get(shard)?.clone();
        Some(ShardIndex::Entries(entries, None))
    }

    /// Keeps `index`, read from `shard` (by itself or with the whole shard), where the reader
    /// keeps indexes: not an absent shard (a later write may create it) nor an index that could
    /// not be read.
    fn keep(&self, shard: &[u64], index: &ShardIndex) {
        if let (Some(kept), ShardIndex::Entries(entries, _)) = (&self.kept, index)
            && let Ok(mut kept) = kept.lock()
        {
            kept.indexes.insert(shard.to_vec(), entries.clone());
        }
    }

    /// Keeps the block table of the inner chunk at `inner` from `stored`, the whole chunk as
    /// read, where the reader keeps indexes and the chunk is compressed by Blosc alone.
    pub(super) fn keep_blocks(&self, inner: &[u64], stored: &Bytes) {
        if let (Some(_), Some(_)) = (&self.kept, self.blosc)
            && let Some(table) = BlockTable::of(stored)
        {
            self.keep_table(inner, Arc::new(table));
        }
    }

    /// Keeps `table`, the block table of the inner chunk at `inner`, where the reader keeps
    /// indexes.
    fn keep_table(&self, inner: &[u64], table: Arc<BlockTable>) {
        if let Some(kept) = &self.kept
            && let Ok(mut kept) = kept.lock()
        {
            kept.blocks.insert(inner.to_vec(), table);
        }
    }

    /// What a read of the inner chunk at `inner` ([`Source::Front`]: its front at `range`, its
    /// stored size and the decompressed bytes `needed`) has once it fetched the chunk's `front`;
    /// keeps the chunk's block table where the reader keeps indexes.
    pub(super) fn after_front(
        &self,
        inner: &[u64],
        (range, stored, needed): (ByteRange, u64, Range<usize>),
        front: &Bytes,
    ) -> AfterFront {
        let (ByteRange::FromStart(offset, _), Some(Blosc { element: size, .. }), Ok(stored)) =
            (range, self.blosc, usize::try_from(stored))
        else {
            return AfterFront::Zarrs;
        };
        let (after, table) = front::after_front(front, offset, stored, needed, size);
        if let Some(table) = table {
            self.keep_table(inner, table);
        }
        after
    }

    /// What a read of the inner chunk at `inner` decodes, and how it is stored, from its
    /// [`Source::Front`] and what lies past it where needed, fetched by `get`; `None` where zarrs
    /// must read it.
    fn through_front(
        &self,
        inner: &[u64],
        front: (ByteRange, u64, Range<usize>),
        get: impl Fn(ByteRange) -> Option<Bytes>,
    ) -> Option<(Bytes, Stored)> {
        let fetched = get(front.0)?;
        match self.after_front(inner, front, &fetched) {
            AfterFront::Ready(encoded, stored) => Some((encoded, stored)),
            AfterFront::More(more, rest) => rest.complete(&get(more)?),
            AfterFront::Zarrs => None,
        }
    }

    /// `source`, the inner chunk of `work`, narrowed to the elements its pieces need where the
    /// plan's chunks are uncompressed ([`ChunkWork::stored_part`]), or to the blocks holding them
    /// where the reader holds the chunk's block table and the elements are few enough to be
    /// decoded without the rest.
    pub(super) fn narrow(&self, plan: &Plan, source: Source, work: &ChunkWork<'_>) -> Source {
        let Source::Range(ByteRange::FromStart(offset, Some(len))) = source else {
            return source;
        };
        let elements = self
            .grid
            .chunk_shape()
            .iter()
            .map(|n| n.get())
            .product::<u64>();
        if let Some((ByteRange::FromStart(start, Some(part)), first)) =
            work.stored_part(plan, self.inner_shape())
        {
            // The whole chunk where its size is not its elements' (zarrs then reports it).
            let size = plan.stored.fixed_size().map(|size| size as u64);
            return if size.and_then(|size| elements.checked_mul(size)) == Some(len) {
                Source::Elements(ByteRange::FromStart(offset + start, Some(part)), first)
            } else {
                source
            };
        }
        let Some(Blosc {
            element: size,
            block,
        }) = self.blosc
        else {
            return source;
        };
        let (inner, span) = (&work.indices, work.span(plan.kernel.sizes().1));
        if !usize::try_from(elements).is_ok_and(|elements| worth_a_part(span.len(), elements)) {
            return source;
        }
        let needed = span.start * size..span.end * size;
        let table = self.kept.as_ref().and_then(|kept| {
            let kept = kept.lock().ok()?;
            kept.blocks.get(inner).cloned()
        });
        let Some(table) = table else {
            // Where its blocks lie is not known: the chunk's front, where it is enough.
            let decoded = elements.saturating_mul(size as u64);
            return match front::front(len, decoded, needed.end as u64, block) {
                Some(front) => {
                    Source::Front(ByteRange::FromStart(offset, Some(front)), len, needed)
                }
                None => source,
            };
        };
        // The table must be of the chunk the index points at (as large).
        let Some(within) = table.blocks(needed) else {
            return source;
        };
        // Blosc decodes a part from its own element boundaries on: every element of the array's
        // must start at one, else the part would not decode by itself.
        if len != table.stored_size() as u64 || size % table.type_size() != 0 {
            return source;
        }
        let fetch = ByteRange::FromStart(offset + within.start as u64, Some(within.len() as u64));
        Source::Blocks(fetch, table, within)
    }

    /// Where the elements of the inner chunk at `inner` come from, given its shard's `index`.
    pub(super) fn source(&self, index: &ShardIndex, inner: &[u64]) -> Source {
        let (entries, whole) = match index {
            ShardIndex::Absent => return Source::Fill,
            ShardIndex::Unreadable => return Source::Zarrs,
            ShardIndex::Entries(entries, whole) => (entries, whole),
        };
        // The inner chunk's position within its shard, in C order.
        let at = inner
            .iter()
            .zip(&self.per_shard)
            .fold(0u64, |at, (i, n)| at * n + i % n);
        let Some(at) = usize::try_from(at).ok().map(|at| 2 * at) else {
            return Source::Zarrs;
        };
        match entries.get(at..at + 2) {
            Some(&[u64::MAX, u64::MAX]) if self.missing.is_some() => Source::Fill,
            Some(&[offset, size]) => match (offset.checked_add(size), whole) {
                (Some(end), None) => Source::Range(ByteRange::new(offset..end)),
                (Some(end), Some(shard)) if end <= shard.len() as u64 => {
                    Source::Held(shard.slice(to_usize(offset)..to_usize(end)))
                }
                _ => Source::Zarrs,
            },
            _ => Source::Zarrs,
        }
    }
}

/// Starts the inner chunks of `shard` (`works`, in C order; `first` gives each one's index along
/// the first dimension) at a row of inner chunks of their own, by the shard's index along the
/// last dimension: shards side by side, read at once, then write to different rows of the
/// output, so that their threads do not fault the same fresh pages of a new output at the same
/// time (docs/performance.md, "Sharded arrays").
fn stagger<T>(shard: &[u64], works: &mut [T], first: impl Fn(&T) -> u64) {
    let Some(&last) = shard.last().filter(|_| shard.len() > 1) else {
        return;
    };
    let mut rows: Vec<u64> = works.iter().map(first).collect();
    rows.dedup();
    let rows = rows.len();
    if rows > 1 && works.len().is_multiple_of(rows) {
        let row = usize::try_from(last).map_or(0, |last| last % rows);
        works.rotate_left(row * (works.len() / rows));
    }
}

/// `n`, an offset within bytes held in memory.
fn to_usize(n: u64) -> usize {
    usize::try_from(n).expect("an offset within memory")
}

/// The shards `works` touch (each once, in order) and, for each work, the position of its shard.
pub(super) fn shards_of(
    sharding: &Sharding,
    works: &[ChunkWork<'_>],
) -> (Vec<ArrayIndices>, Vec<usize>) {
    let mut shards: Vec<ArrayIndices> = Vec::new();
    let mut positions = HashMap::new();
    let slots = works
        .iter()
        .map(|work| {
            let shard = sharding.shard_of(&work.indices);
            *positions.entry(shard.clone()).or_insert_with(|| {
                shards.push(shard);
                shards.len() - 1
            })
        })
        .collect();
    (shards, slots)
}

/// Reads `subset` of a sharded array into `output` through the plan: shard by shard (as many at
/// once as the concurrent target allows, at least zarrs' chunk concurrent minimum), each shard's
/// index or whole shard read once and its inner chunks then decoded while they are in the cache,
/// on the rest of the target where there are fewer shards than threads.
pub(super) fn read<TStorage: ?Sized + ReadableStorageTraits + 'static>(
    array: &Array<TStorage>,
    plan: &Plan,
    sharding: &Sharding,
    subset: &ArraySubset,
    output: Output<'_>,
    options: &CodecOptions,
) -> Result<(), ArrayError> {
    let threads = options.concurrent_target();
    let out_size = plan.kernel.sizes().1;
    let works = super::split::split(&sharding.grid, subset, output, out_size, threads)?;
    let storage = storage(array)?;
    let (shards, slots) = shards_of(sharding, &works);
    let mut groups: Vec<(ArrayIndices, Vec<ChunkWork<'_>>)> = shards
        .into_iter()
        .map(|shard| (shard, Vec::new()))
        .collect();
    for (work, slot) in works.into_iter().zip(slots) {
        groups[slot].1.push(work);
    }
    for (shard, works) in &mut groups {
        stagger(shard, works, |work| work.indices[0]);
    }
    let (shard_limit, shard_options) = concurrency(groups.len(), options);
    let fill = array.fill_value().as_ne_bytes();
    let read_shard = |(shard, works): (ArrayIndices, Vec<ChunkWork<'_>>)| {
        let key = array.chunk_key(&shard);
        let index = match sharding.index_from(plan, array, &shard, subset)? {
            IndexFrom::Kept(index) => index,
            IndexFrom::Shard => sharding.index(&shard, storage.get(&key), true),
            IndexFrom::Range => {
                let stored = storage.get_partial(&key, sharding.index_range);
                sharding.index(&shard, stored, false)
            }
        };
        let (limit, options) = concurrency(works.len(), &shard_options);
        let shape = sharding.inner_shape();
        let works: Vec<(ChunkWork<'_>, Source)> = works
            .into_iter()
            .map(|work| {
                let source = sharding.source(&index, &work.indices);
                let source = sharding.narrow(plan, source, &work);
                (work, source)
            })
            .collect();
        // The ranges stored end to end, each run of them in one request.
        let runs = together::runs(works.iter().map(|(_, source)| (0, source)));
        let fetch = |run: &together::Run| storage.get_partial(&key, run.range).ok().flatten();
        let fetched = if limit > 1 && runs.len() > 1 {
            parallel::map(runs.iter().collect(), 1, fetch)
        } else {
            runs.iter().map(fetch).collect()
        };
        let together = Together::new(&runs, fetched);
        let get = |range: ByteRange| match together.get(0, range) {
            Part::With(bytes) => bytes,
            Part::Alone => storage.get_partial(&key, range).ok().flatten(),
        };
        let read = |(mut work, source): (ChunkWork<'_>, Source)| {
            let filled = match source {
                Source::Fill => {
                    work.fill_with(match index {
                        ShardIndex::Absent => fill,
                        _ => sharding.missing.as_deref().expect("checked by `source`"),
                    });
                    Filled::Done
                }
                Source::Zarrs => Filled::ThroughZarrs,
                Source::Held(encoded) => {
                    sharding.keep_blocks(&work.indices, &encoded);
                    work.decode(plan, shape, &encoded, Stored::Whole, &options)
                }
                Source::Range(range) => match get(range) {
                    Some(encoded) => {
                        sharding.keep_blocks(&work.indices, &encoded);
                        work.decode(plan, shape, &encoded, Stored::Whole, &options)
                    }
                    None => Filled::ThroughZarrs,
                },
                Source::Front(range, stored, needed) => {
                    match sharding.through_front(&work.indices, (range, stored, needed), get) {
                        Some((encoded, stored)) => {
                            work.decode(plan, shape, &encoded, stored, &options)
                        }
                        None => Filled::ThroughZarrs,
                    }
                }
                Source::Blocks(range, table, within) => {
                    match get(range).and_then(|part| table.sparse(within, &[&part])) {
                        Some(sparse) => work.decode(plan, shape, &sparse, Stored::Blocks, &options),
                        None => Filled::ThroughZarrs,
                    }
                }
                Source::Elements(range, first) => match get(range) {
                    Some(part) => {
                        work.decode(plan, shape, &part, Stored::Elements(first), &options)
                    }
                    None => Filled::ThroughZarrs,
                },
            };
            if let Filled::ThroughZarrs = filled {
                let region = array.chunk_subset(&shard)?.overlap(subset)?;
                work.read_through_zarrs(array, &shard, &region, &options)?;
            }
            Ok::<(), ArrayError>(())
        };
        for_each_limited(works, limit, read)
    };
    for_each_limited(groups, shard_limit, read_shard)
}

#[cfg(test)]
mod tests {
    use super::stagger;

    #[test]
    fn shards_side_by_side_start_at_rows_of_their_own() {
        // Three rows of two inner chunks, as (row, column).
        let inner: Vec<(u64, u64)> = (0..3).flat_map(|r| (0..2).map(move |c| (r, c))).collect();
        let staggered = |shard: &[u64]| {
            let mut works = inner.clone();
            stagger(shard, &mut works, |&(row, _)| row);
            works
        };
        assert_eq!(staggered(&[0, 0]), inner);
        assert_eq!(staggered(&[5, 3]), inner);
        assert_eq!(
            staggered(&[0, 1]),
            [(1, 0), (1, 1), (2, 0), (2, 1), (0, 0), (0, 1)]
        );
        assert_eq!(
            staggered(&[2, 2]),
            [(2, 0), (2, 1), (0, 0), (0, 1), (1, 0), (1, 1)]
        );
        // One dimension, or rows of unequal lengths (none here from a regular grid): as they are.
        assert_eq!(staggered(&[1]), inner);
        let mut uneven = vec![(0, 0), (1, 0), (1, 1)];
        stagger(&[0, 1], &mut uneven, |&(row, _)| row);
        assert_eq!(uneven, [(0, 0), (1, 0), (1, 1)]);
    }
}
