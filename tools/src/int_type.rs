//! The integer data types values are stored as: their bounds, and how zarrs holds their elements
//! in bytes (native-endian; int2 and int4 sign-extended, uint2 and uint4 zero-extended, in a byte).

/// An integer data type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IntType {
    name: &'static str,
    bits: u32,
    signed: bool,
}

impl IntType {
    const ALL: [Self; 12] = [
        Self::new("int2", 2, true),
        Self::new("int4", 4, true),
        Self::new("int8", 8, true),
        Self::new("int16", 16, true),
        Self::new("int32", 32, true),
        Self::new("int64", 64, true),
        Self::new("uint2", 2, false),
        Self::new("uint4", 4, false),
        Self::new("uint8", 8, false),
        Self::new("uint16", 16, false),
        Self::new("uint32", 32, false),
        Self::new("uint64", 64, false),
    ];

    const fn new(name: &'static str, bits: u32, signed: bool) -> Self {
        Self { name, bits, signed }
    }

    /// The integer type of a Zarr V3 data type name.
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name == name)
    }

    /// The Zarr V3 name.
    pub(crate) const fn name(self) -> &'static str {
        self.name
    }

    /// The bytes of an element.
    pub(crate) const fn size(self) -> usize {
        if self.bits <= 8 {
            1
        } else {
            self.bits as usize / 8
        }
    }

    /// The smallest value.
    pub(crate) const fn min(self) -> i128 {
        if self.signed {
            -(1 << (self.bits - 1))
        } else {
            0
        }
    }

    /// The largest value.
    pub(crate) const fn max(self) -> i128 {
        if self.signed {
            (1 << (self.bits - 1)) - 1
        } else {
            (1 << self.bits) - 1
        }
    }

    /// The values of the native-endian elements of `bytes`.
    pub(crate) fn values(self, bytes: &[u8]) -> Vec<i128> {
        let unused = 64 - self.bits.max(8 * u32::try_from(self.size()).unwrap_or(8));
        bytes
            .chunks_exact(self.size())
            .map(|element| {
                let mut wide = [0u8; 8];
                let bits = if cfg!(target_endian = "little") {
                    wide[..element.len()].copy_from_slice(element);
                    u64::from_le_bytes(wide)
                } else {
                    wide[8 - element.len()..].copy_from_slice(element);
                    u64::from_be_bytes(wide)
                } << unused;
                if self.signed {
                    i128::from(bits.cast_signed() >> unused)
                } else {
                    i128::from(bits >> unused)
                }
            })
            .collect()
    }

    /// The native-endian bytes of `value`, a value of the type.
    pub(crate) fn bytes(self, value: i128) -> Vec<u8> {
        let bits = value.cast_unsigned().to_le_bytes();
        let mut element = bits[..self.size()].to_vec();
        if cfg!(target_endian = "big") {
            element.reverse();
        }
        element
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_read_and_write_as_zarrs_holds_them() {
        let nibble = IntType::from_name("int4").unwrap();
        assert_eq!((nibble.min(), nibble.max(), nibble.size()), (-8, 7, 1));
        assert_eq!(nibble.values(&[0xf8, 7]), [-8, 7]);
        assert_eq!(nibble.bytes(-8), [0xf8]);
        let word = IntType::from_name("uint16").unwrap();
        assert_eq!(word.values(&word.bytes(65535)), [65535]);
        let wide = IntType::from_name("int64").unwrap();
        assert_eq!(
            wide.values(&wide.bytes(i128::from(i64::MIN))),
            [i128::from(i64::MIN)]
        );
        assert!(IntType::from_name("float32").is_none());
    }
}
