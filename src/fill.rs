//! The fill value rule of both codecs.
//!
//! zarrs returns the fill value for chunks that were never written without running any codec, but
//! an element of a written chunk goes through the codecs and back. An element equal to the fill
//! value reads the same in both cases only if the fill value comes back from the codec chain bit
//! for bit (any NaN counting as the same NaN). So a write fails for a chunk that holds an element
//! equal to the fill value when a codec does not return its input fill value unchanged (every
//! codec checks its own, which makes the whole chain consistent); the error names the element and
//! suggests a fill value that does come back. Chunks without such an element (a whole chunk of
//! data) are written as the specifications say. A partial write of a chunk never written before
//! fills the rest with the fill value, so it fails too.
//!
//! Reading does not apply this rule, so arrays written elsewhere stay readable: it requires only
//! what the specifications do (the fill value passes through each codec, and for `cast_value`
//! survives the round trip by value).

use crate::numeric::{NumericType, decode};

/// Whether two encodings of `t` are the same, any NaN matching any NaN.
pub(crate) fn same_bits(t: NumericType, a: u64, b: u64) -> bool {
    let mask = if t.size() >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * t.size())) - 1
    };
    a & mask == b & mask || (decode(t.kind(), a).is_nan() && decode(t.kind(), b).is_nan())
}

/// Checks that the fill value `bits` of `t` comes back unchanged from `round_trip` (which gives
/// the bits after encoding and decoding, or `None` if that fails).
///
/// # Errors
/// Returns why not, and a fill value that does come back unchanged, if one is found near it.
pub(crate) fn check_bits(
    t: NumericType,
    bits: u64,
    round_trip: impl Fn(u64) -> Option<u64>,
) -> Result<(), String> {
    let Some(back) = round_trip(bits) else {
        return Err("does not pass through the codec and back".to_string());
    };
    if same_bits(t, bits, back) {
        return Ok(());
    }
    let (x, z) = (decode(t.kind(), bits), decode(t.kind(), back));
    // What the fill value reads back as usually reads back as itself.
    let mut candidate = back;
    let mut suggestion = None;
    for _ in 0..4 {
        match round_trip(candidate) {
            Some(next) if same_bits(t, candidate, next) => {
                suggestion = Some(decode(t.kind(), candidate));
                break;
            }
            Some(next) => candidate = next,
            None => break,
        }
    }
    let advice = suggestion.map_or_else(
        || "choose a fill value that the codec returns unchanged".to_string(),
        |s| format!("use the fill value {s}, which the codec returns unchanged"),
    );
    Err(format!(
        "comes back from the codec as {z}, so it would read as {z} from chunks that were written but as {x} from chunks never written; {advice}"
    ))
}

/// For a write of `bytes` (native-endian elements of `t`): the first element equal to the fill
/// value `fill` when the fill value does not survive `round_trip` bit for bit, and why.
pub(crate) fn check_write(
    t: NumericType,
    bytes: &[u8],
    fill: u64,
    round_trip: impl Fn(u64) -> Option<u64>,
) -> Result<(), (usize, String)> {
    match check_bits(t, fill, round_trip) {
        Ok(()) => Ok(()),
        Err(why) => find_fill(t, bytes, fill).map_or(Ok(()), |index| Err((index, why))),
    }
}

/// The index of the first element of `bytes` (native-endian elements of `t`) equal to the fill
/// value `fill` (bit for bit, any NaN matching a NaN fill value).
pub(crate) fn find_fill(t: NumericType, bytes: &[u8], fill: u64) -> Option<usize> {
    bytes
        .chunks_exact(t.size())
        .position(|element| same_bits(t, crate::numeric::element_bits(element), fill))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bits_must_survive_and_a_surviving_fill_value_is_suggested() {
        let t = NumericType::Float64;
        // A round trip that turns 0.1 into 0.10000000000000002 and keeps that one.
        let odd = 0.1f64.to_bits();
        let round_trip = |bits: u64| Some(if bits == odd { odd + 1 } else { bits });
        assert_eq!(check_bits(t, 0.5f64.to_bits(), round_trip), Ok(()));
        let error = check_bits(t, odd, round_trip).unwrap_err();
        assert!(
            error.contains("as 0.10000000000000002 from chunks that were written but as 0.1")
                && error.contains("use the fill value 0.10000000000000002"),
            "{error}"
        );
        let bytes: Vec<u8> = [0.5f64, 0.1, 0.1]
            .iter()
            .flat_map(|x| x.to_ne_bytes())
            .collect();
        assert_eq!(find_fill(t, &bytes, odd), Some(1));
        assert_eq!(find_fill(t, &bytes, 0.25f64.to_bits()), None);
        // -0 becoming +0, and NaN payloads, which count as the same NaN.
        let zero = |_: u64| Some(0);
        assert!(check_bits(t, (-0.0f64).to_bits(), zero).is_err());
        let canonical = |_: u64| Some(f64::NAN.to_bits());
        assert_eq!(check_bits(t, 0x7ff8_0000_0000_0001, canonical), Ok(()));
    }
}
