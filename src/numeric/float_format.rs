//! Binary floating-point formats, described by their parameters.
//!
//! Every float data type the codecs support is a sign/exponent/mantissa format of at most 64 bits.
//! The formats differ in which encodings are special:
//! - IEEE 754-like formats reserve the all-ones exponent for ±Infinity and NaN;
//! - `fn` formats (finite) have neither infinities nor NaN;
//! - `fnuz` formats (finite, no negative zero) use the bit pattern of -0 as their only NaN;
//! - `float8_e8m0fnu` is an unsigned power of two (no mantissa, no zero) with NaN at `0xff`.

use super::Value;

/// How a format uses its special encodings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Specials {
    /// The all-ones exponent holds ±Infinity (mantissa zero) and NaN (otherwise).
    Ieee,
    /// Every encoding is a finite number; there is no NaN and no infinity.
    Finite,
    /// The negative-zero encoding is the only NaN; there is no infinity and no -0.
    FiniteUnsignedZero,
    /// An unsigned exponent-only format (`float8_e8m0fnu`): no sign, no zero, NaN at all ones.
    ExponentOnly,
}

/// The parameters of a binary floating-point format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FloatFormat {
    /// Number of exponent bits.
    pub(crate) exponent_bits: u32,
    /// Number of stored mantissa (fraction) bits.
    pub(crate) mantissa_bits: u32,
    /// Exponent bias.
    pub(crate) bias: i32,
    /// Special encodings.
    pub(crate) specials: Specials,
}

impl FloatFormat {
    const fn new(exponent_bits: u32, mantissa_bits: u32, bias: i32, specials: Specials) -> Self {
        Self {
            exponent_bits,
            mantissa_bits,
            bias,
            specials,
        }
    }

    pub(crate) const FLOAT64: Self = Self::new(11, 52, 1023, Specials::Ieee);
    pub(crate) const FLOAT32: Self = Self::new(8, 23, 127, Specials::Ieee);
    pub(crate) const FLOAT16: Self = Self::new(5, 10, 15, Specials::Ieee);
    pub(crate) const BFLOAT16: Self = Self::new(8, 7, 127, Specials::Ieee);
    pub(crate) const FLOAT8_E3M4: Self = Self::new(3, 4, 3, Specials::Ieee);
    pub(crate) const FLOAT8_E4M3: Self = Self::new(4, 3, 7, Specials::Ieee);
    pub(crate) const FLOAT8_E5M2: Self = Self::new(5, 2, 15, Specials::Ieee);
    pub(crate) const FLOAT8_E4M3B11FNUZ: Self = Self::new(4, 3, 11, Specials::FiniteUnsignedZero);
    pub(crate) const FLOAT8_E4M3FNUZ: Self = Self::new(4, 3, 8, Specials::FiniteUnsignedZero);
    pub(crate) const FLOAT8_E5M2FNUZ: Self = Self::new(5, 2, 16, Specials::FiniteUnsignedZero);
    pub(crate) const FLOAT8_E8M0FNU: Self = Self::new(8, 0, 127, Specials::ExponentOnly);
    pub(crate) const FLOAT6_E2M3FN: Self = Self::new(2, 3, 1, Specials::Finite);
    pub(crate) const FLOAT6_E3M2FN: Self = Self::new(3, 2, 3, Specials::Finite);
    pub(crate) const FLOAT4_E2M1FN: Self = Self::new(2, 1, 1, Specials::Finite);

    /// Whether the format has a sign bit.
    pub(crate) const fn is_signed(self) -> bool {
        !matches!(self.specials, Specials::ExponentOnly)
    }

    /// The number of bits of an encoding.
    pub(crate) const fn total_bits(self) -> u32 {
        self.exponent_bits + self.mantissa_bits + if self.is_signed() { 1 } else { 0 }
    }

    /// The significand precision in bits, counting the implicit leading bit.
    pub(crate) const fn precision(self) -> u32 {
        self.mantissa_bits + 1
    }

    /// Whether the format encodes ±Infinity.
    pub(crate) const fn has_infinity(self) -> bool {
        matches!(self.specials, Specials::Ieee)
    }

    /// Whether the format distinguishes -0 from +0.
    pub(crate) const fn has_negative_zero(self) -> bool {
        matches!(self.specials, Specials::Ieee | Specials::Finite)
    }

    /// Whether the format has subnormal numbers (and zero).
    pub(crate) const fn has_subnormals(self) -> bool {
        !matches!(self.specials, Specials::ExponentOnly)
    }

    const fn sign_mask(self) -> u64 {
        if self.is_signed() {
            1 << (self.exponent_bits + self.mantissa_bits)
        } else {
            0
        }
    }

    const fn mantissa_mask(self) -> u64 {
        (1 << self.mantissa_bits) - 1
    }

    const fn exponent_all_ones(self) -> u64 {
        (1 << self.exponent_bits) - 1
    }

    /// The exponent of the smallest normal number: `1 - bias`, or `-bias` for the exponent-only
    /// format, where the zero exponent field is a number too.
    pub(crate) const fn min_normal_exponent(self) -> i32 {
        match self.specials {
            Specials::ExponentOnly => -self.bias,
            _ => 1 - self.bias,
        }
    }

    /// The largest biased exponent of a finite number.
    const fn max_finite_biased_exponent(self) -> u64 {
        match self.specials {
            Specials::Ieee | Specials::ExponentOnly => self.exponent_all_ones() - 1,
            Specials::Finite | Specials::FiniteUnsignedZero => self.exponent_all_ones(),
        }
    }

    /// The largest finite value as `(significand, exponent)`: `significand × 2^exponent`.
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_possible_wrap,
        reason = "exponent fields have at most 11 bits"
    )]
    pub(crate) const fn max_finite(self) -> (u64, i32) {
        let significand = (1 << self.precision()) - 1;
        let exponent =
            self.max_finite_biased_exponent() as i32 - self.bias - self.mantissa_bits as i32;
        (significand, exponent)
    }

    /// The encoding of the canonical quiet NaN, if the format has NaN.
    pub(crate) const fn nan_bits(self) -> Option<u64> {
        match self.specials {
            Specials::Ieee => Some(
                (self.exponent_all_ones() << self.mantissa_bits) | (1 << (self.mantissa_bits - 1)),
            ),
            Specials::FiniteUnsignedZero => Some(self.sign_mask()),
            Specials::ExponentOnly => Some(self.exponent_all_ones()),
            Specials::Finite => None,
        }
    }

    /// The encoding of ±Infinity, if the format has infinities.
    pub(crate) const fn infinity_bits(self, negative: bool) -> Option<u64> {
        if self.has_infinity() {
            let sign = if negative { self.sign_mask() } else { 0 };
            Some(sign | (self.exponent_all_ones() << self.mantissa_bits))
        } else {
            None
        }
    }

    /// The encoding of a zero with the requested sign, if the format has zero.
    pub(crate) const fn zero_bits(self, negative: bool) -> Option<u64> {
        match self.specials {
            Specials::ExponentOnly => None,
            Specials::FiniteUnsignedZero => Some(0),
            Specials::Ieee | Specials::Finite => Some(if negative { self.sign_mask() } else { 0 }),
        }
    }

    /// Classifies an encoding (only the low [`total_bits`](Self::total_bits) are read).
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_possible_wrap,
        reason = "exponent fields have at most 11 bits"
    )]
    pub(crate) const fn decode(self, bits: u64) -> Value {
        let bits = bits & ((1u64 << (self.total_bits() - 1)) << 1).wrapping_sub(1);
        let negative = bits & self.sign_mask() != 0;
        let biased = (bits >> self.mantissa_bits) & self.exponent_all_ones();
        let mantissa = bits & self.mantissa_mask();
        match self.specials {
            Specials::Ieee if biased == self.exponent_all_ones() => {
                return if mantissa == 0 {
                    Value::Infinity { negative }
                } else {
                    Value::Nan
                };
            }
            Specials::FiniteUnsignedZero if bits == self.sign_mask() => return Value::Nan,
            Specials::ExponentOnly if biased == self.exponent_all_ones() => return Value::Nan,
            _ => {}
        }
        if matches!(self.specials, Specials::ExponentOnly) {
            return Value::Finite {
                negative: false,
                significand: 1,
                exponent: biased as i32 - self.bias,
            };
        }
        let mantissa_bits = self.mantissa_bits as i32;
        if biased == 0 {
            Value::Finite {
                negative,
                significand: mantissa,
                exponent: self.min_normal_exponent() - mantissa_bits,
            }
        } else {
            Value::Finite {
                negative,
                significand: mantissa | (1 << self.mantissa_bits),
                exponent: biased as i32 - self.bias - mantissa_bits,
            }
        }
    }

    /// Encodes `±significand × 2^exponent`, which the caller has rounded to this format and checked
    /// against its range: `significand` is below `2^precision` and `exponent` is the quantum of the
    /// value (the subnormal quantum for subnormals). A zero significand encodes zero.
    #[expect(
        clippy::cast_sign_loss,
        clippy::cast_possible_wrap,
        reason = "biased exponents of in-range values are positive and small"
    )]
    pub(crate) const fn encode_finite(
        self,
        negative: bool,
        significand: u64,
        exponent: i32,
    ) -> u64 {
        let sign = if negative { self.sign_mask() } else { 0 };
        if significand == 0 {
            return sign;
        }
        let implicit = 1u64 << self.mantissa_bits;
        if significand < implicit {
            // Subnormal: the exponent field is zero.
            sign | significand
        } else {
            let biased = (exponent + self.bias + self.mantissa_bits as i32) as u64;
            sign | (biased << self.mantissa_bits) | (significand & self.mantissa_mask())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::pow2;

    #[test]
    #[expect(clippy::float_cmp, reason = "exact values")]
    fn largest_finite_values_match_the_format_definitions() {
        let value = |f: FloatFormat| {
            let (s, e) = f.max_finite();
            #[expect(clippy::cast_precision_loss, reason = "small significands")]
            let v = s as f64 * pow2(e);
            v
        };
        assert_eq!(value(FloatFormat::FLOAT16), 65504.0);
        assert_eq!(value(FloatFormat::BFLOAT16), 3.389_531_389_251_535_5e38);
        assert_eq!(value(FloatFormat::FLOAT32), f64::from(f32::MAX));
        assert_eq!(value(FloatFormat::FLOAT8_E3M4), 15.5);
        assert_eq!(value(FloatFormat::FLOAT8_E4M3), 240.0);
        assert_eq!(value(FloatFormat::FLOAT8_E5M2), 57344.0);
        assert_eq!(value(FloatFormat::FLOAT8_E4M3B11FNUZ), 30.0);
        assert_eq!(value(FloatFormat::FLOAT8_E4M3FNUZ), 240.0);
        assert_eq!(value(FloatFormat::FLOAT8_E5M2FNUZ), 57344.0);
        assert_eq!(value(FloatFormat::FLOAT8_E8M0FNU), pow2(127));
        assert_eq!(value(FloatFormat::FLOAT6_E2M3FN), 7.5);
        assert_eq!(value(FloatFormat::FLOAT6_E3M2FN), 28.0);
        assert_eq!(value(FloatFormat::FLOAT4_E2M1FN), 6.0);
    }

    #[test]
    fn special_encodings_match_the_format_definitions() {
        assert_eq!(FloatFormat::FLOAT32.nan_bits(), Some(0x7fc0_0000));
        assert_eq!(FloatFormat::FLOAT16.nan_bits(), Some(0x7e00));
        assert_eq!(FloatFormat::BFLOAT16.nan_bits(), Some(0x7fc0));
        assert_eq!(FloatFormat::FLOAT8_E4M3FNUZ.nan_bits(), Some(0x80));
        assert_eq!(FloatFormat::FLOAT8_E8M0FNU.nan_bits(), Some(0xff));
        assert_eq!(FloatFormat::FLOAT4_E2M1FN.nan_bits(), None);
        assert_eq!(FloatFormat::FLOAT8_E5M2.infinity_bits(true), Some(0xfc));
        assert_eq!(FloatFormat::FLOAT6_E2M3FN.total_bits(), 6);
        // float4_e2m1fn 1.0 is 0b0010, float8_e4m3 1.0 is 0x38.
        assert_eq!(
            FloatFormat::FLOAT4_E2M1FN.decode(0x02),
            Value::Finite {
                negative: false,
                significand: 2,
                exponent: -1
            }
        );
        assert_eq!(FloatFormat::FLOAT8_E4M3.encode_finite(false, 8, -3), 0x38);
        assert_eq!(
            FloatFormat::FLOAT8_E8M0FNU.decode(127),
            Value::Finite {
                negative: false,
                significand: 1,
                exponent: 0
            }
        );
    }
}
