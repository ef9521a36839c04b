//! [`RangedHttpStore`]: each range of a value one `GET`, over HTTP.

use bytes::Bytes;
use reqwest::StatusCode;
use reqwest::header::{CONTENT_LENGTH, CONTENT_RANGE, RANGE};
use zarrs_storage::byte_range::{ByteRange, ByteRangeIterator};
use zarrs_storage::{
    MaybeBytes, MaybeBytesIterator, ReadableStorageTraits, StorageError, StoreKey,
};

use crate::range::{beyond_the_object, other, range_len};

/// A synchronous HTTP store under a base URL (`reqwest`'s blocking client).
#[derive(Debug)]
pub struct RangedHttpStore {
    base_url: String,
    client: reqwest::blocking::Client,
}

impl RangedHttpStore {
    /// A store of the objects under `base_url`.
    #[must_use]
    pub fn new(base_url: &str) -> Self {
        Self {
            base_url: base_url.trim_end_matches('/').to_string(),
            client: reqwest::blocking::Client::new(),
        }
    }

    fn url(&self, key: &StoreKey) -> String {
        format!("{}/{}", self.base_url, key.as_str())
    }

    /// One range of `key`'s object, or `None` where there is no such object.
    fn range(&self, key: &StoreKey, range: ByteRange) -> Result<MaybeBytes, StorageError> {
        if range_len(range) == Some(0) {
            return Ok(Some(Bytes::new()));
        }
        let response = self
            .client
            .get(self.url(key))
            .header(RANGE, http_range(range))
            .send()
            .map_err(other)?;
        match response.status() {
            StatusCode::NOT_FOUND => Ok(None),
            // A server that does not serve ranges answers with the whole object.
            StatusCode::OK => within(range, &response.bytes().map_err(other)?, key).map(Some),
            StatusCode::PARTIAL_CONTENT => {
                let answered = response
                    .headers()
                    .get(CONTENT_RANGE)
                    .and_then(|value| content_range(value.to_str().ok()?));
                let Some((start, end, size)) = answered else {
                    return Err(StorageError::Other(format!(
                        "{}: a partial answer to the range {range} without a Content-Range",
                        self.url(key)
                    )));
                };
                if !fits(range, size) {
                    return Err(beyond_the_object(range, key));
                }
                let body = response.bytes().map_err(other)?;
                if (start, end) == (range.start(size), range.end(size))
                    && body.len() as u64 == end - start
                {
                    Ok(Some(body))
                } else {
                    // A server that answers another range than the one asked for (some answer
                    // a range from the end with the object's first bytes).
                    Err(StorageError::Other(format!(
                        "{}: the answer to the range {range} holds {} bytes of {start}..{end}",
                        self.url(key),
                        body.len()
                    )))
                }
            }
            status => Err(unexpected(
                &format!("{} (the range {range})", self.url(key)),
                status,
            )),
        }
    }
}

impl ReadableStorageTraits for RangedHttpStore {
    fn get(&self, key: &StoreKey) -> Result<MaybeBytes, StorageError> {
        let response = self.client.get(self.url(key)).send().map_err(other)?;
        match response.status() {
            StatusCode::OK => Ok(Some(response.bytes().map_err(other)?)),
            StatusCode::NOT_FOUND => Ok(None),
            status => Err(unexpected(&self.url(key), status)),
        }
    }

    fn get_partial_many<'a>(
        &'a self,
        key: &StoreKey,
        byte_ranges: ByteRangeIterator<'a>,
    ) -> Result<MaybeBytesIterator<'a>, StorageError> {
        let mut parts = Vec::new();
        for range in byte_ranges {
            match self.range(key, range)? {
                Some(part) => parts.push(Ok(part)),
                None => return Ok(None),
            }
        }
        Ok(Some(Box::new(parts.into_iter())))
    }

    fn size_key(&self, key: &StoreKey) -> Result<Option<u64>, StorageError> {
        let response = self.client.head(self.url(key)).send().map_err(other)?;
        match response.status() {
            StatusCode::OK => response
                .headers()
                .get(CONTENT_LENGTH)
                .and_then(|value| value.to_str().ok()?.parse().ok())
                .map(Some)
                .ok_or_else(|| StorageError::Other(format!("{}: no size", self.url(key)))),
            StatusCode::NOT_FOUND => Ok(None),
            status => Err(unexpected(&self.url(key), status)),
        }
    }

    fn supports_get_partial(&self) -> bool {
        true
    }
}

/// Whether `range` lies within an object of `size` bytes.
fn fits(range: ByteRange, size: u64) -> bool {
    match range {
        ByteRange::FromStart(start, len) => start.saturating_add(len.unwrap_or(0)) <= size,
        ByteRange::Suffix(len) => len <= size,
    }
}

/// An HTTP status the store does not expect for `url`.
fn unexpected(url: &str, status: StatusCode) -> StorageError {
    StorageError::Other(format!("{url}: HTTP status {status}"))
}

/// `range` as an HTTP `Range` header (of a range that is not empty).
fn http_range(range: ByteRange) -> String {
    match range {
        ByteRange::FromStart(start, None) => format!("bytes={start}-"),
        ByteRange::FromStart(start, Some(len)) => format!("bytes={start}-{}", start + len - 1),
        ByteRange::Suffix(len) => format!("bytes=-{len}"),
    }
}

/// The part of a whole object that `range` asks for.
fn within(range: ByteRange, whole: &Bytes, key: &StoreKey) -> Result<Bytes, StorageError> {
    let size = whole.len() as u64;
    if !fits(range, size) {
        return Err(beyond_the_object(range, key));
    }
    let (start, end) = (range.start(size), range.end(size));
    Ok(whole.slice(usize::try_from(start).unwrap()..usize::try_from(end).unwrap()))
}

/// The first byte, the end (exclusive) and the object's size of a `Content-Range` header
/// (`bytes 0-99/1234`), where it gives all three.
fn content_range(header: &str) -> Option<(u64, u64, u64)> {
    let (range, size) = header.strip_prefix("bytes ")?.split_once('/')?;
    let (first, last) = range.split_once('-')?;
    let (first, last, size): (u64, u64, u64) =
        (first.parse().ok()?, last.parse().ok()?, size.parse().ok()?);
    (first <= last && last < size).then_some((first, last + 1, size))
}

#[cfg(test)]
mod tests {
    use super::{ByteRange, Bytes, StoreKey, content_range, within};

    #[test]
    fn a_whole_object_answered_for_a_range_gives_the_range() {
        let key = StoreKey::new("c/0").unwrap();
        let whole = Bytes::from_static(b"0123456789");
        let part = |range| within(range, &whole, &key);
        assert_eq!(part(ByteRange::FromStart(3, Some(4))).unwrap(), "3456");
        assert_eq!(part(ByteRange::FromStart(8, None)).unwrap(), "89");
        assert_eq!(part(ByteRange::Suffix(2)).unwrap(), "89");
        assert_eq!(part(ByteRange::Suffix(10)).unwrap(), "0123456789");
        for beyond in [
            ByteRange::FromStart(8, Some(3)),
            ByteRange::FromStart(11, None),
            ByteRange::Suffix(11),
        ] {
            let err = part(beyond).unwrap_err().to_string();
            assert!(err.contains("lies beyond the object"), "{beyond}: {err}");
        }
    }

    #[test]
    fn content_ranges_give_the_bytes_and_the_size_or_nothing() {
        assert_eq!(content_range("bytes 0-99/1234"), Some((0, 100, 1234)));
        assert_eq!(
            content_range("bytes 1233-1233/1234"),
            Some((1233, 1234, 1234))
        );
        for unusable in [
            "bytes 0-99/*",
            "bytes */1234",
            "bytes 5-4/1234",
            "bytes 0-1234/1234",
            "items 0-99/1234",
            "bytes 0-99",
        ] {
            assert_eq!(content_range(unusable), None, "{unusable}");
        }
    }
}
