//! What the model says an array of a random chain gives: validating, writing and reading.

use super::config::Config;
use super::values::{encoding, same_number};
use crate::reference::{RefValue, decode, size};

/// What the model says validating, writing and reading give.
#[derive(Debug)]
pub(crate) enum Expected {
    /// The specifications reject the fill value (it cannot pass through a codec, or does not
    /// survive a `cast_value` by value): validation, writes and reads fail.
    Configuration,
    /// The fill value does not come back from the whole chain: validation and writes fail.
    FillChanges {
        /// Whether some input fails at a codec before the first whose own round trip changes the
        /// fill value. Written through the array as opened, each codec checks its own fill value
        /// and then its own elements, so zarrs reports that element's error for the chunks
        /// holding it (and the fill value's for the others).
        element_first: bool,
    },
    /// A value cannot be written, or could not be read back: the write fails.
    WriteFails,
    /// The values read back.
    Values(Vec<RefValue>),
}

/// `inputs` written, with the fill value zarrs pads edge chunks with (the array shape is not a
/// multiple of the chunk shape), then read.
pub(crate) fn expected(config: &Config, fill: RefValue, inputs: &[RefValue]) -> Expected {
    // The fill value through each codec, and the first codec whose own round trip changes it.
    let (mut encoded_fill, mut first_change) = (fill, None);
    for (i, step) in config.steps.iter().enumerate() {
        let Ok(next) = step.encode(encoded_fill) else {
            return Expected::Configuration;
        };
        let back = step.decode(next);
        if step.fill_must_survive() && !back.is_ok_and(|b| same_number(b, encoded_fill)) {
            return Expected::Configuration;
        }
        if first_change.is_none() && back != Ok(encoded_fill) {
            first_change = Some(i);
        }
        encoded_fill = next;
    }
    if config.decode(encoded_fill) != Ok(fill) {
        let before = &config.steps[..first_change.unwrap_or(config.steps.len())];
        let fails = |x| {
            before
                .iter()
                .try_fold(x, |x, step| {
                    step.encode(x).and_then(|y| step.decode(y).map(|_| y))
                })
                .is_err()
        };
        let element_first = inputs.iter().any(|&x| fails(x));
        return Expected::FillChanges { element_first };
    }
    let mut values = Vec::with_capacity(inputs.len());
    for &x in inputs.iter().chain([&fill]) {
        match config.encode(x).and_then(|y| config.decode(y)) {
            Ok(back) => values.push(back),
            Err(_) => return Expected::WriteFails,
        }
    }
    values.truncate(inputs.len());
    Expected::Values(values)
}

/// Whether some value of `from` (all of them, for types of up to 16 bits) writes through the
/// chain and cannot be read back, as the model computes it.
pub(crate) fn confirmed_unreadable(config: &Config, from: &str) -> Option<bool> {
    if size(from) > 2 {
        return None;
    }
    let count = 1u64 << (8 * size(from));
    Some(
        (0..count)
            .filter_map(|bits| encoding(from, bits))
            .any(|bits| {
                let x = decode(from, bits);
                // The last codec refuses what it cannot decode itself.
                let stored = config.encode(x);
                let last_ok = stored.is_ok_and(|s| {
                    config
                        .steps
                        .last()
                        .is_none_or(|step| step.decode(s).is_ok())
                });
                last_ok && stored.and_then(|s| config.decode(s)).is_err()
            }),
    )
}
