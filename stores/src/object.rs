//! [`RangedObjectStore`]: each range of a value one `GetRange`, over any `object_store`.

use bytes::Bytes;
use futures::StreamExt;
use object_store::path::Path;
use object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt};
use zarrs_storage::byte_range::{ByteRange, ByteRangeIterator};
use zarrs_storage::{
    AsyncMaybeBytesIterator, AsyncReadableStorageTraits, MaybeBytes, StorageError, StoreKey,
};

use crate::range::{beyond_the_object, other, range_len};

/// An asynchronous store over any `object_store` (the ranges of one read fetched at once).
#[derive(Debug)]
pub struct RangedObjectStore<T> {
    object_store: T,
}

impl<T: ObjectStore> RangedObjectStore<T> {
    /// A store of `object_store`'s objects.
    #[must_use]
    pub fn new(object_store: T) -> Self {
        Self { object_store }
    }

    async fn range(&self, key: &StoreKey, range: ByteRange) -> Result<MaybeBytes, StorageError> {
        let get = match range {
            _ if range_len(range) == Some(0) => return Ok(Some(Bytes::new())),
            ByteRange::FromStart(start, None) => GetRange::Offset(start),
            ByteRange::FromStart(start, Some(len)) => GetRange::Bounded(start..start + len),
            ByteRange::Suffix(len) => GetRange::Suffix(len),
        };
        let options = GetOptions {
            range: Some(get),
            ..GetOptions::default()
        };
        match found(self.object_store.get_opts(&path(key), options).await)? {
            Some(result) => checked(range, result.bytes().await.map_err(other)?, key).map(Some),
            None => Ok(None),
        }
    }
}

#[async_trait::async_trait]
impl<T: ObjectStore> AsyncReadableStorageTraits for RangedObjectStore<T> {
    async fn get(&self, key: &StoreKey) -> Result<MaybeBytes, StorageError> {
        match found(self.object_store.get(&path(key)).await)? {
            Some(result) => Ok(Some(result.bytes().await.map_err(other)?)),
            None => Ok(None),
        }
    }

    async fn get_partial_many<'a>(
        &'a self,
        key: &StoreKey,
        byte_ranges: ByteRangeIterator<'a>,
    ) -> Result<AsyncMaybeBytesIterator<'a>, StorageError> {
        let parts =
            futures::future::try_join_all(byte_ranges.map(|range| self.range(key, range))).await?;
        let parts: Option<Vec<Bytes>> = parts.into_iter().collect();
        Ok(parts.map(|parts| futures::stream::iter(parts.into_iter().map(Ok)).boxed()))
    }

    async fn size_key(&self, key: &StoreKey) -> Result<Option<u64>, StorageError> {
        Ok(found(self.object_store.head(&path(key)).await)?.map(|meta| meta.size))
    }

    fn supports_get_partial(&self) -> bool {
        true
    }
}

fn path(key: &StoreKey) -> Path {
    Path::from(key.as_str())
}

/// `object_store`'s answer, `None` where the object does not exist.
fn found<T>(answer: Result<T, object_store::Error>) -> Result<Option<T>, StorageError> {
    match answer {
        Ok(answer) => Ok(Some(answer)),
        Err(object_store::Error::NotFound { .. }) => Ok(None),
        Err(err) => Err(other(err)),
    }
}

/// `part`, where it is as long as `range` asks (`object_store` has checked that its answer is the
/// range it asked for, which it may have cut at the object's end).
fn checked(range: ByteRange, part: Bytes, key: &StoreKey) -> Result<Bytes, StorageError> {
    match range_len(range) {
        Some(len) if part.len() as u64 != len => Err(beyond_the_object(range, key)),
        _ => Ok(part),
    }
}
