//! Lookup tables for one-byte inputs.
//!
//! Every element type of one byte (int2/int4/int8, uint2/uint4/uint8 and the 4-, 6- and 8-bit
//! floats) has at most 256 encodings. A conversion from such a type is computed once per byte with
//! the exact element function when the codec is bound, and then applied as a table lookup: exact
//! by construction, and as fast as the memory it reads. Bytes whose element has no acceptable
//! result are faults in the table, so checking them costs nothing per element; so are bytes that
//! are not an encoding of the type (spare bits set) given to a write, while a read ignores the
//! spare bits, as the data types' specifications say the `bytes` codec does.

use std::sync::Arc;

use super::simd::Isa;
use super::{Kernel, Slots, Typed, Written};
use crate::numeric::fault::{ElementFault, Fault, FaultKind};
use crate::numeric::{NumericType, Storage, Value, decode};

/// What a table does with a byte that is not an encoding of its type (spare bits set).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SpareBits {
    /// A fault: elements a write was given.
    Refuse,
    /// The byte stands for the encoding of its value bits ([`NumericType::canonical`]):
    /// elements read from a store, whose spare bits any writer may have set.
    Ignore,
}

/// A conversion of one-byte elements by table, into elements held in `O`.
#[derive(Debug)]
pub(crate) struct Lut<O: Storage> {
    from: NumericType,
    table: Box<[O; 256]>,
    faults: Box<[Option<Fault>; 256]>,
}

/// The value an input byte is reported as: its value, or its bits when it is not an encoding.
pub(crate) fn reported_value(from: NumericType, bits: u64) -> Value {
    if from.is_encoding(bits) {
        decode(from.kind(), bits)
    } else {
        Value::from_u64(bits & 0xff)
    }
}

/// A table-driven kernel from the one-byte type `from` into elements of `out_size` bytes,
/// tabulating `element` (from input bits to output bits), with bytes that are not encodings
/// handled as `spare` says.
pub(crate) fn lut(
    from: NumericType,
    out_size: usize,
    spare: SpareBits,
    element: impl Fn(u64) -> Result<u64, Fault>,
) -> Arc<dyn Kernel> {
    match out_size {
        1 => Arc::new(Lut::<u8>::build(from, spare, element)),
        2 => Arc::new(Lut::<u16>::build(from, spare, element)),
        4 => Arc::new(Lut::<u32>::build(from, spare, element)),
        _ => Arc::new(Lut::<u64>::build(from, spare, element)),
    }
}

impl<O: Storage> Lut<O> {
    /// Tabulates `element` for every encoding of `from`; the other bytes are faults, or the
    /// encodings of their value bits, as `spare` says.
    pub(crate) fn build(
        from: NumericType,
        spare: SpareBits,
        element: impl Fn(u64) -> Result<u64, Fault>,
    ) -> Self {
        let mut table = Box::new([O::default(); 256]);
        let mut faults = Box::new([None; 256]);
        for byte in 0..=255u8 {
            let bits = u64::from(byte);
            let result = if from.is_encoding(bits) {
                element(bits)
            } else if spare == SpareBits::Ignore {
                element(from.canonical(bits))
            } else {
                Err(FaultKind::InvalidEncoding.into())
            };
            match result {
                Ok(bits) => table[usize::from(byte)] = O::from_bits(bits),
                Err(fault) => faults[usize::from(byte)] = Some(fault),
            }
        }
        Self {
            from,
            table,
            faults,
        }
    }
}

impl<O: Storage> Typed for Lut<O> {
    type In = u8;
    type Out = O;

    fn isa(&self) -> Isa {
        Isa::PORTABLE
    }

    fn block<'a>(&self, input: &[u8], output: Slots<'a, O>) -> (Written<'a, O>, bool) {
        let mut any_fault = false;
        let written = output.fill(input, |x| {
            let i = usize::from(x);
            any_fault |= self.faults[i].is_some();
            self.table[i]
        });
        (written, any_fault)
    }

    fn settle(&self, input: &[u8], _output: &mut [O]) -> Result<(), ElementFault> {
        for (index, &x) in input.iter().enumerate() {
            if let Some(fault) = self.faults[usize::from(x)] {
                return Err(ElementFault {
                    index,
                    fault,
                    value: reported_value(self.from, u64::from(x)),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::{RoundingMode, encode};

    #[test]
    fn tables_hold_the_exact_conversion_and_its_faults() {
        let lut = Lut::<u8>::build(NumericType::Int8, SpareBits::Refuse, |bits| {
            encode(
                decode(NumericType::Int8.kind(), bits),
                NumericType::UInt8.kind(),
                RoundingMode::NearestEven,
                None,
            )
            .map_err(Fault::from)
        });
        let mut output = [0u8; 3];
        Typed::convert_typed(&lut, &[0, 127, 5], &mut output).unwrap();
        assert_eq!(output, [0, 127, 5]);
        let fault = Typed::convert_typed(&lut, &[1, 0xfd, 0xfc], &mut output).unwrap_err();
        assert_eq!(
            (fault.index, fault.fault.kind, fault.value),
            (1, FaultKind::OutOfRange, Value::from_i64(-3))
        );
    }

    #[test]
    fn bytes_that_are_not_encodings_of_a_narrow_type_are_faults() {
        let lut = Lut::<u8>::build(NumericType::Int4, SpareBits::Refuse, |bits| Ok(bits & 0xff));
        let mut output = [0u8; 3];
        Typed::convert_typed(&lut, &[0xf8, 7, 0], &mut output).unwrap();
        assert_eq!(output, [0xf8, 7, 0]);
        let fault = Typed::convert_typed(&lut, &[1, 100, 0], &mut output).unwrap_err();
        assert_eq!(
            (fault.index, fault.fault.kind, fault.value),
            (1, FaultKind::InvalidEncoding, Value::from_u64(100))
        );
        // Read from a store: the spare bits are ignored (100 is 0b0110_0100, int4 4; 0x0f is -1).
        let lut = Lut::<u8>::build(NumericType::Int4, SpareBits::Ignore, |bits| Ok(bits & 0xff));
        Typed::convert_typed(&lut, &[0xf8, 100, 0x0f], &mut output).unwrap();
        assert_eq!(output, [0xf8, 4, 0xff]);
    }
}
