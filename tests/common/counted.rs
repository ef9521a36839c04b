//! A memory store that counts the reads made of it (zarrs' performance metrics adapter: a read
//! per `get` and per byte range), for tests of what a read fetches.

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

impl Take for Counted {
    fn take(&self) -> usize {
        self.take_bytes().0
    }

    fn take_bytes(&self) -> (usize, usize) {
        let counts = (self.reads(), self.bytes_read());
        self.reset();
        counts
    }
}
