//! Which values the later codecs of a chain can hand an earlier codec's decode.
//!
//! Each codec makes sure that what it encodes it can decode again. A later codec that rounds,
//! clamps, wraps or maps a value changes what reading hands back to the codecs before it, and
//! those may be unable to decode the changed value. This module follows the values through the
//! chain, from every value of the array's data type:
//! 1. forwards, the values each codec can produce (`reach`), and the values a codec's own decode
//!    gives back where they differ from what it encoded (its *changed returns*);
//! 2. backwards, each codec's changed returns through the decodes of the codecs before it, each
//!    of which must accept them.
//!
//! The sets are never smaller than what can occur (see [`ValueSet`]), so a chain that passes can
//! read back whatever its codecs accept to write.

use std::cmp::Ordering;

use super::step::Step;
use super::values::{ValueSet, enumerable, neighbour};
use crate::numeric::fault::FaultKind;
use crate::numeric::finite_range;
use crate::numeric::{Kind, NumericType, RoundingMode, Value, decode, encode};

/// A value that a codec's decode cannot take, although a later codec can hand it back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unreadable {
    /// The position of the codec whose decode fails.
    pub(crate) codec: usize,
    /// The position of the later codec whose rounding, clamping, wrapping or mapping gives it.
    pub(crate) origin: usize,
    /// The value (of the failing codec's encoded data type).
    pub(crate) value: Value,
    /// Why the decode fails.
    pub(crate) fault: FaultKind,
}

/// Checks that every value the later codecs of `steps` hand back, each codec before them can
/// decode (following every value of a 16-bit type takes milliseconds).
///
/// # Errors
/// Returns the first value that cannot be decoded.
pub(crate) fn check(steps: &[Step]) -> Result<(), Unreadable> {
    let Some(first) = steps.first() else {
        return Ok(());
    };
    if steps.len() < 2 {
        return Ok(());
    }
    let mut reach = ValueSet::all(first.input());
    let mut changed = Vec::with_capacity(steps.len());
    for (position, step) in steps.iter().enumerate() {
        // The first codec's changed returns go to the array; the last one's output is stored.
        let (next, returns) = forward(step, &reach, position > 0, position + 1 < steps.len());
        changed.push(returns);
        reach = next;
    }
    // The changed returns of codec `origin`, decoded by each codec before it.
    for (origin, returns) in changed.iter().enumerate().skip(1) {
        let mut values = returns.clone();
        for codec in (0..origin).rev() {
            let step = &steps[codec];
            if let Some((value, fault)) = first_failure(step, &values) {
                return Err(Unreadable {
                    codec,
                    origin,
                    value,
                    fault,
                });
            }
            values = decode_all(step, &values);
        }
    }
    Ok(())
}

/// The values `step` encodes `reach` to (if `onwards`), and the values its decode gives back
/// where they differ from the input (in the input type; if `returns`).
fn forward(
    step: &Step,
    reach: &ValueSet,
    want_returns: bool,
    onwards: bool,
) -> (ValueSet, ValueSet) {
    let (from, to) = (step.input(), step.output());
    let mut out = ValueSet::empty(to);
    let mut returns = ValueSet::empty(from);
    let through = |inputs: &[u64], out: &mut ValueSet, returns: &mut ValueSet| {
        let encoded: Vec<(u64, u64)> = inputs
            .iter()
            .zip(step.encode_all(inputs))
            .filter_map(|(&x, y)| y.ok().map(|y| (x, y)))
            .collect();
        for &(_, y) in &encoded {
            out.insert(y);
        }
        if want_returns {
            let ys: Vec<u64> = encoded.iter().map(|&(_, y)| y).collect();
            for (&(x, _), back) in encoded.iter().zip(step.decode_all(&ys)) {
                if let Ok(back) = back
                    && decode(from.kind(), back) != decode(from.kind(), x)
                {
                    returns.insert(back);
                }
            }
        }
    };
    through(&reach.elements(), &mut out, &mut returns);
    if let Some((lo, hi)) = reach.interval {
        // The ends, and the scalar_map keys within.
        let ends: Vec<u64> = [lo, hi]
            .into_iter()
            .chain(
                step.encode_keys()
                    .into_iter()
                    .filter(|&k| between(k, lo, hi)),
            )
            .map(|v| bits_of(from, v))
            .collect();
        through(&ends, &mut out, &mut returns);
        // The keys went through as they are; the values between them follow the procedure
        // without the map.
        if (want_returns || onwards)
            && let Some(inner) = trim(from, (lo, hi), &step.encode_keys())
        {
            forward_interval(step, inner, want_returns, &mut out, &mut returns);
        }
    }
    (out, returns)
}

/// Whether `v` lies in `[lo, hi]`.
fn between(v: Value, lo: Value, hi: Value) -> bool {
    v.compare(lo).is_some_and(Ordering::is_ge) && v.compare(hi).is_some_and(Ordering::is_le)
}

/// The least and the greatest value of `t` within `[lo, hi]` that are not among `keys` (none if
/// every value there is a key).
fn trim(t: NumericType, (lo, hi): (Value, Value), keys: &[Value]) -> Option<(Value, Value)> {
    let is_key = |v: Value| keys.iter().any(|key| key.same_number(v));
    let inward = |mut v: Value, up: bool| {
        while is_key(v) {
            v = decode(t.kind(), neighbour(t, bits_of(t, v), up)?);
            if !between(v, lo, hi) {
                return None;
            }
        }
        Some(v)
    };
    Some((inward(lo, true)?, inward(hi, false)?))
}

/// The encoding of a value of `t`.
fn bits_of(t: NumericType, v: Value) -> u64 {
    encode(v, t.kind(), RoundingMode::NearestEven, None).expect("a value of the type")
}

/// [`forward`] of the values of the type between `lo` and `hi`, neither of them a `scalar_map` key
/// of the encode.
fn forward_interval(
    step: &Step,
    (lo, hi): (Value, Value),
    want_returns: bool,
    out: &mut ValueSet,
    returns: &mut ValueSet,
) {
    let (from, to) = (step.input(), step.output());
    let bits = |v: Value| bits_of(from, v);
    let within = |v: Value| between(v, lo, hi);
    // Every value between the ends' images (or the type's range where an end fails).
    let (out_lo, out_hi) = finite_range(to);
    let image = |v: Value, toward_max: bool| {
        step.encode(bits(v))
            .ok()
            .map(|y| decode(to.kind(), y))
            .filter(|y| matches!(y, Value::Finite { .. }))
            .unwrap_or(if toward_max { out_hi } else { out_lo })
    };
    let increasing = step.increasing();
    let wrapping = step.wraps() && !step.exact_between(lo, hi);
    let (a, b) = if wrapping {
        (out_lo, out_hi)
    } else {
        (image(lo, !increasing), image(hi, increasing))
    };
    // Whether the stored value `y`, which decodes to `back`, is reached from an input within
    // `[lo, hi]` other than `back` (any float input may round to it; wrapping reaches anything).
    let float_input = matches!(from.kind(), Kind::Float(_));
    let changed = |y: u64, back: u64| {
        float_input
            || wrapping
            || candidates(step, y).into_iter().any(|x| {
                let v = decode(from.kind(), x);
                within(v) && step.encode(x) == Ok(y) && v != decode(from.kind(), back)
            })
    };
    if enumerable(to) {
        // Each value of the narrow output: reached, and reached from a value it does not
        // decode to?
        let mut image = ValueSet::empty(to);
        image.insert_interval(a, b);
        let ys = image.points();
        for &y in &ys {
            out.insert(y);
        }
        if want_returns {
            let backs = step.decode_all(&ys);
            for (&y, back) in ys.iter().zip(backs) {
                if let Ok(back) = back
                    && changed(y, back)
                {
                    returns.insert(back);
                }
            }
        }
    } else {
        out.insert_interval(a, b);
        if want_returns {
            // A stored value within the image that the decode maps elsewhere: reached from an
            // input it does not decode to, unless only its own input reaches it.
            let (a, b) = if a.compare(b) == Some(Ordering::Greater) {
                (b, a)
            } else {
                (a, b)
            };
            for (key, value) in step.decode_entries() {
                if between(decode(to.kind(), key), a, b) && changed(key, value) {
                    returns.insert(value);
                }
            }
        }
        if want_returns && wrapping {
            // Wrapping is not monotonic: any stored value of the range can come back, from an
            // input it does not decode to.
            let (range_lo, range_hi) = finite_range(from);
            let back = |v: Value, extreme: Value| {
                step.decode_unmapped(bits_of(to, v))
                    .map_or(extreme, |x| decode(from.kind(), x))
            };
            returns.insert_interval(back(out_lo, range_lo), back(out_hi, range_hi));
        } else if want_returns && !step.exact_between(lo, hi) {
            // Decoding after encoding never decreases with the input, so the values it changes
            // lie between what it gives the ends, or their neighbours where an end comes back
            // as itself (without the map: the keys and the decode's entries went on their own).
            let round_trip = |v: Value| {
                step.encode_unmapped(bits(v))
                    .and_then(|y| step.decode_unmapped(y))
                    .ok()
                    .map(|x| decode(from.kind(), x))
            };
            let (range_lo, range_hi) = finite_range(from);
            let end = |v: Value, inward_up: bool, extreme: Value| match round_trip(v) {
                Some(back) if back != v => back,
                Some(_) => neighbour(from, bits(v), inward_up)
                    .and_then(|next| round_trip(decode(from.kind(), next)))
                    .unwrap_or(v),
                None => extreme,
            };
            returns.insert_interval(end(lo, true, range_lo), end(hi, false, range_hi));
        }
    }
}

/// The inputs nearest to where `y` lies: the one at or below its value, the one at or above, and
/// the next ones beyond.
fn candidates(step: &Step, y: u64) -> Vec<u64> {
    let (from, to) = (step.input(), step.output());
    let v = decode(to.kind(), y);
    let mut found = Vec::new();
    for (rounding, up) in [
        (RoundingMode::TowardsNegative, false),
        (RoundingMode::TowardsPositive, true),
    ] {
        if let Ok(x) = encode(v, from.kind(), rounding, None) {
            found.push(x);
            found.extend(neighbour(from, x, up));
        }
    }
    found
}

/// The first value of `values` that `step` cannot decode.
fn first_failure(step: &Step, values: &ValueSet) -> Option<(Value, FaultKind)> {
    let t = step.output();
    let elements = values.elements();
    if let Some((&bits, Err(fault))) = elements
        .iter()
        .zip(step.decode_all(&elements))
        .find(|(_, result)| result.is_err())
    {
        return Some((decode(t.kind(), bits), fault));
    }
    let (lo, hi) = values.interval?;
    let bits = |v: Value| {
        encode(v, t.kind(), RoundingMode::NearestEven, None).expect("a value of the type")
    };
    // The ends, and the values nearest them that are not keys of the decode's map (a key
    // decodes to its entry, the values beside it by the procedure).
    let keys = step.decode_keys();
    let mut probes = vec![lo, hi];
    probes.extend(trim(t, (lo, hi), &keys).map_or(Vec::new(), |(a, b)| vec![a, b]));
    let zero = Value::zero(false);
    if between(zero, lo, hi) {
        probes.push(zero);
        probes.extend(trim(t, (lo, zero), &keys).map(|(_, below)| below));
        probes.extend(trim(t, (zero, hi), &keys).map(|(above, _)| above));
    }
    // An integer `scale_offset` decode fails for values that its scale does not divide: an
    // interval of two integers or more holds one unless the scale is ±1.
    if matches!(step, Step::ScaleOffset { .. })
        && matches!(t.kind(), Kind::Int(_))
        && lo.compare(hi) == Some(Ordering::Less)
    {
        let next = neighbour(t, bits(lo), true).expect("an integer above lo");
        probes.push(decode(t.kind(), next));
    }
    probes
        .into_iter()
        .find_map(|v| step.decode(bits(v)).err().map(|fault| (v, fault)))
}

/// The decodes of `values` by `step` (those that succeed).
fn decode_all(step: &Step, values: &ValueSet) -> ValueSet {
    let t = step.input();
    let mut out = ValueSet::empty(t);
    for x in step.decode_all(&values.elements()).into_iter().flatten() {
        out.insert(x);
    }
    if let Some((lo, hi)) = values.interval {
        let from = step.output();
        let at = |v: Value| {
            step.decode(encode(v, from.kind(), RoundingMode::NearestEven, None).expect("a value"))
                .ok()
                .map(|x| decode(t.kind(), x))
        };
        // A wrapping decode of values beyond its type's range can give any value of the type.
        let (t_lo, t_hi) = finite_range(t);
        let beyond = lo.compare(t_lo).is_some_and(Ordering::is_lt)
            || hi.compare(t_hi).is_some_and(Ordering::is_gt);
        if step.wraps() && beyond {
            out.insert_interval(t_lo, t_hi);
        } else if let Some((lo, hi)) = trim(from, (lo, hi), &step.decode_keys()) {
            // The keys are decoded below; the values between decode by the procedure, in order
            // (the whole type, should an end fail: `first_failure` came first).
            match (at(lo), at(hi)) {
                (Some(a), Some(b)) => out.insert_interval(a, b),
                _ => out.insert_interval(t_lo, t_hi),
            }
        }
        for (key, value) in step.decode_entries() {
            let k = decode(from.kind(), key);
            if k.compare(lo).is_some_and(Ordering::is_ge)
                && k.compare(hi).is_some_and(Ordering::is_le)
            {
                out.insert(value);
            }
        }
    }
    out
}
