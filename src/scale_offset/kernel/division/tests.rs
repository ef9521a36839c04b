//! The decode's division on every instruction set against the division in the float's own
//! arithmetic: for random and hard operands (significands near 1 and 2, small integers, zeros,
//! subnormals, NaN), and for quotients next to a midpoint between neighbouring floats, where the
//! widened product and the correction are closest to rounding the wrong way. The correction's
//! decodes, `q' + offset`, are checked wherever the decode takes them (not unsure, within the
//! safe magnitude), and it is unsure exactly where the module says.

use super::*;
use crate::Direction;
use crate::engine::simd::{Isa, Vectorized};
use crate::scale_offset::kernel::float::safe_magnitude;
use zarrs_scale_offset_cast_reference::Seeded;

/// `f` of each element of `input`, computed in an instruction set's loops.
struct Each<'a, F, G>(&'a [F], G);

impl<F: Copy, T, G: Fn(F) -> T> Vectorized for Each<'_, F, G> {
    type Output = Vec<T>;

    #[inline(always)]
    fn run(self) -> Vec<T> {
        self.0.iter().map(|&x| (self.1)(x)).collect()
    }
}

/// Checks every quotient of `inputs` by `scale` on every instruction set against `x / scale`
/// (its encoding, NaN payloads included), and the decodes of the correction where it applies
/// against `x / scale + offset`; returns how many of each it checked.
fn check<F: HwFloat>(scale: F, inputs: &[F]) -> [usize; 2] {
    let division = Division::new(scale);
    for isa in Isa::available() {
        let quotients = isa.run(Each(inputs, |x| division.quotient(x)));
        for (&x, &q) in inputs.iter().zip(&quotients) {
            let want = x / scale;
            let case = || format!("{x:?} / {scale:?} gave {q:?}, not {want:?} ({isa:?})");
            assert!(q.encoding() == want.encoding(), "{}", case());
        }
    }
    [inputs.len(), check_correction(scale, inputs)]
}

/// Whether some instruction set has fused multiply-adds, and so takes the correction.
fn corrects() -> bool {
    Isa::available().into_iter().any(Isa::has_fma)
}

/// The correction's decodes of `inputs`, for offsets large and small, zero and -0 (which it does
/// not take); returns how many it checked.
fn check_correction<F: HwFloat>(scale: F, inputs: &[F]) -> usize {
    let ((range, least), max) = (bounds::<F>(), F::max_value().to_f64());
    let least = F::from_f64(least);
    let offsets = [
        F::zero(),
        -F::zero(),
        -F::one(),
        least,
        -F::min_positive_value(),
    ];
    let mut checked = 0;
    for (isa, offset) in Isa::available()
        .into_iter()
        .flat_map(|i| offsets.map(|o| (i, o)))
    {
        let safe = safe_magnitude(Direction::Decode, offset.to_f64(), scale.to_f64(), max)
            .map_or(-F::one(), F::from_f64);
        let Some(c) = Division::decoding(scale, offset, isa).correction else {
            let taken = (pow2(-range)..=pow2(range)).contains(&scale.abs().to_f64());
            let negative_zero = offset.is_zero() && offset.is_sign_negative();
            assert!(
                !isa.has_fma() || !taken || negative_zero,
                "{scale:?} {isa:?}"
            );
            continue;
        };
        let decode = |x: F| (c.quotient(x) + offset, F::sign_bit(c.unsure(x)));
        for (&x, (y, unsure)) in inputs.iter().zip(isa.run(Each(inputs, decode))) {
            // The decode sends what `unsure` flags and what lies beyond `safe` to the exact path.
            let exact = unsure || !(x.abs() <= safe || x.is_nan());
            let want = x / scale + offset;
            let right = exact || y.encoding() == want.encoding();
            let small = !x.is_zero() && x.abs() < least;
            let case =
                || format!("{x:?} / {scale:?} + {offset:?}: {y:?}, unsure {unsure} ({isa:?})");
            assert!(unsure == small && right, "{}", case());
            checked += usize::from(!exact);
        }
    }
    checked
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
    let [mut quotients, mut decodes] = [0, 0];
    for scale in scales() {
        #[expect(clippy::cast_possible_truncation, reason = "float32 scales")]
        for [q, d] in [check(scale, &inputs64), check(scale as f32, &inputs32)] {
            quotients += q;
            decodes += d;
        }
    }
    assert_eq!(
        quotients,
        scales().len() * (inputs64.len() + inputs32.len())
    );
    assert_eq!(decodes > quotients, corrects(), "{decodes}");
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
        checked += check(scale, &inputs)[0];
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
fn quotients_next_to_a_midpoint_round_to_the_nearer_side() {
    fn next_to_midpoints<F: HwFloat>(seed: u64) -> [usize; 2] {
        let sum = |[a, b]: [usize; 2], [c, d]: [usize; 2]| [a + c, b + d];
        let pairs = near_midpoints::<F>(400, seed).into_iter();
        pairs
            .map(|(x, scale)| check(scale, &[x, -x]))
            .fold([0, 0], sum)
    }
    for [quotients, decodes] in [next_to_midpoints::<f32>(43), next_to_midpoints::<f64>(47)] {
        assert_eq!(quotients, 800);
        assert_eq!(decodes >= 800, corrects(), "{decodes}");
    }
}
