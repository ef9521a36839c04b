//! The decode's division against the hardware division, on every instruction set: every
//! quotient taken as exact is the correctly rounded one, for random and for hard operands
//! (significands near 1 and 2, small integers, zeros, subnormals, NaN); and the two-part
//! correction at its edges: its documented bounds, magnitudes around the least it computes
//! exactly, and quotients next to a midpoint between neighbouring floats.

use std::mem::MaybeUninit;

use super::*;
use crate::engine::simd::Vectorized;
use zarrs_scale_offset_cast_reference::Seeded;

/// The quotients of `input` by `quotient` and whether each may be inexact, computed in an
/// instruction set's loops.
struct Run<'a, F: HwFloat, Q> {
    quotient: Q,
    input: &'a [F],
    output: &'a mut [MaybeUninit<(F, bool)>],
}

impl<F: HwFloat, Q: Quotient<F>> Vectorized for Run<'_, F, Q> {
    type Output = ();

    #[inline(always)]
    fn run(self) {
        for (&x, y) in self.input.iter().zip(self.output.iter_mut()) {
            let (q, unsure) = self.quotient.quotient(x);
            y.write((q, F::sign_bit(unsure)));
        }
    }
}

/// The quotients of `input` by `division` on `isa`, as [`Run`] computes them.
fn quotients<F: HwFloat>(division: Division<F>, isa: Isa, input: &[F]) -> Vec<(F, bool)> {
    fn run<F: HwFloat, Q: Quotient<F>>(quotient: Q, isa: Isa, input: &[F]) -> Vec<(F, bool)> {
        let mut output = vec![MaybeUninit::uninit(); input.len()];
        let output_ref = &mut output;
        isa.run(Run {
            quotient,
            input,
            output: output_ref,
        });
        output
            .into_iter()
            // SAFETY: the loop wrote every element.
            .map(|y| unsafe { y.assume_init() })
            .collect()
    }
    match division {
        Division::Streaming(Streaming::Hardware(quotient)) => run(quotient, isa, input),
        Division::Streaming(Streaming::Widened(quotient)) => run(quotient, isa, input),
        Division::Compensated(quotient) => run(quotient, isa, input),
        Division::CompensatedSmall(quotient) => run(quotient, isa, input),
    }
}

/// Checks every quotient of `inputs` (up to the safe magnitude) by `scale` on every instruction
/// set; returns how many were taken as exact and how many of a magnitude the correction computes
/// exactly were left to the exact path.
fn check<F: HwFloat>(scale: F, offset: F, inputs: &[F]) -> (usize, usize) {
    let (mut exact, mut unsure) = (0, 0);
    let safe = super::super::float::safe_magnitude(
        crate::Direction::Decode,
        offset.to_f64(),
        scale.to_f64(),
        F::max_value().to_f64(),
    )
    .expect("a safe magnitude");
    let inputs: Vec<F> = inputs
        .iter()
        .copied()
        .filter(|x| x.abs().to_f64() <= safe || x.is_nan())
        .collect();
    let inputs = &inputs[..];
    for isa in Isa::available() {
        let division = Division::new(scale, offset, isa);
        for (&x, &(q, flagged)) in inputs.iter().zip(&quotients(division, isa, inputs)) {
            assert_eq!(flagged, !division.is_exact(x), "{x:?} / {scale:?}");
            if flagged {
                unsure += usize::from(x.abs().to_f64() >= Bounds::of::<F>().least);
                continue;
            }
            exact += 1;
            // The decode adds the offset, which makes the sign of a zero quotient irrelevant
            // (the correction is not used with an offset of -0).
            let (q, want) = (q + offset, x / scale + offset);
            assert!(
                q.encoding() == want.encoding() || (q.is_nan() && want.is_nan()),
                "{x:?} / {scale:?} + {offset:?} gave {q:?}, not {want:?} ({isa:?}, {division:?})"
            );
            if want.is_nan() {
                assert_eq!(q.encoding(), want.encoding(), "NaN payload and sign");
            }
        }
    }
    (exact, unsure)
}

/// Scales with every kind of significand: decimal fractions, all ones, just above a power of two,
/// negative ones, and large and small magnitudes.
fn scales() -> Vec<f64> {
    let third = 1.0 / 3.0;
    let mut scales = vec![
        0.1, 3.0, 1e4, 7.0, 0.3, 1e-3, third, -0.1, -7.0, 2.0, 1e15, 1e-15,
    ];
    for k in 1..24 {
        scales.push(f64::from_bits(0x3fff_ffff_ffff_ffff - k));
        scales.push(f64::from_bits(0x3ff0_0000_0000_0000 + k));
        scales.push(-f64::from_bits(0x3ff8_0000_0000_0000 + k));
    }
    scales
}

/// Random magnitudes over the float64 range, significands near 1 and 2, small integers, and the
/// special values.
fn inputs64(count: usize, seed: u64) -> Vec<f64> {
    let mut inputs: Vec<f64> = Seeded(seed)
        .take(count)
        .enumerate()
        .map(|(i, r)| {
            let significand = match i % 3 {
                0 => 0x000f_ffff_ffff_ffff - (r >> 52) % 4096,
                1 => (r >> 52) % 4096,
                _ => r & 0x000f_ffff_ffff_ffff,
            };
            let exponent = (r >> 12) % 2046 + 1;
            f64::from_bits(significand | (exponent << 52) | (r & (1 << 63)))
        })
        .collect();
    inputs.extend((0..2000).map(|i| f64::from(i) - 1000.0 + f64::from(i % 7) / 8.0));
    inputs.extend([0.0, -0.0, 1e-310, -5e-324, f64::MIN_POSITIVE, f64::MAX]);
    inputs.extend([f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -f64::NAN]);
    inputs.extend([0x7ff0_0000_0000_0001, 0xfff8_0000_dead_beef].map(f64::from_bits));
    inputs
}

#[test]
fn float64_quotients_taken_as_exact_are_the_rounded_quotients() {
    let inputs = inputs64(1500, 11);
    let mut exact = 0;
    for scale in scales() {
        // -0 takes the hardware division, 0 the correction that checks the smallest magnitudes,
        // -10 the one that leaves them to the offset.
        for offset in [-0.0, 0.0, -10.0] {
            let (taken, unsure) = check(scale, offset, &inputs);
            // The correction is exact: only elements below its least magnitude go to the exact
            // path, and only without an offset.
            assert_eq!(unsure, 0, "{scale}");
            exact += taken;
        }
    }
    assert!(exact > 150 * 3000, "{exact}");
}

/// float32 inputs across the whole range: every `step`-th encoding, and the special values.
fn inputs32(step: usize) -> Vec<f32> {
    (0..=u32::MAX)
        .step_by(step)
        .map(f32::from_bits)
        .chain([0.0, -0.0, f32::NAN, -f32::NAN])
        .collect()
}

#[test]
fn float32_quotients_through_float64_are_the_rounded_quotients() {
    let inputs = inputs32(1 << 18 | 7);
    #[expect(clippy::cast_possible_truncation, reason = "float32 scales")]
    for scale in scales().into_iter().map(|s| s as f32) {
        // -0 takes the widened product (and the hardware division without fused multiply-adds).
        for offset in [-0.0, 0.0, -10.0] {
            let (exact, unsure) = check(scale, offset, &inputs);
            assert_eq!(unsure, 0);
            assert!(exact >= inputs.len());
        }
    }
}

/// The least absorbing offset and the extreme scales of [`Compensated`], for `F`.
fn compensated_edges<F: HwFloat>() -> (f64, [f64; 2]) {
    let Bounds {
        range, absorbing, ..
    } = Bounds::of::<F>();
    (absorbing, [pow2(-range), pow2(range)])
}

#[test]
fn the_division_fits_its_parameters() {
    fn streaming<F: HwFloat>(division: Division<F>) -> bool {
        matches!(division, Division::Streaming(_))
    }
    fn compensated<F: HwFloat>(division: Division<F>) -> bool {
        matches!(division, Division::Compensated(_))
    }
    for isa in Isa::available() {
        for (scale, offset) in [(0.1, -0.0), (1e20, 1.0), (1e-20, 1.0)] {
            assert!(matches!(
                Division::new(scale, offset, isa),
                Division::Streaming(Streaming::Hardware(_))
            ));
        }
        // Without an offset (or below the least that absorbs the smallest quotients), the
        // correction checks the smallest magnitudes.
        for offset in [0.0, 1e-300] {
            let small = matches!(
                Division::new(0.1, offset, isa),
                Division::CompensatedSmall(_)
            );
            assert_eq!(small, isa.has_fma(), "{isa:?}");
        }
        let small = matches!(
            Division::new(0.1f32, 0.0, isa),
            Division::CompensatedSmall(_)
        );
        assert_eq!(small, isa.has_fma(), "{isa:?}");
        assert!(matches!(
            Division::new(0.1f32, -0.0, isa),
            Division::Streaming(Streaming::Widened(_))
        ));
        // The two-part correction: an offset no smaller than its least, a scale within range.
        let (least, [low, high]) = compensated_edges::<f32>();
        #[expect(clippy::cast_possible_truncation, reason = "exact powers of two")]
        let (least, low, high) = (least as f32, low as f32, high as f32);
        for (scale, offset) in [(0.1, -10.0), (low, least), (high, -least), (-3.0, 1e-3)] {
            assert_eq!(
                compensated(Division::new(scale, offset, isa)),
                isa.has_fma()
            );
        }
        assert!(!compensated(Division::new(0.1, least / 2.0, isa)));
        for (scale, offset) in [(low / 2.0, 1.0), (high * 2.0, 1.0)] {
            assert!(streaming(Division::new(scale, offset, isa)));
        }
        let (least, [low, high]) = compensated_edges::<f64>();
        for (scale, offset) in [(0.1, -10.0), (low, least), (high, -least)] {
            assert_eq!(
                compensated(Division::new(scale, offset, isa)),
                isa.has_fma()
            );
        }
        assert!(!compensated(Division::new(0.1, least / 2.0, isa)));
    }
}

#[test]
#[ignore = "exhaustive: run in release mode with `cargo test --release --lib -- --ignored`"]
fn exhaustive_float64_quotients_for_many_scales() {
    let inputs = inputs64(400_000, 23);
    let mut scales = scales();
    scales.extend(
        Seeded(29)
            .take(200)
            .map(|r| f64::from_bits((r & 0x800f_ffff_ffff_ffff) | (((r >> 52) % 100 + 973) << 52))),
    );
    let mut exact = 0;
    // Offset 0 takes the correction that checks the smallest magnitudes, offset 1 the one that
    // leaves them to the offset.
    for (i, scale) in scales.into_iter().enumerate() {
        let (taken, unsure) = check(scale, [0.0, 1.0][i % 2], &inputs);
        assert_eq!(unsure, 0, "{scale}");
        exact += taken;
    }
    assert!(exact > 100 * 400_000, "{exact}");
}

#[test]
#[ignore = "exhaustive: run in release mode with `cargo test --release --lib -- --ignored`"]
fn exhaustive_float32_quotients_for_many_scales() {
    #[expect(clippy::cast_possible_truncation, reason = "float32 scales")]
    let scales = scales().into_iter().map(|s| s as f32);
    let inputs: Vec<f32> = (0..=u32::MAX).step_by(1031).map(f32::from_bits).collect();
    #[expect(
        clippy::cast_possible_truncation,
        reason = "a power of two float32 holds"
    )]
    let absorbing = Bounds::of::<f32>().absorbing as f32;
    for scale in scales {
        // -0 takes the widened product, 0 the correction that checks the smallest magnitudes,
        // the others the one that leaves them to the offset.
        for offset in [-0.0, 0.0, -10.0, absorbing] {
            let (exact, unsure) = check(scale, offset, &inputs);
            assert_eq!(unsure, 0);
            assert!(exact > 4_000_000);
        }
    }
}

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
