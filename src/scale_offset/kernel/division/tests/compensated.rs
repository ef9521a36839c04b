//! The two-part correction at its edges: its documented bounds, magnitudes around the least it
//! computes exactly, and quotients next to a midpoint between neighbouring floats.

use super::*;

#[test]
fn the_bounds_of_the_correction_are_those_documented() {
    let (float32, float64) = (Bounds::of::<f32>(), Bounds::of::<f64>());
    assert_eq!((float32.range, float64.range), (20, 50));
    assert_eq!((float32.least, float64.least), (pow2(-79), pow2(-916)));
    let absorbing = (pow2(-30), pow2(-808));
    assert_eq!((float32.absorbing, float64.absorbing), absorbing);
}

/// Inputs around the magnitude below which [`Compensated`] relies on the offset, and subnormals.
fn near_the_bottom<F: HwFloat>() -> Vec<F> {
    #[expect(
        clippy::cast_possible_truncation,
        reason = "the exponent of a power of two"
    )]
    let bottom = Bounds::of::<F>().least.log2() as i32;
    let mut inputs = Vec::new();
    for (i, r) in Seeded(37).take(20_000).enumerate() {
        #[expect(clippy::cast_precision_loss, reason = "a random significand")]
        let significand = 1.0 + (r >> 11) as f64 / pow2(53);
        let exponent = bottom - 40 + i32::try_from(r % 60).expect("small");
        let x = F::from_f64(significand * pow2(exponent));
        inputs.push(if i % 2 == 0 { x } else { -x });
    }
    inputs.extend([F::min_positive_value(), -F::min_positive_value(), F::zero()]);
    inputs
}

#[test]
fn the_two_part_correction_is_exact_down_to_its_least_offset() {
    fn edges<F: HwFloat>(inputs: &[F]) -> usize {
        let (least_offset, [least_scale, largest_scale]) = compensated_edges::<F>();
        let mut exact = 0;
        let scales = [least_scale, largest_scale, 0.1, -3.0, 1.0 / 3.0, 1e4];
        for scale in scales.map(F::from_f64) {
            for offset in [least_offset, -least_offset, -10.0, 1e-3].map(F::from_f64) {
                let division = Division::new(scale, offset, Isa::best());
                assert_eq!(
                    matches!(division, Division::Compensated(_)),
                    Isa::best().has_fma(),
                    "{scale:?} {offset:?}"
                );
                let (taken, unsure) = check(scale, offset, inputs);
                assert_eq!(unsure, 0, "{scale:?} {offset:?}");
                exact += taken;
            }
        }
        exact
    }
    let mut inputs = inputs32(1 << 16 | 7);
    inputs.extend(near_the_bottom::<f32>());
    assert!(edges(&inputs) > 24 * 80_000);
    let mut inputs = inputs64(3000, 41);
    inputs.extend(near_the_bottom::<f64>());
    assert!(edges(&inputs) > 24 * 20_000);
}

/// Pairs `(x, scale)` whose quotient lies within `2^-2p` (relative) of a midpoint between
/// neighbouring floats, the closest there are: `x = A·2^(1−p)` and `scale = B·2^(1−p)` for odd
/// `p`-bit integers with `N·B = A·2^(p+1) ± 1` for an odd `N` of `p + 1` bits, so that
/// `x / scale = N·2^−(p+1) ∓ 2^−(p+1)/B`.
fn near_midpoints<F: HwFloat>(count: usize, seed: u64) -> Vec<(F, F)> {
    let p = F::FORMAT.mantissa_bits + 1;
    let modulus = 1u128 << (p + 1);
    let unit = pow2(1 - i32::try_from(p).expect("small"));
    let mut pairs = Vec::new();
    for r in Seeded(seed) {
        let b = (u128::from(r) % (1 << (p - 1))) | (1 << (p - 1)) | 1;
        // The inverse of B modulo 2^128, by Newton's iteration.
        let inverse = (0..7).fold(b, |y, _| {
            y.wrapping_mul(2u128.wrapping_sub(b.wrapping_mul(y)))
        });
        for sign in [1u128, modulus - 1] {
            let n = inverse.wrapping_mul(sign) % modulus;
            let a = ((n * b).wrapping_sub(sign % modulus) % (1 << (2 * p + 2))) >> (p + 1);
            if n >= 1 << p && (1 << (p - 1)..1 << p).contains(&a) {
                #[expect(clippy::cast_precision_loss, reason = "p-bit integers")]
                pairs.push((F::from_f64(a as f64 * unit), F::from_f64(b as f64 * unit)));
            }
        }
        if pairs.len() >= count {
            return pairs;
        }
    }
    unreachable!("an endless sequence")
}

#[test]
fn quotients_next_to_a_midpoint_round_to_the_nearer_side() {
    fn hard<F: HwFloat>() -> usize {
        let (least_offset, _) = compensated_edges::<F>();
        let mut exact = 0;
        for (x, scale) in near_midpoints::<F>(200, 43) {
            // The least offset leaves a quotient near 1 as it is; offset 0 takes the correction
            // that checks the smallest magnitudes, -0 the correctly rounded division.
            for offset in [least_offset, 0.0, -0.0].map(F::from_f64) {
                let (taken, unsure) = check(scale, offset, &[x, -x]);
                assert_eq!(unsure, 0);
                exact += taken;
            }
        }
        exact
    }
    assert!(hard::<f32>() >= 200 * 2 * 3);
    assert!(hard::<f64>() >= 200 * 2 * 3);
}
