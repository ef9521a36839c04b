//! The storage families the fast kernels are generic over.

use num_traits::{AsPrimitive, CheckedRem, PrimInt, WrappingSub};

use super::{HwFloat, Storage};

/// A primitive integer that holds integer elements and converts to every primitive.
pub(crate) trait IntStorage:
    Storage
    + PrimInt
    + CheckedRem
    + AsPrimitive<u8>
    + AsPrimitive<u16>
    + AsPrimitive<u32>
    + AsPrimitive<u64>
    + AsPrimitive<i64>
    + AsPrimitive<f32>
    + AsPrimitive<f64>
{
    /// The storage value nearest `x` (the largest or smallest one outside the range).
    fn from_i128_clamped(x: i128) -> Self {
        let (min, max) = (
            Self::min_value().to_i128().unwrap_or(0),
            Self::max_value().to_i128().unwrap_or(0),
        );
        Self::from_bits(super::convert::twos_complement_bits(x.clamp(min, max)))
    }
}

impl IntStorage for i8 {}
impl IntStorage for i16 {}
impl IntStorage for i32 {}
impl IntStorage for i64 {}
impl IntStorage for u8 {}
impl IntStorage for u16 {}
impl IntStorage for u32 {}
impl IntStorage for u64 {}

/// An unsigned integer of the width of an integer target: the bits an integer cast writes.
pub(crate) trait Bits: IntStorage + WrappingSub {}

impl Bits for u8 {}
impl Bits for u16 {}
impl Bits for u32 {}
impl Bits for u64 {}

/// Two's complement wrapping into a target of `bits` value bits held in a [`Bits`] type:
/// keep the low bits, then sign-extend them for signed targets narrower than their storage.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Wrap<W> {
    mask: W,
    sign: W,
}

impl<W: Bits> Wrap<W> {
    /// Wrapping into `bits` value bits (at most the width of `W`).
    pub(crate) fn new(bits: u32, signed: bool) -> Self {
        let width = u32::try_from(8 * size_of::<W>()).expect("at most 64");
        let mask = if bits >= width {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let sign = if signed && bits < width {
            1u64 << (bits - 1)
        } else {
            0
        };
        Self {
            mask: W::from_bits(mask),
            sign: W::from_bits(sign),
        }
    }

    /// `v` modulo `2^bits`, as the storage bits of the target.
    #[inline(always)]
    pub(crate) fn apply(self, v: W) -> W {
        ((v & self.mask) ^ self.sign).wrapping_sub(&self.sign)
    }
}

/// The key a `scalar_map` compares elements by: the element itself for integers, its value as
/// the hardware float for floats (-0 equals +0, NaN is recognised by `key != key`).
pub(crate) trait MapKey: Copy + PartialEq + Send + Sync + std::fmt::Debug + 'static {
    /// Whether the key is NaN.
    #[expect(clippy::eq_op, reason = "NaN test")]
    #[inline]
    fn key_is_nan(self) -> bool {
        self != self
    }
}

impl<T: IntStorage> MapKey for T {}
impl MapKey for f32 {}
impl MapKey for f64 {}

/// Storage read by a kernel that applies a `scalar_map`.
pub(crate) trait MapInput: Storage + MapKey {}
impl<T: Storage + MapKey> MapInput for T {}

/// Hardware floats that are the input of a fast kernel.
pub(crate) trait FloatInput: HwFloat + MapInput + AsPrimitive<Self> {}
impl FloatInput for f32 {}
impl FloatInput for f64 {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_keeps_the_low_bits_and_sign_extends_narrow_signed_targets() {
        let int4 = Wrap::<u8>::new(4, true);
        assert_eq!(int4.apply(12), 0xfc); // 12 mod 16 is -4
        assert_eq!(int4.apply(0x17), 7);
        let uint2 = Wrap::<u8>::new(2, false);
        assert_eq!(uint2.apply(7), 3);
        let int8 = Wrap::<u8>::new(8, true);
        assert_eq!(int8.apply(200), 200);
        let uint64 = Wrap::<u64>::new(64, false);
        assert_eq!(uint64.apply(u64::MAX), u64::MAX);
        assert_eq!(i8::from_i128_clamped(-1000), -128);
        assert_eq!(u16::from_i128_clamped(1 << 40), u16::MAX);
    }
}
