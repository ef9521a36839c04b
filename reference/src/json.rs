//! Element encodings of the Zarr data types, written from the data type definitions: JSON
//! scalars (numbers, `"NaN"`, `"Infinity"`, hex strings) to little-endian element bytes and back,
//! for the integration tests' conformance vectors and interop fixtures.

use crate::{is_integer, pow2, size};
use serde_json::Value as Json;

/// A number read back from an element.
#[derive(Clone, Copy, Debug)]
pub enum Num {
    /// An integer element.
    Int(i128),
    /// A float element (every float type widens exactly to f64).
    Float(f64),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Special {
    Ieee,
    Finite,
    Fnuz,
    E8M0,
}

/// A small float format: exponent bits, mantissa bits, exponent bias, special encodings.
#[derive(Clone, Copy)]
struct Small {
    exponent_bits: i32,
    mantissa_bits: i32,
    bias: i32,
    special: Special,
}

fn small_float(name: &str) -> Option<Small> {
    let f = |exponent_bits, mantissa_bits, bias, special| Small {
        exponent_bits,
        mantissa_bits,
        bias,
        special,
    };
    Some(match name {
        "float4_e2m1fn" => f(2, 1, 1, Special::Finite),
        "float6_e2m3fn" => f(2, 3, 1, Special::Finite),
        "float6_e3m2fn" => f(3, 2, 3, Special::Finite),
        "float8_e3m4" => f(3, 4, 3, Special::Ieee),
        "float8_e4m3" => f(4, 3, 7, Special::Ieee),
        "float8_e4m3b11fnuz" => f(4, 3, 11, Special::Fnuz),
        "float8_e4m3fnuz" => f(4, 3, 8, Special::Fnuz),
        "float8_e5m2" => f(5, 2, 15, Special::Ieee),
        "float8_e5m2fnuz" => f(5, 2, 16, Special::Fnuz),
        "float8_e8m0fnu" => f(8, 0, 127, Special::E8M0),
        _ => return None,
    })
}

/// The value of a small float encoding (low bits of `bits`).
fn small_float_value(name: &str, bits: u8) -> f64 {
    let format = small_float(name).unwrap();
    let bits = i32::from(bits);
    if format.special == Special::E8M0 {
        return if bits == 0xff {
            f64::NAN
        } else {
            pow2(bits - format.bias)
        };
    }
    let (e, m) = (format.exponent_bits, format.mantissa_bits);
    let total = 1 + e + m;
    let bits = bits & ((1 << total) - 1);
    let negative = bits >> (e + m) == 1;
    let exponent = (bits >> m) & ((1 << e) - 1);
    let mantissa = bits & ((1 << m) - 1);
    if format.special == Special::Fnuz && bits == 1 << (total - 1) {
        return f64::NAN;
    }
    if format.special == Special::Ieee && exponent == (1 << e) - 1 {
        return match (mantissa, negative) {
            (0, true) => f64::NEG_INFINITY,
            (0, false) => f64::INFINITY,
            _ => f64::NAN,
        };
    }
    let magnitude = if exponent == 0 {
        f64::from(mantissa) * pow2(1 - format.bias - m)
    } else {
        f64::from(mantissa + (1 << m)) * pow2(exponent - format.bias - m)
    };
    if negative { -magnitude } else { magnitude }
}

/// Whether two floats are the same number, the sign of zero included, NaN equal to NaN.
fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// The encoding of an exactly representable value (+0 where the format has no -0).
fn small_float_bits(name: &str, value: f64) -> u8 {
    (0..=255u8)
        .find(|&bits| same(small_float_value(name, bits), value))
        .or_else(|| (0..=255u8).find(|&bits| same(small_float_value(name, bits), value.abs())))
        .unwrap_or_else(|| panic!("{value} is not a {name} value"))
}

/// A JSON float scalar: number, "NaN", "Infinity", "-Infinity".
pub fn json_f64(json: &Json) -> f64 {
    match json {
        Json::Number(n) => n.as_f64().unwrap(),
        Json::String(s) => match s.as_str() {
            "NaN" => f64::NAN,
            "Infinity" | "+Infinity" => f64::INFINITY,
            "-Infinity" => f64::NEG_INFINITY,
            other => panic!("unexpected float scalar {other}"),
        },
        other => panic!("unexpected float scalar {other}"),
    }
}

/// A JSON integer scalar (also written as an integral float).
pub fn json_i128(json: &Json) -> i128 {
    let n = json
        .as_number()
        .unwrap_or_else(|| panic!("not a number: {json}"));
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
        .unwrap_or_else(|| {
            let f = n.as_f64().unwrap();
            assert!(f.fract() == 0.0 && f.abs() < 1e30, "{f} is not an integer");
            f as i128
        })
}

fn hex_bits(json: &Json) -> Option<u64> {
    json.as_str()?
        .strip_prefix("0x")
        .map(|h| u64::from_str_radix(h, 16).unwrap())
}

/// The little-endian bytes of a JSON scalar as an element of `data_type` (exact values only).
pub fn to_bytes(data_type: &str, json: &Json) -> Vec<u8> {
    if is_integer(data_type) {
        return json_i128(json).to_le_bytes()[..size(data_type)].to_vec();
    }
    if let Some(bits) = hex_bits(json) {
        return bits.to_le_bytes()[..size(data_type)].to_vec();
    }
    let v = json_f64(json);
    match data_type {
        "float64" => v.to_le_bytes().to_vec(),
        "float32" => {
            let f = v as f32;
            assert!(same(f64::from(f), v), "{v} is not a float32 value");
            f.to_le_bytes().to_vec()
        }
        "float16" => half::f16::from_f64(v).to_le_bytes().to_vec(),
        "bfloat16" => half::bf16::from_f64(v).to_le_bytes().to_vec(),
        small => vec![small_float_bits(small, v)],
    }
}

/// The elements of little-endian `bytes` of `data_type`.
pub fn from_bytes(data_type: &str, bytes: &[u8]) -> Vec<Num> {
    bytes
        .chunks_exact(size(data_type))
        .map(|b| {
            let mut wide = [0u8; 8];
            wide[..b.len()].copy_from_slice(b);
            let raw = u64::from_le_bytes(wide);
            let signed =
                |bits: u32| Num::Int(i128::from(((raw << (64 - bits)) as i64) >> (64 - bits)));
            match data_type {
                "int2" => signed(2),
                "int4" => signed(4),
                "int8" => signed(8),
                "int16" => signed(16),
                "int32" => signed(32),
                "int64" => signed(64),
                "uint2" => Num::Int(i128::from(raw & 3)),
                "uint4" => Num::Int(i128::from(raw & 15)),
                "uint8" | "uint16" | "uint32" | "uint64" => Num::Int(i128::from(raw)),
                "float64" => Num::Float(f64::from_bits(raw)),
                "float32" => Num::Float(f64::from(f32::from_bits(raw as u32))),
                "float16" => Num::Float(half::f16::from_bits(raw as u16).to_f64()),
                "bfloat16" => Num::Float(half::bf16::from_bits(raw as u16).to_f64()),
                small => Num::Float(small_float_value(small, raw as u8)),
            }
        })
        .collect()
}

/// The fill value JSON zarrs should read for `data_type`: small floats as hex bits, so that the
/// value does not depend on zarrs' `microfloat` feature.
pub fn fill_value_json(data_type: &str, json: &Json) -> Json {
    if small_float(data_type).is_some() && json.is_number() {
        Json::String(format!(
            "0x{:02x}",
            small_float_bits(data_type, json_f64(json))
        ))
    } else {
        json.clone()
    }
}

/// Whether an element read back equals an expected JSON scalar: floats by value with the sign of
/// zero, any NaN for "NaN"; integers exactly.
pub fn matches(expected: &Json, actual: Num) -> bool {
    match actual {
        Num::Int(a) => expected.is_number() && json_i128(expected) == a,
        Num::Float(a) => {
            if let Some(bits) = hex_bits(expected) {
                return f64::from_bits(bits).is_nan() && a.is_nan();
            }
            same(json_f64(expected), a)
        }
    }
}

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Int(v) => write!(f, "{v}"),
            Self::Float(v) => write!(f, "{v:?}"),
        }
    }
}

/// Little-endian element bytes to native-endian ones, or back (the same swap).
pub fn swap_to_native(data_type: &str, bytes: &[u8]) -> Vec<u8> {
    if cfg!(target_endian = "little") {
        bytes.to_vec()
    } else {
        bytes
            .chunks_exact(size(data_type))
            .flat_map(|element| element.iter().rev().copied().collect::<Vec<_>>())
            .collect()
    }
}

/// The elements of native-endian `bytes` (as zarrs holds them in memory).
pub fn from_ne_bytes(data_type: &str, bytes: &[u8]) -> Vec<Num> {
    from_bytes(data_type, &swap_to_native(data_type, bytes))
}
