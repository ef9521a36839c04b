//! Sets of values of one data type, as the chain analysis tracks them: never smaller than the
//! values that can really occur.
//!
//! Types of up to 16 bits hold their finite values one by one; wider types hold them as points
//! (values that came from narrower types, `scalar_map` entries) and one interval standing for
//! every value of the type between its ends.

use std::cmp::Ordering;

use crate::numeric::{Kind, NumericType, RoundingMode, Value, decode, encode, finite_range};

/// A set of values of one numeric type.
#[derive(Clone, Debug)]
pub(crate) struct ValueSet {
    /// The data type.
    pub(crate) t: NumericType,
    /// Whether NaN is in the set.
    pub(crate) nan: bool,
    /// Whether -Infinity and +Infinity are in the set.
    pub(crate) infinities: [bool; 2],
    /// Finite values, by their encodings: a bit per encoding for types of up to 16 bits,
    /// else a list.
    points: Points,
    /// Every finite value of the type between these two (wide types only).
    pub(crate) interval: Option<(Value, Value)>,
}

/// Finite values of a type, by their encodings.
#[derive(Clone, Debug)]
enum Points {
    /// One bit per encoding (its low bits).
    Bits(Vec<u64>),
    /// The encodings (canonical), possibly repeated.
    List(Vec<u64>),
}

/// Whether sets of `t` hold their finite values one by one.
pub(crate) const fn enumerable(t: NumericType) -> bool {
    t.size() <= 2
}

/// The low `t.bits()` bits of an encoding.
const fn low_bits(t: NumericType, bits: u64) -> u64 {
    let width = t.bits();
    if width >= 64 {
        bits
    } else {
        bits & ((1 << width) - 1)
    }
}

/// The canonical bits of an encoding of `t` (the low bits; sign-extended for signed integers,
/// as [`encode`] gives them).
const fn canonical(t: NumericType, bits: u64) -> u64 {
    let low = low_bits(t, bits);
    match t.kind() {
        Kind::Int(format) if format.signed && format.bits < 64 => {
            let unused = 64 - format.bits;
            (((low << unused).cast_signed()) >> unused).cast_unsigned()
        }
        _ => low,
    }
}

/// Every encoding of `t` (types of up to 16 bits).
fn encodings(t: NumericType) -> impl Iterator<Item = u64> {
    let count = 1u64 << t.bits();
    (0..count).map(move |bits| canonical(t, bits))
}

impl ValueSet {
    /// No value of `t`.
    pub(crate) fn empty(t: NumericType) -> Self {
        Self {
            t,
            nan: false,
            infinities: [false; 2],
            points: if enumerable(t) {
                Points::Bits(vec![0; (1usize << t.bits()).div_ceil(64)])
            } else {
                Points::List(Vec::new())
            },
            interval: None,
        }
    }

    /// Every value of `t`.
    pub(crate) fn all(t: NumericType) -> Self {
        let mut set = Self::empty(t);
        if enumerable(t) {
            for bits in encodings(t) {
                set.insert(bits);
            }
        } else {
            let (lo, hi) = finite_range(t);
            set.insert_interval(lo, hi);
            set.insert_value(Value::Nan);
            set.insert_value(Value::Infinity { negative: true });
            set.insert_value(Value::Infinity { negative: false });
        }
        set
    }

    /// Adds the element with these bits.
    pub(crate) fn insert(&mut self, bits: u64) {
        match decode(self.t.kind(), bits) {
            Value::Nan => self.nan = true,
            Value::Infinity { negative } => self.infinities[usize::from(!negative)] = true,
            Value::Finite { .. } => match &mut self.points {
                Points::Bits(set) => {
                    let index = usize::try_from(low_bits(self.t, bits)).expect("16 bits");
                    set[index / 64] |= 1 << (index % 64);
                }
                Points::List(list) => list.push(canonical(self.t, bits)),
            },
        }
    }

    /// The finite values given one by one, by their encodings.
    pub(crate) fn points(&self) -> Vec<u64> {
        match &self.points {
            Points::Bits(set) => set
                .iter()
                .enumerate()
                .flat_map(|(word, &bits)| {
                    (0..64)
                        .filter(move |i| bits >> i & 1 == 1)
                        .map(move |i| canonical(self.t, (word * 64 + i) as u64))
                })
                .collect(),
            Points::List(list) => {
                let mut list = list.clone();
                list.sort_unstable();
                list.dedup();
                list
            }
        }
    }

    /// Adds a value of the type (ignored if the type does not hold it).
    pub(crate) fn insert_value(&mut self, value: Value) {
        match value {
            Value::Nan => self.nan |= self.has(value),
            Value::Infinity { negative } => {
                self.infinities[usize::from(!negative)] |= self.has(value);
            }
            Value::Finite { .. } => {
                if let Ok(bits) = encode(value, self.t.kind(), RoundingMode::NearestEven, None)
                    && decode(self.t.kind(), bits) == value
                {
                    self.insert(bits);
                }
            }
        }
    }

    /// Whether the type holds the special value `value`.
    fn has(&self, value: Value) -> bool {
        encode(value, self.t.kind(), RoundingMode::NearestEven, None).is_ok()
    }

    /// Adds every finite value of the type in `[lo, hi]` (either order).
    pub(crate) fn insert_interval(&mut self, a: Value, b: Value) {
        let (lo, hi) = match a.compare(b) {
            Some(Ordering::Greater) => (b, a),
            _ => (a, b),
        };
        if enumerable(self.t) {
            let within = |v: Value| {
                v.compare(lo).is_some_and(Ordering::is_ge)
                    && v.compare(hi).is_some_and(Ordering::is_le)
            };
            for bits in encodings(self.t) {
                let v = decode(self.t.kind(), bits);
                if matches!(v, Value::Finite { .. }) && within(v) {
                    self.insert(bits);
                }
            }
            return;
        }
        self.interval = Some(match self.interval {
            None => (lo, hi),
            Some((l, h)) => (min(l, lo), max(h, hi)),
        });
    }

    /// The special values and points, by their bits.
    pub(crate) fn elements(&self) -> Vec<u64> {
        let kind = self.t.kind();
        let special = |value| encode(value, kind, RoundingMode::NearestEven, None).ok();
        let mut elements: Vec<u64> = Vec::new();
        if self.nan {
            elements.extend(special(Value::Nan));
        }
        for (negative, present) in [(true, self.infinities[0]), (false, self.infinities[1])] {
            if present {
                elements.extend(special(Value::Infinity { negative }));
            }
        }
        elements.extend(self.points());
        elements
    }
}

fn min(a: Value, b: Value) -> Value {
    if a.compare(b).is_some_and(Ordering::is_le) {
        a
    } else {
        b
    }
}

fn max(a: Value, b: Value) -> Value {
    if a.compare(b).is_some_and(Ordering::is_ge) {
        a
    } else {
        b
    }
}

/// The value of `t` next to the finite value `bits` (above if `up`), if there is a finite one.
pub(crate) fn neighbour(t: NumericType, bits: u64, up: bool) -> Option<u64> {
    let kind = t.kind();
    let value = decode(kind, bits);
    let direction = if up {
        RoundingMode::TowardsPositive
    } else {
        RoundingMode::TowardsNegative
    };
    match kind {
        Kind::Int(_) => {
            let step = Value::from_i64(if up { 1 } else { -1 });
            let next = add_integer(value, step)?;
            encode(next, kind, direction, None).ok()
        }
        Kind::Float(format) => {
            // Floats in order: the magnitude bits, negated for negative values.
            let sign = if format.is_signed() {
                1u64 << (format.total_bits() - 1)
            } else {
                0
            };
            let magnitude = i128::from(bits & !sign);
            let key = if bits & sign != 0 {
                -magnitude
            } else {
                magnitude
            };
            let next = key + if up { 1 } else { -1 };
            let next_bits = if next < 0 {
                sign | u64::try_from(-next).ok()?
            } else {
                u64::try_from(next).ok()?
            };
            let next_value = format.decode(next_bits);
            (matches!(next_value, Value::Finite { .. })
                && next_value.compare(value)
                    == Some(if up {
                        Ordering::Greater
                    } else {
                        Ordering::Less
                    }))
            .then_some(canonical(t, next_bits))
        }
    }
}

/// `a + b` for integer values.
fn add_integer(a: Value, b: Value) -> Option<Value> {
    let as_i128 = |v: Value| match v {
        Value::Finite {
            negative,
            significand,
            exponent: 0,
        } => Some(if negative {
            -i128::from(significand)
        } else {
            i128::from(significand)
        }),
        Value::Finite { significand: 0, .. } => Some(0),
        _ => None,
    };
    let sum = as_i128(a)? + as_i128(b)?;
    Some(if sum < 0 {
        Value::Finite {
            negative: true,
            significand: u64::try_from(-sum).ok()?,
            exponent: 0,
        }
    } else {
        Value::from_u64(u64::try_from(sum).ok()?)
    })
}

#[cfg(test)]
mod tests;
