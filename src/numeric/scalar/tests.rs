//! The scalar grammar: values, malformed forms, and numbers that JSON reads as floats.
use super::*;
use crate::numeric::decode;
use NumericType as T;

fn parse(t: NumericType, json: &str) -> Result<Value, ScalarError> {
    let json: FillValueMetadata = serde_json::from_str(json).unwrap();
    parse_scalar(t, &json, true).map(|bits| decode(t.kind(), bits))
}

/// Each case: the data type, the JSON, what it reads as.
fn check(cases: &[(NumericType, &str, Result<Value, ScalarError>)]) {
    for (t, json, expected) in cases {
        assert_eq!(&parse(*t, json), expected, "{t} {json}");
    }
}

#[test]
fn integers_accept_integral_numbers_in_range_only() {
    check(&[
        (T::Int64, "2.0", Ok(Value::from_i64(2))),
        (
            T::Int64,
            "-9223372036854775808",
            Ok(Value::from_i64(i64::MIN)),
        ),
        (
            T::UInt64,
            "18446744073709551615",
            Ok(Value::from_u64(u64::MAX)),
        ),
        (T::Int8, "1.5", Err(ScalarError::NotAnInteger)),
        (T::Int8, "128", Err(ScalarError::OutOfRange)),
        (T::UInt8, "-1", Err(ScalarError::OutOfRange)),
        (T::Int4, "-8", Ok(Value::from_i64(-8))),
        (T::Int32, "\"5\"", Err(ScalarError::StringForInteger)),
        (T::Int16, "\"NaN\"", Err(ScalarError::NoNan)),
        (T::Int32, "true", Err(ScalarError::NotAScalar)),
        (T::Int32, "[1, 2]", Err(ScalarError::NotAScalar)),
    ]);
}

#[test]
fn floats_round_numbers_once_to_nearest_even() {
    check(&[
        // 1 + 2^-11 + 2^-40 lies just above the float16 tie 1 + 2^-11: nearest is 1 + 2^-10.
        (
            T::Float16,
            "1.0004882821813226",
            Ok(Value::from_f64(1.000_976_562_5)),
        ),
        // The same for bfloat16 at 1 + 2^-8 + 2^-40.
        (
            T::BFloat16,
            "1.0039062500009095",
            Ok(Value::from_f64(1.007_812_5)),
        ),
        // 2^53 + 1 as an integer rounds to 2^53 in float64; in float32 directly from the integer.
        (T::Float64, "9007199254740993", Ok(Value::from_u64(1 << 53))),
        (T::Float32, "0.1", Ok(Value::from_f64(f64::from(0.1f32)))),
        (T::Float32, "1e300", Err(ScalarError::OutOfRange)),
        (T::Float8E4M3, "1", Ok(Value::from_f64(1.0))),
        (T::Float8E8M0FNU, "0", Err(ScalarError::OutOfRange)),
    ]);
}

#[test]
fn float_strings_are_nan_infinity_or_hex() {
    let bad_hex = |digits, bits| Err(ScalarError::BadHex { digits, bits });
    check(&[
        (T::Float64, "\"0x7ff8000000000001\"", Ok(Value::Nan)),
        (T::Float32, "\"0x3f800000\"", Ok(Value::from_f64(1.0))),
        (T::Float32, "\"0x3f80\"", bad_hex(8, 32)),
        (
            T::Float16,
            "\"+Infinity\"",
            Ok(Value::Infinity { negative: false }),
        ),
        (
            T::Float8E5M2,
            "\"-Infinity\"",
            Ok(Value::Infinity { negative: true }),
        ),
        (
            T::Float8E4M3FNUZ,
            "\"Infinity\"",
            Err(ScalarError::NoInfinity),
        ),
        (T::Float4E2M1FN, "\"NaN\"", Err(ScalarError::NoNan)),
        (T::Float8E4M3, "\"0x38\"", Ok(Value::from_f64(1.0))),
        (T::Float4E2M1FN, "\"0x12\"", bad_hex(2, 4)),
        (T::Float64, "\"5\"", Err(ScalarError::NotAScalar)),
    ]);
}

#[test]
fn malformed_hex_strings_are_rejected_for_every_float_type() {
    let hex_forms = [
        "\"0x+f\"",
        "\"0x-1\"",
        "\"0x 3c\"",
        "\"0x3c \"",
        "\" 0x3c\"",
        "\"0X3c\"",
        "\"0x\"",
        "\"0x3\"",
        "\"0x+fff\"",
        "\"0x+0000000\"",
        "\"0x_3c00\"",
        "\"0x3c0g\"",
        "\"0x0000000000000000000\"",
    ];
    for &t in NumericType::ALL.iter().filter(|t| !t.is_integer()) {
        for json in hex_forms {
            assert!(parse(t, json).is_err(), "{t} {json}");
        }
    }
    // The right width, but a byte too many or too few.
    assert!(parse(NumericType::Float16, "\"0x3c\"").is_err());
    assert!(parse(NumericType::Float16, "\"0x003c00\"").is_err());
    assert_eq!(
        parse(NumericType::Float16, "\"0x3C00\""),
        Ok(Value::from_f64(1.0))
    );
    // float6 has 6 bits: 0x3f is its largest encoding, 0x40 sets a spare bit.
    assert!(parse(NumericType::Float6E2M3FN, "\"0x3f\"").is_ok());
    assert!(parse(NumericType::Float6E2M3FN, "\"0x40\"").is_err());
    for t in [NumericType::Int8, NumericType::UInt16, NumericType::Int4] {
        assert_eq!(parse(t, "\"0x01\""), Err(ScalarError::StringForInteger));
    }
}

#[test]
fn malformed_numbers_and_strings_are_rejected() {
    for (t, json) in [
        (NumericType::Int16, "2.5"),
        (NumericType::Int16, "32768"),
        (NumericType::UInt8, "256"),
        (NumericType::UInt8, "-1"),
        (NumericType::Int4, "8"),
        (NumericType::UInt2, "4"),
        (NumericType::Float16, "65520"),
        (NumericType::Float8E4M3FNUZ, "\"Infinity\""),
        (NumericType::Float64, "\"nan\""),
        (NumericType::Float64, "\"inf\""),
        (NumericType::Float64, "\" NaN\""),
        (NumericType::Float64, "\"1.5\""),
        (NumericType::Float64, "null"),
        (NumericType::Float64, "{}"),
    ] {
        assert!(parse(t, json).is_err(), "{t} {json}");
    }
}

#[test]
fn numbers_read_as_floats_are_integers_only_where_exact() {
    check(&[
        // Beyond the 64-bit range, serde_json gives a float: -2^63 - 1 reads as -2^63.
        (
            T::Int64,
            "-9223372036854775809",
            Err(ScalarError::InexactInteger),
        ),
        (
            T::UInt64,
            "18446744073709551616",
            Err(ScalarError::InexactInteger),
        ),
        (T::Int64, "1e18", Err(ScalarError::InexactInteger)),
        (
            T::Int64,
            "9007199254740991.0",
            Ok(Value::from_i64(9_007_199_254_740_991)),
        ),
        (
            T::Int64,
            "9007199254740992.0",
            Err(ScalarError::InexactInteger),
        ),
        // Float types take such numbers as values.
        (
            T::Float64,
            "18446744073709551616",
            Ok(Value::from_f64(18_446_744_073_709_551_616.0)),
        ),
    ]);
}

#[test]
fn syntax_checks_without_a_data_type_accept_only_scalars() {
    let check = |json: &str| check_scalar_syntax(&serde_json::from_str(json).unwrap(), false);
    for good in [
        "1",
        "-2.5",
        "\"NaN\"",
        "\"-Infinity\"",
        "\"0x3c\"",
        "\"0x3c00\"",
        "\"0x3f800000\"",
        "\"0x3ff0000000000000\"",
    ] {
        assert!(check(good).is_ok(), "{good}");
    }
    for bad in [
        "\"0x+f\"",
        "\"0x3c0\"",
        "\"0x3c0000\"",
        "\"+Infinity\"",
        "\"5\"",
        "true",
        "[1]",
        "null",
    ] {
        assert!(check(bad).is_err(), "{bad}");
    }
}
