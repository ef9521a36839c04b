//! The fast path of float → integer casts of up to 32 bits: what it leaves undecided.

use super::*;

/// The fast path's output and whether it left the block undecided.
fn convert(fast: &FloatToInt<f64, u8, f64>, input: &[f64]) -> (Vec<u8>, bool) {
    let mut output = vec![std::mem::MaybeUninit::uninit(); input.len()];
    let (written, undecided) = fast.convert(input, Slots::new(&mut output));
    (written.into_elements().to_vec(), undecided)
}

#[test]
fn only_what_the_fast_path_cannot_decide_is_left_undecided() {
    let uint8 = IntFormat {
        bits: 8,
        signed: false,
    };
    let floor = FloatToInt::new(uint8, RoundingMode::TowardsNegative, None, None);
    // Both zeros and the edges of the range are decided; -0 minus a +0 threshold is -0.
    assert_eq!(
        convert(&floor, &[-0.0, 0.0, 255.9]),
        (vec![0, 0, 255], false)
    );
    assert!(convert(&floor, &[-0.0, 256.0]).1);
    assert!(convert(&floor, &[-f64::MIN_POSITIVE]).1);
    // NaN is undecided without a map entry, and takes the entry's value with one.
    let clamp = Some(OutOfRangeMode::Clamp);
    let unmapped = FloatToInt::new(uint8, RoundingMode::NearestEven, clamp, None);
    assert!(convert(&unmapped, &[1.0, f64::NAN]).1);
    let mapped = FloatToInt::new(uint8, RoundingMode::NearestEven, clamp, Some(7));
    assert_eq!(
        convert(&mapped, &[-f64::NAN, 2.5, 1e300, -3.0]),
        (vec![7, 2, 255, 0], false)
    );
    // Clamping leaves the infinities undecided (no integer holds them), and only them.
    assert!(convert(&mapped, &[f64::INFINITY]).1);
    assert!(convert(&mapped, &[f64::NEG_INFINITY]).1);
    // Where NaN maps to the lower bound, the clamp replaces it.
    let low = FloatToInt::new(uint8, RoundingMode::NearestEven, clamp, Some(0));
    let edges = [f64::NAN, -f64::NAN, f64::MAX, -f64::MAX, 254.5, 3.5];
    assert_eq!(convert(&low, &edges), (vec![0, 0, 255, 0, 254, 4], false));
    for infinity in [f64::INFINITY, f64::NEG_INFINITY] {
        assert!(convert(&low, &[1.0, infinity, f64::NAN]).1);
    }
}
