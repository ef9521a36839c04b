//! A memory store that counts the reads made of it (zarrs' performance metrics adapter: a read
//! per `get` and per byte range), for tests of what a read fetches, and what the reads of a
//! shard's inner chunks take.

use zarrs::storage::storage_adapter::performance_metrics::PerformanceMetricsStorageAdapter;
use zarrs::storage::store::MemoryStore;

/// A memory store whose reads are counted.
pub(crate) type Counted = PerformanceMetricsStorageAdapter<MemoryStore>;

/// The counts taken since the last time.
pub(crate) trait Take {
    /// The reads made since the last call.
    fn take(&self) -> usize;

    /// The reads made and the bytes they returned since the last call.
    fn take_bytes(&self) -> (usize, usize);
}

impl<S: ?Sized> Take for PerformanceMetricsStorageAdapter<S> {
    fn take(&self) -> usize {
        self.take_bytes().0
    }

    fn take_bytes(&self) -> (usize, usize) {
        let counts = (self.reads(), self.bytes_read());
        self.reset();
        counts
    }
}

/// The index at the end of `shard` (little-endian, then a crc32c): the offset and the size of
/// each of its `inner` inner chunks, in C order.
pub(crate) fn shard_index(shard: &[u8], inner: usize) -> Vec<(u64, u64)> {
    let index = &shard[shard.len() - 16 * inner - 4..shard.len() - 4];
    let number = |at: usize| u64::from_le_bytes(index[at..at + 8].try_into().unwrap());
    (0..inner)
        .map(|i| (number(16 * i), number(16 * i + 8)))
        .collect()
}

/// The most bytes between two ranges of a shard the fused read fetches in one request.
pub(crate) const GAP: u64 = 4096;

/// The requests and the bytes that fetch `ranges` (start, length) of one shard where ranges at
/// most [`GAP`] bytes apart are fetched together (the gaps with them); overlapping ranges are
/// fetched apart.
pub(crate) fn requests_and_bytes(mut ranges: Vec<(u64, u64)>) -> (usize, u64) {
    ranges.sort_unstable();
    ranges.dedup();
    let (mut requests, mut bytes) = (0, 0);
    let mut end: Option<u64> = None;
    for (start, len) in ranges {
        match end.and_then(|end| start.checked_sub(end)) {
            Some(gap) if gap <= GAP => bytes += gap + len,
            _ => {
                requests += 1;
                bytes += len;
            }
        }
        end = Some(start + len);
    }
    (requests, bytes)
}

/// The requests that fetch `ranges`, as [`requests_and_bytes`].
pub(crate) fn requests(ranges: Vec<(u64, u64)>) -> usize {
    requests_and_bytes(ranges).0
}
