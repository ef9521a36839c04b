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
    FillChanges,
    /// A value cannot be written, or could not be read back: the write fails.
    WriteFails,
    /// The values read back.
    Values(Vec<RefValue>),
}

/// `inputs` written, with the fill value zarrs pads edge chunks with (the array shape is not a
/// multiple of the chunk shape), then read.
pub(crate) fn expected(config: &Config, fill: RefValue, inputs: &[RefValue]) -> Expected {
    let mut encoded_fill = fill;
    for step in &config.steps {
        let Ok(next) = step.encode(encoded_fill) else {
            return Expected::Configuration;
        };
        if step.fill_must_survive()
            && !step
                .decode(next)
                .is_ok_and(|b| same_number(b, encoded_fill))
        {
            return Expected::Configuration;
        }
        encoded_fill = next;
    }
    if config.decode(encoded_fill) != Ok(fill) {
        return Expected::FillChanges;
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

/// For a chain whose fill value does not come back ([`Expected::FillChanges`]), written through the
/// array as opened, where each codec checks its own fill value and then its own elements: whether
/// some input fails at a codec before the first that changes the fill value. zarrs then reports
/// that element's error for the chunks holding it, and the fill value's for the others.
pub(crate) fn element_fails_before_fill(
    config: &Config,
    fill: RefValue,
    inputs: &[RefValue],
) -> bool {
    let (mut fill, mut inputs) = (fill, inputs.to_vec());
    for step in &config.steps {
        let Ok(next) = step.encode(fill) else {
            return false;
        };
        if step.decode(next) != Ok(fill) {
            return false;
        }
        for x in &mut inputs {
            match step.encode(*x) {
                Ok(y) if step.decode(y).is_ok() => *x = y,
                _ => return true,
            }
        }
        fill = next;
    }
    false
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
