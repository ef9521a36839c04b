//! An independent exact model of the `scale_offset` and `cast_value` codecs, for the tests of
//! `zarrs_scale_offset_cast` only (its unit tests and integration tests depend on it).
//!
//! It shares no code with the crate's numeric model: element encodings are decoded from the data
//! type definitions with `half` and plain formulas, integers are rounded with the standard
//! library's `round_ties_even`/`round`/`trunc`/`ceil`/`floor` (exact on floats), and float targets
//! are rounded by locating the value between the two neighbouring values of the target, found by
//! listing every encoding of formats up to 16 bits or by stepping with `next_up`/`next_down` for
//! float32 and float64, and comparing exactly (see [`cast`]). [`scale_offset`] computes integers in
//! `i128`, float32 in float32 and float64 in float64 hardware arithmetic, and the other floats in
//! float64 rounded to the type by [`cast`] (innocuous double rounding: float64 has more than
//! `2p + 2` bits).

pub mod cast;
pub mod json;
pub mod scale_offset;

use std::cmp::Ordering;

pub use zarrs_metadata_ext::codec::cast_value::{
    CastValueOutOfRangeMode as OutOfRangeMode, CastValueRoundingMode as RoundingMode,
};

/// Why the model rejects an element.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefFault {
    /// NaN into a type without NaN.
    Nan,
    /// An infinity into a type without infinities.
    Infinity,
    /// Outside the range, with no out-of-range mode.
    OutOfRange,
    /// A `scale_offset` integer division with a remainder.
    NotExact,
    /// An encode whose result the decode of the same configuration rejects.
    Unreadable,
}

/// A seeded generator (splitmix64).
pub struct Seeded(pub u64);

/// `MODEL_SEED`, where set: the seed that gives the seeded tests of the crate fresh cases.
///
/// # Panics
/// If `MODEL_SEED` is not a decimal number.
pub fn model_seed() -> Option<u64> {
    let seed = std::env::var("MODEL_SEED").ok()?;
    Some(
        seed.parse()
            .unwrap_or_else(|_| panic!("MODEL_SEED={seed}: not a decimal number")),
    )
}

/// `MODEL_SEED=<n>`, or `MODEL_SEED=unset`: for a test's summary line, so that a failure can be
/// run again.
pub fn model_seed_label() -> String {
    model_seed().map_or_else(
        || "MODEL_SEED=unset".to_string(),
        |seed| format!("MODEL_SEED={seed}"),
    )
}

impl Seeded {
    /// The generator of a test whose cases are `default`'s unless [`model_seed`] is set; then
    /// that seed mixed with `default`, so that no two tests draw the same cases.
    pub fn for_test(default: u64) -> Self {
        Seeded(model_seed().map_or(default, |seed| seed ^ default))
    }

    /// A number below `n` (at least 1).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next().unwrap() % n
    }
}

impl Iterator for Seeded {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Some(z ^ (z >> 31))
    }
}

/// The native-endian bytes of elements given by their bits.
pub fn element_bytes(bits: &[u64], size: usize) -> Vec<u8> {
    bits.iter()
        .flat_map(|b| {
            let bytes = b.to_ne_bytes();
            if cfg!(target_endian = "little") {
                bytes[..size].to_vec()
            } else {
                bytes[8 - size..].to_vec()
            }
        })
        .collect()
}

/// The size in bytes of an element of the data type `name`.
pub fn size(name: &str) -> usize {
    match describe(name) {
        Type::Std { bits } | Type::Int { bits, .. } if bits > 8 => (bits / 8) as usize,
        _ => 1,
    }
}

/// Whether `name` is an integer data type.
pub fn is_integer(name: &str) -> bool {
    matches!(describe(name), Type::Int { .. })
}

/// The 26 data types of both codecs.
pub const TYPES: [&str; 26] = [
    "int2",
    "int4",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint2",
    "uint4",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float4_e2m1fn",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "bfloat16",
    "float16",
    "float32",
    "float64",
];

/// A value: integers exactly as `i128`, floats exactly as `f64` (every float type widens to it).
#[derive(Clone, Copy, Debug)]
pub enum RefValue {
    Nan,
    Inf(bool),
    Int(i128),
    Float(f64),
}

impl PartialEq for RefValue {
    fn eq(&self, other: &Self) -> bool {
        match (*self, *other) {
            (Self::Nan, Self::Nan) => true,
            (Self::Inf(a), Self::Inf(b)) => a == b,
            (Self::Int(a), Self::Int(b)) => a == b,
            (Self::Float(a), Self::Float(b)) => {
                a == b && a.is_sign_negative() == b.is_sign_negative()
            }
            _ => false,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    Ieee,
    Finite,
    Fnuz,
    E8M0,
}

#[derive(Clone, Copy, Debug)]
pub enum Type {
    Int {
        bits: u32,
        signed: bool,
    },
    /// float16/bfloat16/float32/float64, decoded by `half` and the standard library.
    Std {
        bits: u32,
    },
    Small {
        ebits: u32,
        mbits: u32,
        bias: i32,
        special: Special,
    },
}

/// The least and the greatest value of an integer type of `bits` bits.
pub fn int_range(bits: u32, signed: bool) -> (i128, i128) {
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

pub fn describe(name: &str) -> Type {
    let small = |ebits, mbits, bias, special| Type::Small {
        ebits,
        mbits,
        bias,
        special,
    };
    match name {
        "int2" => Type::Int {
            bits: 2,
            signed: true,
        },
        "int4" => Type::Int {
            bits: 4,
            signed: true,
        },
        "int8" => Type::Int {
            bits: 8,
            signed: true,
        },
        "int16" => Type::Int {
            bits: 16,
            signed: true,
        },
        "int32" => Type::Int {
            bits: 32,
            signed: true,
        },
        "int64" => Type::Int {
            bits: 64,
            signed: true,
        },
        "uint2" => Type::Int {
            bits: 2,
            signed: false,
        },
        "uint4" => Type::Int {
            bits: 4,
            signed: false,
        },
        "uint8" => Type::Int {
            bits: 8,
            signed: false,
        },
        "uint16" => Type::Int {
            bits: 16,
            signed: false,
        },
        "uint32" => Type::Int {
            bits: 32,
            signed: false,
        },
        "uint64" => Type::Int {
            bits: 64,
            signed: false,
        },
        "float16" | "bfloat16" => Type::Std { bits: 16 },
        "float32" => Type::Std { bits: 32 },
        "float64" => Type::Std { bits: 64 },
        "float4_e2m1fn" => small(2, 1, 1, Special::Finite),
        "float6_e2m3fn" => small(2, 3, 1, Special::Finite),
        "float6_e3m2fn" => small(3, 2, 3, Special::Finite),
        "float8_e3m4" => small(3, 4, 3, Special::Ieee),
        "float8_e4m3" => small(4, 3, 7, Special::Ieee),
        "float8_e4m3b11fnuz" => small(4, 3, 11, Special::Fnuz),
        "float8_e4m3fnuz" => small(4, 3, 8, Special::Fnuz),
        "float8_e5m2" => small(5, 2, 15, Special::Ieee),
        "float8_e5m2fnuz" => small(5, 2, 16, Special::Fnuz),
        "float8_e8m0fnu" => small(8, 0, 127, Special::E8M0),
        other => panic!("not a numeric type: {other}"),
    }
}

fn float(x: f64) -> RefValue {
    if x.is_nan() {
        RefValue::Nan
    } else if x.is_infinite() {
        RefValue::Inf(x < 0.0)
    } else {
        RefValue::Float(x)
    }
}

/// The value of an encoding of `name` (in the low bits of `bits`).
#[expect(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    reason = "bit fields"
)]
pub fn decode(name: &str, bits: u64) -> RefValue {
    match describe(name) {
        Type::Int { bits: n, signed } => {
            let low = bits & (u64::MAX >> (64 - n));
            if signed && low >> (n - 1) == 1 {
                RefValue::Int(i128::from(low) - (1i128 << n))
            } else {
                RefValue::Int(i128::from(low))
            }
        }
        Type::Std { .. } => float(match name {
            "float16" => half::f16::from_bits(bits as u16).to_f64(),
            "bfloat16" => half::bf16::from_bits(bits as u16).to_f64(),
            "float32" => f64::from(f32::from_bits(bits as u32)),
            _ => f64::from_bits(bits),
        }),
        Type::Small {
            ebits,
            mbits,
            bias,
            special,
        } => {
            if special == Special::E8M0 {
                let e = bits & 0xff;
                return if e == 0xff {
                    RefValue::Nan
                } else {
                    RefValue::Float(pow2(e as i32 - bias))
                };
            }
            let total = 1 + ebits + mbits;
            let bits = bits & ((1 << total) - 1);
            let negative = bits >> (total - 1) == 1;
            let exponent = ((bits >> mbits) & ((1 << ebits) - 1)) as i32;
            let mantissa = f64::from(u32::try_from(bits & ((1 << mbits) - 1)).unwrap());
            if special == Special::Fnuz && bits == 1 << (total - 1) {
                return RefValue::Nan;
            }
            if special == Special::Ieee && exponent == (1 << ebits) - 1 {
                return if mantissa == 0.0 {
                    RefValue::Inf(negative)
                } else {
                    RefValue::Nan
                };
            }
            let magnitude = if exponent == 0 {
                mantissa * pow2(1 - bias - mbits as i32)
            } else {
                (mantissa + pow2(mbits as i32)) * pow2(exponent - bias - mbits as i32)
            };
            RefValue::Float(if negative { -magnitude } else { magnitude })
        }
    }
}

/// `2^exponent`, exactly (from the bits), for the exponents of normal float64 values: the model
/// takes no power of two from `f64::powi`, whose precision Rust leaves unspecified.
///
/// # Panics
///
/// Where `2^exponent` is not a normal float64.
#[must_use]
pub const fn pow2(exponent: i32) -> f64 {
    assert!(-1022 <= exponent && exponent <= 1023, "a normal float64");
    f64::from_bits(((exponent + 1023) as u64) << 52)
}

/// Compares an exact value (`Int` or `Float`) with a float.
#[expect(
    clippy::cast_possible_truncation,
    clippy::float_cmp,
    reason = "exact comparisons"
)]
pub fn compare(a: RefValue, b: f64) -> Ordering {
    match a {
        RefValue::Float(x) => x.partial_cmp(&b).unwrap(),
        RefValue::Int(i) => {
            if b.abs() >= pow2(126) {
                return if b > 0.0 {
                    Ordering::Less
                } else {
                    Ordering::Greater
                };
            }
            let floor = b.floor();
            match i.cmp(&(floor as i128)) {
                Ordering::Equal if floor != b => Ordering::Less,
                other => other,
            }
        }
        _ => unreachable!(),
    }
}

pub fn is_negative(x: RefValue) -> bool {
    match x {
        RefValue::Int(i) => i < 0,
        RefValue::Float(v) => v.is_sign_negative(),
        RefValue::Inf(n) => n,
        RefValue::Nan => false,
    }
}
