//! Lookup tables for one-byte inputs.
//!
//! Every element type of one byte (int2/int4/int8, uint2/uint4/uint8 and the 4-, 6- and 8-bit
//! floats) has at most 256 encodings. A conversion from such a type is computed once per encoding
//! with the exact element function when the codec is bound, and then applied as a table lookup:
//! exact by construction, and as fast as the memory it reads. (`cast_value` from int8 and uint8
//! to float32 and float64 converts directly instead, which vectorises.)

use std::marker::PhantomData;

use crate::chunk::BlockKernel;
use crate::error::{ElementFault, FaultKind};
use crate::numeric::{NumericType, Storage, Value, decode};

/// A conversion of one-byte elements by table.
#[derive(Debug)]
pub(crate) struct Lut<I: Storage, O: Storage> {
    from: NumericType,
    table: Box<[O; 256]>,
    faults: Box<[Option<FaultKind>; 256]>,
    input: PhantomData<fn() -> I>,
}

impl<I: Storage, O: Storage> Lut<I, O> {
    /// Tabulates `element` (from the value of an input to the bits of its output) for every
    /// encoding of `from`.
    pub(crate) fn build(
        from: NumericType,
        element: impl Fn(Value) -> Result<u64, FaultKind>,
    ) -> Self {
        let mut table = Box::new([O::default(); 256]);
        let mut faults = Box::new([None; 256]);
        for byte in 0..=255u8 {
            match element(decode(from.kind(), u64::from(byte))) {
                Ok(bits) => table[usize::from(byte)] = O::from_bits(bits),
                Err(kind) => faults[usize::from(byte)] = Some(kind),
            }
        }
        Self {
            from,
            table,
            faults,
            input: PhantomData,
        }
    }

    #[inline]
    #[expect(
        clippy::cast_possible_truncation,
        reason = "the low byte indexes the table"
    )]
    fn index(x: I) -> usize {
        usize::from(x.to_bits() as u8)
    }
}

impl<I: Storage, O: Storage> BlockKernel for Lut<I, O> {
    type In = I;
    type Out = O;

    fn convert(&self, input: &[I], output: &mut [O]) -> Result<(), ElementFault> {
        let mut any_fault = false;
        for (&x, y) in input.iter().zip(output.iter_mut()) {
            let i = Self::index(x);
            *y = self.table[i];
            any_fault |= self.faults[i].is_some();
        }
        if any_fault {
            for (index, &x) in input.iter().enumerate() {
                if let Some(kind) = self.faults[Self::index(x)] {
                    let value = decode(self.from.kind(), x.to_bits());
                    return Err(ElementFault { index, kind, value });
                }
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
        let lut = Lut::<i8, u8>::build(NumericType::Int8, |v| {
            encode(
                v,
                NumericType::UInt8.kind(),
                RoundingMode::NearestEven,
                None,
            )
        });
        let mut output = [0u8; 3];
        lut.convert(&[0, 127, 5], &mut output).unwrap();
        assert_eq!(output, [0, 127, 5]);
        let fault = lut.convert(&[1, -3, -4], &mut output).unwrap_err();
        assert_eq!(
            (fault.index, fault.kind, fault.value),
            (1, FaultKind::OutOfRange, Value::from_i64(-3))
        );
    }
}
