//! The Rust types that hold elements in `ArrayBytes`.
//!
//! Every supported data type sits in one of these, native endian (zarrs' in-memory layout):
//! integers in the primitive of their width (int2/int4 as a sign-extended `i8`, uint2/uint4 in a
//! `u8`), float32 and float64 as themselves, and the other floats as their bits in `u8` or `u16`.
//! The fast kernels are generic over these ten types, never over the 26 data types.

use std::fmt::Debug;

/// A Rust type holding one element in native byte order.
pub(crate) trait Storage:
    bytemuck::Pod + PartialEq + Default + Debug + Send + Sync + 'static
{
    /// The bits of the element; signed integers are sign-extended.
    fn to_bits(self) -> u64;
    /// The element with the low bits of `bits`.
    fn from_bits(bits: u64) -> Self;
}

macro_rules! storage_int {
    ($($t:ty => $via:ty),*) => {$(
        impl Storage for $t {
            #[inline]
            #[allow(clippy::cast_sign_loss, clippy::cast_lossless, reason = "bit reinterpretation; which lint applies depends on the type")]
            fn to_bits(self) -> u64 {
                self as $via as u64
            }
            #[inline]
            #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap, reason = "bit truncation; which lint applies depends on the type")]
            fn from_bits(bits: u64) -> Self {
                bits as Self
            }
        }
    )*};
}
storage_int!(i8 => i64, i16 => i64, i32 => i64, i64 => i64, u8 => u64, u16 => u64, u32 => u64, u64 => u64);

impl Storage for f32 {
    #[inline]
    fn to_bits(self) -> u64 {
        u64::from(f32::to_bits(self))
    }
    #[inline]
    #[expect(clippy::cast_possible_truncation, reason = "bit truncation")]
    fn from_bits(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }
}

impl Storage for f64 {
    #[inline]
    fn to_bits(self) -> u64 {
        f64::to_bits(self)
    }
    #[inline]
    fn from_bits(bits: u64) -> Self {
        f64::from_bits(bits)
    }
}

/// The bits of one native-endian element of `bytes.len()` bytes (at most 8; not sign-extended).
pub(crate) fn element_bits(bytes: &[u8]) -> u64 {
    let mut wide = [0u8; 8];
    let n = bytes.len().min(8);
    if cfg!(target_endian = "little") {
        wide[..n].copy_from_slice(&bytes[..n]);
        u64::from_le_bytes(wide)
    } else {
        wide[8 - n..].copy_from_slice(&bytes[..n]);
        u64::from_be_bytes(wide)
    }
}

/// Writes the low `bytes.len()` bytes of `bits` as one native-endian element.
pub(crate) fn write_element_bits(bits: u64, bytes: &mut [u8]) {
    let n = bytes.len().min(8);
    if cfg!(target_endian = "little") {
        bytes[..n].copy_from_slice(&bits.to_le_bytes()[..n]);
    } else {
        bytes[..n].copy_from_slice(&bits.to_be_bytes()[8 - n..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_bits_round_trip_through_bytes_of_every_width() {
        for (size, bits) in [(1, 0xfe), (2, 0xbeef), (4, 0xdead_beef), (8, u64::MAX - 5)] {
            let mut bytes = vec![0u8; size];
            write_element_bits(bits, &mut bytes);
            assert_eq!(element_bits(&bytes), bits);
        }
        assert_eq!(Storage::to_bits(-8i8), u64::MAX - 7);
        assert_eq!(i8::from_bits(0xf8), -8);
    }
}
