//! Inner chunks stored one after the other in their shard, fetched together: the byte ranges a
//! read needs of one shard that follow each other, end to end or at most [`GAP`] bytes apart,
//! are fetched as one range, each part then cut from it. Shards store their inner chunks in the
//! order they were written (zarr-python in Morton order, so the two chunks of a window across a
//! boundary between rows of inner chunks lie end to end; zarrs in the order it encoded them), and
//! a part of a Blosc chunk starts after its header. The requests are fewer, which is what a window
//! from an object store or an HTTP server pays for; the bytes at most the gaps more.

use std::collections::HashMap;

use zarrs::storage::Bytes;
use zarrs::storage::byte_range::ByteRange;

use super::shards::Source;

/// The most bytes between two ranges fetched together (those in the gap are fetched and left):
/// a Blosc chunk's header and block starts before the first block a read needs take 16 bytes and
/// 4 a block, and a page of bytes costs far less than a request to an object store.
pub(super) const GAP: u64 = 4096;

/// Ranges of one shard that follow each other, fetched as one.
pub(super) struct Run {
    /// The position of the shard among those of the read.
    pub(super) shard: usize,
    /// The range that holds them all.
    pub(super) range: ByteRange,
    /// Each range's start and length.
    parts: Vec<(u64, u64)>,
}

/// A range's bytes, as fetched with others.
pub(super) enum Part {
    /// It was not fetched with others.
    Alone,
    /// Its bytes, none where the fetch found nothing or failed.
    With(Option<Bytes>),
}

/// The bytes of the ranges fetched with others.
#[derive(Default)]
pub(super) struct Together {
    /// Each range fetched with others, by its shard's position, its start and its length: its
    /// bytes, none where the fetch found nothing or failed.
    parts: HashMap<(usize, u64, u64), Option<Bytes>>,
}

impl Source {
    /// The start and the length of the range of its shard a source fetches.
    fn fetched(&self) -> Option<(u64, u64)> {
        match self {
            Source::Range(range)
            | Source::Front(range, ..)
            | Source::Blocks(range, ..)
            | Source::Elements(range, _) => match *range {
                ByteRange::FromStart(start, Some(len)) => Some((start, len)),
                _ => None,
            },
            Source::Fill | Source::Held(_) | Source::Zarrs => None,
        }
    }
}

/// The runs of two or more ranges that follow each other (at most [`GAP`] bytes apart) among
/// those `sources` fetch (each with the position of its shard), in the order of the shards and of
/// the ranges in each.
pub(super) fn runs<'s>(sources: impl IntoIterator<Item = (usize, &'s Source)>) -> Vec<Run> {
    let mut ranges: Vec<(usize, u64, u64)> = sources
        .into_iter()
        .filter_map(|(shard, source)| source.fetched().map(|(start, len)| (shard, start, len)))
        .filter(|&(_, start, len)| len > 0 && start.checked_add(len).is_some())
        .collect();
    ranges.sort_unstable();
    ranges.dedup();
    // Each shard's ranges in order, cut where one starts before the last ended (overlapping) or
    // more than a gap after it.
    let follows = |(last, len): (u64, u64), start: u64| {
        start.checked_sub(last + len).is_some_and(|gap| gap <= GAP)
    };
    let mut chains: Vec<(usize, Vec<(u64, u64)>)> = Vec::new();
    for (shard, start, len) in ranges {
        match chains.last_mut() {
            Some((at, parts))
                if *at == shard && parts.last().is_some_and(|&last| follows(last, start)) =>
            {
                parts.push((start, len));
            }
            _ => chains.push((shard, vec![(start, len)])),
        }
    }
    chains
        .into_iter()
        .filter_map(|(shard, parts)| run(shard, parts))
        .collect()
}

/// The run of `parts` of the shard at `shard`, where they are two or more.
fn run(shard: usize, parts: Vec<(u64, u64)>) -> Option<Run> {
    let (&(start, _), &(last, len)) = (parts.first()?, parts.last()?);
    (parts.len() > 1).then(|| Run {
        shard,
        range: ByteRange::FromStart(start, Some(last + len - start)),
        parts,
    })
}

impl Together {
    /// The parts of `runs` cut from what the store returned for each (`fetched`, in the same
    /// order): none of a run whose bytes are not as many as it asked for.
    pub(super) fn new(runs: &[Run], fetched: impl IntoIterator<Item = Option<Bytes>>) -> Self {
        let mut parts = HashMap::new();
        for (run, bytes) in runs.iter().zip(fetched) {
            let ByteRange::FromStart(first, Some(len)) = run.range else {
                continue;
            };
            let bytes = bytes.filter(|bytes| bytes.len() as u64 == len);
            for &(start, len) in &run.parts {
                let part = bytes.as_ref().and_then(|bytes| {
                    let from = usize::try_from(start - first).ok()?;
                    Some(bytes.slice(from..from + usize::try_from(len).ok()?))
                });
                parts.insert((run.shard, start, len), part);
            }
        }
        Self { parts }
    }

    /// The bytes of `range` of the shard at `shard`, where it was fetched with others.
    pub(super) fn get(&self, shard: usize, range: ByteRange) -> Part {
        let ByteRange::FromStart(start, Some(len)) = range else {
            return Part::Alone;
        };
        self.parts
            .get(&(shard, start, len))
            .map_or(Part::Alone, |bytes| Part::With(bytes.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(start: u64, len: u64) -> Source {
        Source::Range(ByteRange::FromStart(start, Some(len)))
    }

    /// The runs as (shard, start, length, parts).
    fn found(sources: &[(usize, Source)]) -> Vec<(usize, u64, u64, usize)> {
        runs(sources.iter().map(|(shard, source)| (*shard, source)))
            .into_iter()
            .map(|run| {
                let ByteRange::FromStart(start, Some(len)) = run.range else {
                    panic!("a run is a range from a start")
                };
                (run.shard, start, len, run.parts.len())
            })
            .collect()
    }

    #[test]
    fn ranges_that_follow_each_other_in_one_shard_form_runs() {
        // Past the gap from the last range.
        let far = GAP + 1;
        let elements = Source::Elements(ByteRange::FromStart(25 + far, Some(5)), 0);
        let sources = [
            (0, range(10, 10)),
            (0, range(0, 10)),
            (0, range(20 + far, 5)),
            (0, elements),
            (0, Source::Fill),
            (0, Source::Zarrs),
            // The same range again (one run part), an empty one and one from the end (none).
            (0, range(10, 10)),
            (0, range(20, 0)),
            (0, Source::Range(ByteRange::Suffix(10))),
            // End to end with shard 0's first, but in another shard; the next two of shard 1
            // follow each other.
            (1, range(20, 5)),
            (1, range(25 + far, 8)),
            (1, range(33 + far, 2)),
            // Overlapping: not fetched together.
            (2, range(0, 10)),
            (2, range(5, 10)),
            // A gap of `GAP` bytes, then of one more.
            (3, range(0, 10)),
            (3, range(10 + GAP, 5)),
            (3, range(15 + GAP + far, 5)),
        ];
        assert_eq!(
            found(&sources),
            [
                (0, 0, 20, 2),
                (0, 20 + far, 10, 2),
                (1, 25 + far, 10, 2),
                (3, 0, 15 + GAP, 2)
            ]
        );
    }

    #[test]
    fn parts_are_cut_from_their_run() {
        let sources = [
            (0, range(4, 3)),
            (0, range(7, 1)),
            (0, range(9, 1)),
            (1, range(0, 2)),
            (1, range(2, 2)),
        ];
        let runs = runs(sources.iter().map(|(shard, source)| (*shard, source)));
        let together = Together::new(
            &runs,
            [
                // Bytes 4 to 9, the gap at 8 among them.
                Some(Bytes::from_static(b"abcdef")),
                // Fewer bytes than asked for: none of its parts.
                Some(Bytes::from_static(b"abc")),
            ],
        );
        // The bytes, none, or not fetched with others.
        let part = |shard, range| match together.get(shard, range) {
            Part::With(bytes) => Some(bytes),
            Part::Alone => None,
        };
        let at = |start, len| ByteRange::FromStart(start, Some(len));
        assert_eq!(part(0, at(4, 3)), Some(Some(Bytes::from_static(b"abc"))));
        assert_eq!(part(0, at(7, 1)), Some(Some(Bytes::from_static(b"d"))));
        assert_eq!(part(0, at(9, 1)), Some(Some(Bytes::from_static(b"f"))));
        assert_eq!(part(1, at(0, 2)), Some(None));
        assert_eq!(part(1, at(2, 2)), Some(None));
        assert_eq!(part(0, at(10, 1)), None);
        assert_eq!(part(0, ByteRange::Suffix(2)), None);
    }
}
