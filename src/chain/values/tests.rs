//! Value sets of narrow and wide types, and neighbouring values.

use super::*;

#[test]
fn narrow_types_hold_their_values_one_by_one() {
    let all = ValueSet::all(NumericType::UInt8);
    assert_eq!(all.points().len(), 256);
    let all = ValueSet::all(NumericType::Float8E4M3FNUZ);
    assert!(all.nan && all.infinities == [false; 2]);
    let mut set = ValueSet::empty(NumericType::Int8);
    set.insert_interval(Value::from_i64(5), Value::from_i64(-3));
    assert_eq!(
        set.points(),
        [0, 1, 2, 3, 4, 5, u64::MAX - 2, u64::MAX - 1, u64::MAX]
    );
    assert!(set.interval.is_none());
}

#[test]
fn wide_types_hold_an_interval() {
    let all = ValueSet::all(NumericType::Float64);
    assert_eq!(
        all.interval,
        Some((Value::from_f64(-f64::MAX), Value::from_f64(f64::MAX)))
    );
    assert!(all.nan && all.infinities == [true; 2]);
    let (lo, hi) = finite_range(NumericType::Float8E8M0FNU);
    assert_eq!(
        lo,
        Value::Finite {
            negative: false,
            significand: 1,
            exponent: -127
        }
    );
    assert_eq!(
        hi,
        Value::Finite {
            negative: false,
            significand: 1,
            exponent: 127
        }
    );
}

#[test]
fn neighbours_are_the_next_values_of_the_type() {
    let f64_bits = |x: f64| x.to_bits();
    let t = NumericType::Float64;
    assert_eq!(
        neighbour(t, f64_bits(1.0), true),
        Some(f64_bits(1.0f64.next_up()))
    );
    assert_eq!(
        neighbour(t, f64_bits(-1.0), true),
        Some(f64_bits((-1.0f64).next_up()))
    );
    assert_eq!(neighbour(t, f64_bits(0.0), false), Some(f64_bits(-5e-324)));
    assert_eq!(neighbour(t, f64_bits(f64::MAX), true), None);
    let t = NumericType::Int8;
    assert_eq!(neighbour(t, 127, true), None);
    assert_eq!(neighbour(t, 0, false), Some(u64::MAX));
}
