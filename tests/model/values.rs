//! Random elements and scalars of every data type, for the `model` test.

use std::sync::Arc;

use serde_json::{Value as Json, json};

use zarrs_scale_offset_cast_reference::{
    RefValue, Seeded, Type, decode, describe, int_range, is_integer, size,
};

/// A seeded random source with helpers.
pub(crate) struct Random(pub(crate) Seeded);

impl Random {
    pub(crate) fn next(&mut self) -> u64 {
        self.0.next().unwrap()
    }
    pub(crate) fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.0.below(n as u64)).unwrap()
    }
    pub(crate) fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

pub(crate) fn mask(name: &str) -> u64 {
    if size(name) == 8 {
        u64::MAX
    } else {
        (1u64 << (8 * size(name))) - 1
    }
}

/// The bits of an encoding of `name` (int2/int4 sign-extended in their byte), if `bits` is one.
pub(crate) fn encoding(name: &str, bits: u64) -> Option<u64> {
    let bits = bits & mask(name);
    let value_bits = match name {
        "int2" | "uint2" => 2,
        "int4" | "uint4" | "float4_e2m1fn" => 4,
        "float6_e2m3fn" | "float6_e3m2fn" => 6,
        _ => return Some(bits),
    };
    let spare = bits >> value_bits;
    let negative = name.starts_with("int") && (bits >> (value_bits - 1)) & 1 == 1;
    let expected = if negative {
        (1 << (8 - value_bits)) - 1
    } else {
        0
    };
    (spare == expected).then_some(bits)
}

/// Every encoding of a one-byte type with its value.
type Encodings = Arc<Vec<(u64, RefValue)>>;

/// The encodings of a one-byte type (computed once per type).
pub(crate) fn one_byte_values(name: &str) -> Encodings {
    thread_local! {
        static TABLES: std::cell::RefCell<Vec<(String, Encodings)>> =
            const { std::cell::RefCell::new(Vec::new()) };
    }
    TABLES.with(|tables| {
        if let Some((_, table)) = tables.borrow().iter().find(|(n, _)| n == name) {
            return Arc::clone(table);
        }
        let table: Encodings = Arc::new(if size(name) == 1 {
            (0..256)
                .filter_map(|b| encoding(name, b))
                .map(|b| (b, decode(name, b)))
                .collect()
        } else {
            Vec::new()
        });
        tables
            .borrow_mut()
            .push((name.to_string(), Arc::clone(&table)));
        table
    })
}

/// The bits of `value` in `name`, if it is a value of the type.
pub(crate) fn bits_of(name: &str, value: RefValue) -> Option<u64> {
    match value {
        #[expect(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            reason = "bits"
        )]
        RefValue::Int(i) => encoding(name, i as u64),
        RefValue::Float(x) if name == "float16" => {
            let bits = half::f16::from_f64(x).to_bits();
            (decode(name, u64::from(bits)) == value).then_some(u64::from(bits))
        }
        RefValue::Float(x) if name == "bfloat16" => {
            let bits = half::bf16::from_f64(x).to_bits();
            (decode(name, u64::from(bits)) == value).then_some(u64::from(bits))
        }
        RefValue::Nan if name == "float16" => Some(0x7e00),
        RefValue::Nan if name == "bfloat16" => Some(0x7fc0),
        RefValue::Inf(n) if name == "float16" => Some(if n { 0xfc00 } else { 0x7c00 }),
        RefValue::Inf(n) if name == "bfloat16" => Some(if n { 0xff80 } else { 0x7f80 }),
        _ => one_byte_values(name)
            .iter()
            .find(|&&(_, v)| v == value)
            .map(|&(b, _)| b)
            .or_else(|| {
                let x = match value {
                    RefValue::Float(x) => x,
                    RefValue::Nan => f64::NAN,
                    RefValue::Inf(n) => {
                        if n {
                            f64::NEG_INFINITY
                        } else {
                            f64::INFINITY
                        }
                    }
                    RefValue::Int(_) => unreachable!(),
                };
                #[expect(clippy::cast_possible_truncation, reason = "exact values")]
                match name {
                    "float64" => Some(x.to_bits()),
                    "float32" => Some(u64::from((x as f32).to_bits())),
                    _ => None,
                }
            }),
    }
}

/// Bits of the least or the greatest finite value of `name`, or of the value next to it inwards
/// (where rounding and `scalar_map` keys at the ends of ranges meet).
fn extreme(random: &mut Random, name: &str) -> u64 {
    let (top, inward) = (random.chance(50), random.chance(50));
    match describe(name) {
        Type::Int { bits, signed } => {
            let (min, max) = int_range(bits, signed);
            let end = if top {
                max - i128::from(inward)
            } else {
                min + i128::from(inward)
            };
            bits_of(name, RefValue::Int(end)).expect("an integer of the type")
        }
        Type::Std { bits } => {
            let max = match name {
                "float16" => u64::from(half::f16::MAX.to_bits()),
                "bfloat16" => u64::from(half::bf16::MAX.to_bits()),
                "float32" => u64::from(f32::MAX.to_bits()),
                _ => f64::MAX.to_bits(),
            };
            let magnitude = max - u64::from(inward);
            if top {
                magnitude
            } else {
                (1 << (bits - 1)) | magnitude
            }
        }
        Type::Small { .. } => {
            let mut finite: Vec<(u64, f64)> = one_byte_values(name)
                .iter()
                .filter_map(|&(bits, v)| match v {
                    RefValue::Float(x) => Some((bits, x)),
                    _ => None,
                })
                .collect();
            finite.sort_by(|a, b| a.1.total_cmp(&b.1));
            let i = usize::from(inward);
            if top {
                finite[finite.len() - 1 - i].0
            } else {
                finite[i].0
            }
        }
    }
}

/// Bits of an element of `name`: moderate values, special values, the ends of its range, or random
/// bits; only moderate values when `gentle`.
pub(crate) fn element(random: &mut Random, name: &str, gentle: bool) -> u64 {
    loop {
        let choice = if gentle { 4 } else { random.below(6) };
        let candidate = match choice {
            0 | 1 => Some(random.next()),
            5 => Some(extreme(random, name)),
            2 if !is_integer(name) => {
                let special = random.pick(&[
                    f64::NAN,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                    -0.0,
                    0.0,
                    f64::MAX,
                    1.0,
                ]);
                bits_of(name, RefValue::Float(special)).or_else(|| {
                    let value = if special.is_nan() {
                        RefValue::Nan
                    } else if special.is_infinite() {
                        RefValue::Inf(special < 0.0)
                    } else {
                        return None;
                    };
                    bits_of(name, value)
                })
            }
            _ if is_integer(name) => {
                Some((i64::try_from(random.below(301)).unwrap() - 150).cast_unsigned())
            }
            _ => {
                #[expect(clippy::cast_precision_loss, reason = "small values")]
                let x = (random.below(4001) as f64 - 2000.0) / f64::from(1u32 << random.below(10));
                match name {
                    "float16" => Some(u64::from(half::f16::from_f64(x).to_bits())),
                    "bfloat16" => Some(u64::from(half::bf16::from_f64(x).to_bits())),
                    _ => bits_of(name, RefValue::Float(x)),
                }
            }
        };
        if let Some(bits) = candidate.and_then(|b| encoding(name, b)) {
            return bits;
        }
    }
}

/// The JSON of a scalar of `name` given by its bits: integers as numbers, floats as hex.
pub(crate) fn scalar(name: &str, bits: u64) -> Json {
    match decode(name, bits) {
        RefValue::Int(i) => {
            u64::try_from(i).map_or_else(|_| json!(i64::try_from(i).unwrap()), |u| json!(u))
        }
        _ => json!(format!(
            "0x{:0width$x}",
            bits & mask(name),
            width = 2 * size(name)
        )),
    }
}

#[expect(clippy::float_cmp, reason = "exact numeric equality")]
pub(crate) fn same_number(a: RefValue, b: RefValue) -> bool {
    match (a, b) {
        (RefValue::Float(x), RefValue::Float(y)) => x == y,
        (a, b) => a == b,
    }
}
