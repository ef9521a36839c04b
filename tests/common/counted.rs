//! A memory store that counts the reads made of it, for tests of what a read fetches.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use zarrs::storage::byte_range::ByteRangeIterator;
use zarrs::storage::store::MemoryStore;
use zarrs::storage::{MaybeBytesIterator, ReadableStorageTraits, StorageError, StoreKey};

/// A memory store that counts the reads made of it (each `get` or range request) and the bytes
/// they return.
#[derive(Debug)]
pub(crate) struct Counted {
    inner: Arc<MemoryStore>,
    reads: AtomicUsize,
    bytes: AtomicUsize,
}

impl Counted {
    pub(crate) fn new(inner: Arc<MemoryStore>) -> Self {
        Self {
            inner,
            reads: AtomicUsize::new(0),
            bytes: AtomicUsize::new(0),
        }
    }

    /// The reads made since the last call.
    pub(crate) fn take(&self) -> usize {
        self.bytes.swap(0, Ordering::SeqCst);
        self.reads.swap(0, Ordering::SeqCst)
    }

    /// The reads made and the bytes they returned since the last call.
    pub(crate) fn take_bytes(&self) -> (usize, usize) {
        let bytes = self.bytes.swap(0, Ordering::SeqCst);
        (self.reads.swap(0, Ordering::SeqCst), bytes)
    }
}

impl ReadableStorageTraits for Counted {
    fn get_partial_many<'a>(
        &'a self,
        key: &StoreKey,
        byte_ranges: ByteRangeIterator<'a>,
    ) -> Result<MaybeBytesIterator<'a>, StorageError> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        let parts: Option<Vec<_>> = self
            .inner
            .get_partial_many(key, byte_ranges)?
            .map(Iterator::collect::<Result<_, _>>)
            .transpose()?;
        Ok(parts.map(|parts: Vec<zarrs::storage::Bytes>| {
            let len: usize = parts.iter().map(zarrs::storage::Bytes::len).sum();
            self.bytes.fetch_add(len, Ordering::SeqCst);
            let parts: Box<dyn Iterator<Item = Result<zarrs::storage::Bytes, StorageError>>> =
                Box::new(parts.into_iter().map(Ok));
            parts
        }))
    }

    fn size_key(&self, key: &StoreKey) -> Result<Option<u64>, StorageError> {
        self.inner.size_key(key)
    }

    fn supports_get_partial(&self) -> bool {
        true
    }
}
