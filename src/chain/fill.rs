//! Whether a fill value comes back from a round trip bit for bit, and the error where it does not.

use super::link::{Context, FillRule};
use crate::error::{Error, describe_bits};
use crate::numeric::{NumericType, decode, element_bits};

/// For a write: whether the fill value `fill` (of `t`) comes back bit for bit, from the whole
/// chain where the codec was built with its chain (`context`), else from the codec `name` on its
/// own (`round_trip`, its encode then its decode: one element, so it is decided on each write).
///
/// # Errors
/// Returns the error naming what the fill value becomes.
pub(crate) fn check_fill_rule(
    context: Option<&Context>,
    (t, fill): (NumericType, &[u8]),
    name: &str,
    round_trip: impl Fn(u64) -> Option<u64>,
) -> Result<(), Error> {
    match context.and_then(|context| context.fill_rule.as_ref()) {
        Some(FillRule::Survives) => return Ok(()),
        Some(FillRule::Changes(error)) => return Err(error.clone()),
        None => {}
    }
    fill_changes(t, element_bits(fill), name, round_trip).map_or(Ok(()), Err)
}

/// The error for a fill value `bits` of `t` that `round_trip` (through `through`) does not
/// return bit for bit, naming what it becomes and, if one is near, a fill value that survives.
pub(crate) fn fill_changes(
    t: NumericType,
    bits: u64,
    through: &str,
    round_trip: impl Fn(u64) -> Option<u64>,
) -> Option<Error> {
    let mask = if t.size() >= 8 {
        u64::MAX
    } else {
        (1 << (8 * t.size())) - 1
    };
    // The same bits; NaN payloads aside, which codecs need not keep.
    let same = |a: u64, b: u64| {
        a & mask == b & mask || (decode(t.kind(), a).is_nan() && decode(t.kind(), b).is_nan())
    };
    let back = round_trip(bits);
    if back.is_some_and(|back| same(back, bits)) {
        return None;
    }
    // What the fill value comes back as usually comes back as itself.
    let mut survivor = None;
    let mut candidate = back;
    for _ in 0..4 {
        let Some(c) = candidate else { break };
        match round_trip(c) {
            Some(next) if same(next, c) => {
                survivor = Some(describe_bits(t, c));
                break;
            }
            next => candidate = next,
        }
    }
    Some(Error::FillValueChanges {
        fill_value: describe_bits(t, bits),
        through: through.to_string(),
        becomes: back.map_or_else(|| "an error".to_string(), |b| describe_bits(t, b)),
        survivor,
    })
}
