//! Sharded arrays (`sharding_indexed`): where a shard's index lies, where each inner chunk lies in
//! its shard, and what a reader keeps of the shards it read. The inner chunks of a regular grid of
//! shards form a regular grid over the whole array, which a read is split over.

use std::collections::HashMap;
use std::num::NonZeroU64;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use zarrs::array::chunk_grid::RegularChunkGrid;
use zarrs::array::codec::api::{ArrayToBytesCodecTraits, BytesRepresentation};
use zarrs::array::codec::{CodecChain, ShardingCodec};
use zarrs::array::{Array, ArrayIndices, ArraySubset, CodecOptions, FillValue, data_type};
use zarrs::storage::byte_range::ByteRange;
use zarrs_metadata_ext::codec::sharding::{
    ShardingCodecConfiguration, ShardingCodecConfigurationV1, ShardingIndexLocation,
};

use super::blosc::BlockTable;
use super::{Fallback, Unfused};

/// The `sharding_indexed` codec of an array whose shards the fused read reads itself.
pub(super) struct Sharding {
    /// The inner chunks over the whole array.
    pub(super) grid: RegularChunkGrid,
    /// Inner chunks per shard, along each dimension.
    per_shard: Vec<NonZeroU64>,
    /// The codec, whose shard indexes this reads.
    codec: ShardingCodec,
    /// Where a shard's index lies in it.
    pub(super) index_range: ByteRange,
    /// One element of the array's data type for the elements of an inner chunk a shard does not
    /// hold, as zarrs reads them; else why zarrs must read them.
    pub(super) missing: Result<Vec<u8>, Fallback>,
}

/// Where an inner chunk's stored bytes lie in its shard, by the shard's index.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Entry {
    /// The shard does not hold it.
    Missing,
    /// At this offset, this many bytes.
    At(u64, u64),
    /// Nowhere the shard can hold it (zarrs reads it, and reports it).
    Outside,
}

impl Sharding {
    /// The sharding of `array` by `configuration`; `missing` as for [`Sharding::missing`].
    ///
    /// # Errors
    /// Where the shards do not hold whole inner chunks or the index is not of a fixed size.
    pub(super) fn new<TStorage: ?Sized>(
        array: &Array<TStorage>,
        configuration: &ShardingCodecConfigurationV1,
        missing: Result<Vec<u8>, Fallback>,
    ) -> Result<Self, Unfused> {
        let unfused = |what: &str| Unfused::Layout(what.to_string());
        let shard_shape = array
            .chunk_shape(&vec![0; array.dimensionality()])
            .map_err(|_| unfused("no shard shape"))?;
        let inner_shape = &configuration.chunk_shape;
        let whole = |(s, i): (&NonZeroU64, &NonZeroU64)| {
            NonZeroU64::new(s.get() / i.get()).filter(|_| s.get() % i.get() == 0)
        };
        let per_shard: Vec<NonZeroU64> = (shard_shape.len() == inner_shape.len())
            .then(|| shard_shape.iter().zip(inner_shape).map(whole).collect())
            .flatten()
            .ok_or_else(|| unfused("shards that do not hold whole inner chunks"))?;
        let index_codecs = CodecChain::from_metadata(&configuration.index_codecs)
            .map_err(|_| unfused("index codecs"))?;
        let index_shape = [per_shard.as_slice(), &[NonZeroU64::new(2).expect("two")]].concat();
        let (uint64, fill) = (data_type::uint64(), FillValue::from(u64::MAX));
        let representation = index_codecs.encoded_representation(&index_shape, &uint64, &fill);
        let Ok(BytesRepresentation::FixedSize(size)) = representation else {
            return Err(unfused("an index of no fixed size"));
        };
        let index_range = match configuration.index_location {
            ShardingIndexLocation::Start => ByteRange::FromStart(0, Some(size)),
            ShardingIndexLocation::End => ByteRange::Suffix(size),
        };
        let codec = ShardingCodecConfiguration::V1(configuration.clone());
        let codec = ShardingCodec::new_with_configuration(&codec)
            .map_err(|_| unfused("a sharding_indexed configuration zarrs reads itself"))?;
        let grid = RegularChunkGrid::new(array.shape().to_vec(), inner_shape.clone())
            .map_err(|_| unfused("inner chunk grid"))?;
        Ok(Self {
            grid,
            per_shard,
            codec,
            index_range,
            missing,
        })
    }

    /// The shape of every inner chunk.
    pub(super) fn inner_shape(&self) -> &[NonZeroU64] {
        self.grid.chunk_shape()
    }

    /// The shard holding the inner chunk at `inner` (indices on the inner grid).
    pub(super) fn shard_of(&self, inner: &[u64]) -> ArrayIndices {
        let per_shard = self.per_shard.iter();
        inner
            .iter()
            .zip(per_shard)
            .map(|(i, n)| i / n.get())
            .collect()
    }

    /// The position of the inner chunk at `inner` in its shard's index (C order).
    pub(super) fn position(&self, inner: &[u64]) -> usize {
        let per_shard = inner.iter().zip(&self.per_shard);
        let at = per_shard.fold(0u64, |at, (i, n)| at * n.get() + i % n.get());
        usize::try_from(at).expect("an index held in memory")
    }

    /// Whether a read of `subset` fetches the shard of `region` whole (one request, as zarrs reads
    /// such a shard, where the index would take a request of its own): where the read covers it,
    /// or reaches into every inner chunk of it within the array (of `shape`) and those are
    /// `compressed` (each would be fetched whole anyway, after the index: zarr-python reads such a
    /// shard whole too).
    pub(super) fn whole(
        &self,
        region: &ArraySubset,
        subset: &ArraySubset,
        shape: &[u64],
        compressed: bool,
    ) -> bool {
        let (start, end) = (region.start(), region.end_exc());
        let (from, to) = (subset.start(), subset.end_exc());
        let dims = 0..start.len();
        if dims.clone().all(|d| from[d] <= start[d] && end[d] <= to[d]) {
            return true;
        }
        let inner = self.inner_shape();
        compressed
            && dims.into_iter().all(|d| {
                let size = inner[d].get();
                let last =
                    start[d] + end[d].min(shape[d]).saturating_sub(start[d] + 1) / size * size;
                from[d] < start[d] + size && to[d] > last
            })
    }

    /// The index of a shard from `bytes`, its index's bytes or the whole shard.
    ///
    /// # Errors
    /// [`Fallback::ShardIndex`] where the shard is too short to hold its index or the index does
    /// not decode: zarrs then reads the shard, and reports what it finds.
    pub(super) fn index(&self, bytes: &[u8]) -> Result<Arc<[u64]>, Fallback> {
        let options = CodecOptions::default();
        let entries = self.codec.decode_index(bytes, &self.per_shard, &options);
        entries.map(Into::into).map_err(|_| Fallback::ShardIndex)
    }

    /// Where the inner chunk at `inner` lies by its shard's index `entries`, within a shard of
    /// `len` bytes where that is known.
    pub(super) fn entry(&self, entries: &[u64], inner: &[u64], len: Option<u64>) -> Entry {
        let at = 2 * self.position(inner);
        match entries.get(at..at + 2) {
            Some(&[u64::MAX, u64::MAX]) => Entry::Missing,
            Some(&[offset, size]) => match offset.checked_add(size) {
                Some(end) if len.is_none_or(|len| end <= len) => Entry::At(offset, size),
                _ => Entry::Outside,
            },
            _ => Entry::Outside,
        }
    }
}

/// What a reader keeps of the shards it read
/// ([`FusedReader::with_shard_index_cache`](super::FusedReader::with_shard_index_cache)): the
/// index of each shard and the block tables of its Blosc-compressed inner chunks, at most `limit`
/// bytes of them; beyond, the shards kept longest ago are let go.
pub(super) struct Kept {
    limit: usize,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    bytes: usize,
    clock: u64,
    shards: HashMap<ArrayIndices, KeptShard>,
}

struct KeptShard {
    entries: Arc<[u64]>,
    tables: HashMap<usize, Arc<BlockTable>>,
    bytes: usize,
    used: u64,
}

impl Kept {
    /// Keeps at most `limit` bytes.
    pub(super) fn new(limit: usize) -> Self {
        Self {
            limit,
            state: Mutex::default(),
        }
    }

    /// What is kept, also after another thread panicked holding it (each change leaves whole
    /// entries; at worst a count of bytes off by one entry's).
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The index of `shard`, where it is kept.
    pub(super) fn index(&self, shard: &[u64]) -> Option<Arc<[u64]>> {
        (self.state().shards.get(shard)).map(|kept| Arc::clone(&kept.entries))
    }

    /// The block table of the inner chunk at `position` of `shard`, where it is kept.
    pub(super) fn table(&self, shard: &[u64], position: usize) -> Option<Arc<BlockTable>> {
        (self.state().shards.get(shard)).and_then(|kept| kept.tables.get(&position).cloned())
    }

    /// Keeps `entries`, the index of `shard` (with the block tables kept of it where it is the
    /// index kept before).
    pub(super) fn keep_index(&self, shard: &[u64], entries: &Arc<[u64]>) {
        let mut state = self.state();
        state.clock += 1;
        let used = state.clock;
        let bytes = entries.len() * 8 + shard.len() * 8 + size_of::<KeptShard>();
        let kept = KeptShard {
            entries: Arc::clone(entries),
            tables: HashMap::new(),
            bytes,
            used,
        };
        match state.shards.insert(shard.to_vec(), kept) {
            Some(old) if old.entries == *entries => {
                let again = KeptShard { used, ..old };
                state.shards.insert(shard.to_vec(), again);
            }
            Some(old) => state.bytes = state.bytes - old.bytes + bytes,
            None => state.bytes += bytes,
        }
        self.trim(&mut state);
    }

    /// Keeps `table`, the block table of the inner chunk at `position` of `shard`, where the
    /// shard's index is kept.
    pub(super) fn keep_table(&self, shard: &[u64], position: usize, table: Arc<BlockTable>) {
        let mut state = self.state();
        let Some(kept) = state.shards.get_mut(shard) else {
            return;
        };
        let bytes = table.bytes();
        let old = kept.tables.insert(position, table).map_or(0, |t| t.bytes());
        kept.bytes = kept.bytes + bytes - old;
        state.bytes = state.bytes + bytes - old;
        self.trim(&mut state);
    }

    /// Lets the shards kept longest ago go, to three quarters of the limit, where the kept ones
    /// hold more than the limit.
    fn trim(&self, state: &mut State) {
        if state.bytes <= self.limit {
            return;
        }
        let shards = state.shards.iter();
        let mut by_use: Vec<_> = shards.map(|(key, kept)| (kept.used, key.clone())).collect();
        by_use.sort_unstable();
        for (_, key) in by_use {
            if state.bytes <= self.limit / 4 * 3 {
                break;
            }
            if let Some(kept) = state.shards.remove(&key) {
                state.bytes -= kept.bytes;
            }
        }
    }
}
