//! The decode's division on every instruction set against the division in the float's own
//! arithmetic: for random and hard operands (significands near 1 and 2, small integers, zeros,
//! subnormals, NaN), and for float32 quotients next to a midpoint between neighbouring floats,
//! where the widened product is closest to rounding the wrong way.

use std::mem::MaybeUninit;

use super::*;
use crate::engine::simd::{Isa, Vectorized};
use crate::numeric::pow2;
use zarrs_scale_offset_cast_reference::Seeded;

/// The quotients of `input` by `division`, computed in an instruction set's loops.
struct Run<'a, F: HwFloat> {
    division: Division<F>,
    input: &'a [F],
    output: &'a mut [MaybeUninit<F>],
}

impl<F: HwFloat> Vectorized for Run<'_, F> {
    type Output = ();

    #[inline(always)]
    fn run(self) {
        for (&x, y) in self.input.iter().zip(self.output.iter_mut()) {
            y.write(self.division.quotient(x));
        }
    }
}

/// Checks every quotient of `inputs` by `scale` on every instruction set against `x / scale`
/// (its encoding, NaN payloads included); returns how many it checked.
fn check<F: HwFloat>(scale: F, inputs: &[F]) -> usize {
    fn run<F: HwFloat>(division: Division<F>, isa: Isa, input: &[F]) -> Vec<F> {
        let mut output = vec![MaybeUninit::uninit(); input.len()];
        let output_ref = &mut output;
        isa.run(Run {
            division,
            input,
            output: output_ref,
        });
        // SAFETY: the loop wrote every element.
        output
            .into_iter()
            .map(|y| unsafe { y.assume_init() })
            .collect()
    }
    for isa in Isa::available() {
        let quotients = run(Division::new(scale), isa, inputs);
        for (&x, &q) in inputs.iter().zip(&quotients) {
            let want = x / scale;
            assert_eq!(
                q.encoding(),
                want.encoding(),
                "{x:?} / {scale:?} gave {q:?}, not {want:?} ({isa:?})"
            );
        }
    }
    inputs.len()
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

/// float32 inputs across the whole range: every `step`-th encoding, and the special values.
fn inputs32(step: usize) -> Vec<f32> {
    (0..=u32::MAX)
        .step_by(step)
        .map(f32::from_bits)
        .chain([0.0, -0.0, f32::NAN, -f32::NAN])
        .collect()
}

#[test]
fn quotients_are_the_rounded_quotients() {
    let (inputs64, inputs32) = (inputs64(1500, 11), inputs32(1 << 18 | 7));
    let mut checked = 0;
    for scale in scales() {
        checked += check(scale, &inputs64);
        #[expect(clippy::cast_possible_truncation, reason = "float32 scales")]
        let scale = scale as f32;
        checked += check(scale, &inputs32);
    }
    assert_eq!(checked, scales().len() * (inputs64.len() + inputs32.len()));
}

#[test]
#[ignore = "exhaustive: run in release mode with `cargo test --release --lib -- --ignored`"]
fn exhaustive_float32_quotients_for_many_scales() {
    let inputs: Vec<f32> = (0..=u32::MAX).step_by(1031).map(f32::from_bits).collect();
    let mut scales = scales();
    scales.extend(
        Seeded(29)
            .take(200)
            .map(|r| f64::from_bits((r & 0x800f_ffff_ffff_ffff) | (((r >> 52) % 100 + 973) << 52))),
    );
    let mut checked = 0;
    #[expect(clippy::cast_possible_truncation, reason = "float32 scales")]
    for scale in scales.into_iter().map(|s| s as f32) {
        checked += check(scale, &inputs);
    }
    assert!(checked > 250 * 4_000_000, "{checked}");
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
fn float32_quotients_next_to_a_midpoint_round_to_the_nearer_side() {
    let checked: usize = near_midpoints::<f32>(400, 43)
        .into_iter()
        .map(|(x, scale)| check(scale, &[x, -x]))
        .sum();
    assert_eq!(checked, 800);
}
