//! The float formats the planner quantises: their precision, and rounding of `f64` values into them.

use half::{bf16, f16};
use zarrs::array::DataType;

/// A binary float format that `scale_offset` computes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Format {
    BFloat16,
    Float16,
    Float32,
    Float64,
}

impl Format {
    /// The format of `data_type`, if the planner handles it.
    pub(super) fn of(data_type: &DataType) -> Option<Self> {
        Some(match data_type.name_v3()?.as_ref() {
            "bfloat16" => Self::BFloat16,
            "float16" => Self::Float16,
            "float32" => Self::Float32,
            "float64" => Self::Float64,
            _ => return None,
        })
    }

    /// The significand's bits, the implicit one included.
    pub(super) fn precision(self) -> i32 {
        match self {
            Self::BFloat16 => 8,
            Self::Float16 => 11,
            Self::Float32 => 24,
            Self::Float64 => 53,
        }
    }

    /// The unit roundoff: the largest relative error of one rounding to nearest.
    pub(super) fn unit_roundoff(self) -> f64 {
        2f64.powi(-self.precision())
    }

    /// Half the smallest subnormal: the largest absolute error of one rounding to nearest that
    /// the relative bound misses (below the normal range).
    pub(super) fn subnormal_error(self) -> f64 {
        let smallest = match self {
            Self::BFloat16 => f64::from(bf16::from_bits(1)),
            Self::Float16 => f64::from(f16::from_bits(1)),
            Self::Float32 => f64::from(f32::from_bits(1)),
            Self::Float64 => f64::from_bits(1),
        };
        smallest / 2.0
    }

    /// `x` rounded to the nearest value of the format (ties to even).
    pub(super) fn nearest(self, x: f64) -> f64 {
        match self {
            Self::BFloat16 => f64::from(bf16::from_f64(x)),
            Self::Float16 => f64::from(f16::from_f64(x)),
            #[expect(clippy::cast_possible_truncation, reason = "rounding is the point")]
            Self::Float32 => f64::from(x as f32),
            Self::Float64 => x,
        }
    }

    /// The largest value of the format that is not above `x` (finite `x` within range).
    pub(super) fn down(self, x: f64) -> f64 {
        let rounded = self.nearest(x);
        if rounded <= x {
            return rounded;
        }
        match self {
            Self::BFloat16 => next_down_16(bf16::from_f64(rounded).to_bits(), |b| {
                f64::from(bf16::from_bits(b))
            }),
            Self::Float16 => next_down_16(f16::from_f64(rounded).to_bits(), |b| {
                f64::from(f16::from_bits(b))
            }),
            #[expect(
                clippy::cast_possible_truncation,
                reason = "exact: a value of the format"
            )]
            Self::Float32 => f64::from((rounded as f32).next_down()),
            Self::Float64 => rounded.next_down(),
        }
    }
}

/// The next 16-bit float below the one with `bits` (finite, with the sign in the top bit).
fn next_down_16(bits: u16, value: impl Fn(u16) -> f64) -> f64 {
    let below = if bits.trailing_zeros() >= 15 {
        0x8001
    } else if bits & 0x8000 == 0 {
        bits - 1
    } else {
        bits + 1
    };
    value(below)
}

#[cfg(test)]
#[expect(clippy::float_cmp, reason = "values of the formats compare exactly")]
mod tests {
    use super::Format;

    #[test]
    fn down_is_the_largest_value_not_above() {
        for format in [
            Format::BFloat16,
            Format::Float16,
            Format::Float32,
            Format::Float64,
        ] {
            for x in [0.1, -0.1, 1.0, 0.0, 1e-3, -7.3, 1000.7] {
                let down = format.down(x);
                assert!(down <= x, "{format:?} {x}");
                assert_eq!(format.nearest(down), down, "{format:?} {x}");
                let up = format.nearest(x);
                assert!(up == down || up > x, "{format:?} {x}");
            }
        }
        assert_eq!(Format::Float16.down(0.1), 0.099_975_585_937_5);
        assert_eq!(Format::Float32.down(0.1), f64::from(0.1f32.next_down()));
    }
}
