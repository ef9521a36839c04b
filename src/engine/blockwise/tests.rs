//! The driver with small test kernels: in place, borrowed, misaligned and parallel conversions
//! agree, and the first faulty element is reported by its index in the chunk.

use super::*;
use crate::engine::simd::Isa;
use crate::engine::{Slots, Typed, Written};
use crate::numeric::Value;
use crate::numeric::fault::FaultKind;

/// Narrows u32 to u16, failing on values above `u16::MAX`.
#[derive(Debug)]
struct Narrow;
impl Typed for Narrow {
    type In = u32;
    type Out = u16;
    fn isa(&self) -> Isa {
        Isa::PORTABLE
    }
    fn block<'a>(&self, input: &[u32], output: Slots<'a, u16>) -> (Written<'a, u16>, bool) {
        let mut beyond = false;
        let written = output.fill(input, |x| {
            beyond |= x > u32::from(u16::MAX);
            u16::try_from(x).unwrap_or_default()
        });
        (written, beyond)
    }
    fn settle(&self, input: &[u32], _output: &mut [u16]) -> Result<(), ElementFault> {
        match input.iter().position(|&x| u16::try_from(x).is_err()) {
            Some(i) => Err(ElementFault::new(
                i,
                FaultKind::OutOfRange,
                Value::from_u64(u64::from(input[i])),
            )),
            None => Ok(()),
        }
    }
}

/// Widens u16 to u64 (never fails).
#[derive(Debug)]
struct Widen;
impl Typed for Widen {
    type In = u16;
    type Out = u64;
    fn isa(&self) -> Isa {
        Isa::PORTABLE
    }
    fn block<'a>(&self, input: &[u16], output: Slots<'a, u64>) -> (Written<'a, u64>, bool) {
        (output.fill(input, |x| u64::from(x) << 40), false)
    }
    fn settle(&self, _input: &[u16], _output: &mut [u64]) -> Result<(), ElementFault> {
        Ok(())
    }
}

/// Halves u32, failing on odd values; in place only up to the first value of a million or more
/// (or the first odd one).
#[derive(Debug)]
struct Halve;
impl Typed for Halve {
    type In = u32;
    type Out = u32;
    fn isa(&self) -> Isa {
        Isa::PORTABLE
    }
    fn block<'a>(&self, input: &[u32], output: Slots<'a, u32>) -> (Written<'a, u32>, bool) {
        let mut odd = false;
        let written = output.fill(input, |x| {
            odd |= x % 2 == 1;
            x / 2
        });
        (written, odd)
    }
    fn settle(&self, input: &[u32], _output: &mut [u32]) -> Result<(), ElementFault> {
        match input.iter().position(|&x| x % 2 == 1) {
            Some(i) => Err(ElementFault::new(
                i,
                FaultKind::NotExact,
                Value::from_u64(u64::from(input[i])),
            )),
            None => Ok(()),
        }
    }
    fn convert_in_place(&self, data: &mut [u32]) -> usize {
        let done = data
            .iter()
            .position(|&x| x >= 1_000_000 || x % 2 == 1)
            .unwrap_or(data.len());
        data[..done].iter_mut().for_each(|x| *x /= 2);
        done
    }
}

fn bytes(values: impl Iterator<Item = u32>) -> Vec<u8> {
    values.flat_map(u32::to_ne_bytes).collect()
}

#[test]
fn in_place_at_equal_width_finishes_what_the_kernel_leaves() {
    let n = 2 * MIN_ELEMENTS_PER_TASK + 100;
    let value = |i: usize| {
        u32::try_from(if i % 1000 == 7 {
            2_000_000 + 2 * i
        } else {
            2 * i
        })
        .unwrap()
    };
    let input = bytes((0..n).map(value));
    let expected = bytes((0..n).map(|i| value(i) / 2));
    for tasks in [1, 2] {
        let owned = apply(&Halve, Cow::Owned(input.clone()), tasks).unwrap();
        assert_eq!(owned.as_ref(), expected.as_slice());
        let borrowed = apply(&Halve, Cow::Borrowed(&input), tasks).unwrap();
        assert_eq!(borrowed.as_ref(), expected.as_slice());
    }
    for odd in [3, BLOCK + 8, n - 1] {
        let input = bytes((0..n).map(|i| if i == odd { 2_000_001 } else { value(i) }));
        for tasks in [1, 2] {
            let fault = apply(&Halve, Cow::Owned(input.clone()), tasks).unwrap_err();
            assert_eq!(fault.index, odd);
            assert_eq!(fault.value, Value::from_u64(2_000_001));
        }
    }
}

#[test]
fn in_place_borrowed_misaligned_and_parallel_conversions_agree() {
    let n = 3 * MIN_ELEMENTS_PER_TASK + 17;
    let expected: Vec<u8> = (0..n)
        .flat_map(|i| u16::try_from(i % 65_536).unwrap().to_ne_bytes())
        .collect();
    let input = bytes((0..n).map(|i| u32::try_from(i % 65_536).unwrap()));
    for tasks in [1, 3] {
        let owned = apply(&Narrow, Cow::Owned(input.clone()), tasks).unwrap();
        assert_eq!(owned.as_ref(), expected.as_slice());
        let borrowed = apply(&Narrow, Cow::Borrowed(&input), tasks).unwrap();
        assert_eq!(borrowed.as_ref(), expected.as_slice());
    }
    let mut shifted = vec![0u8; input.len() + 1];
    shifted[1..].copy_from_slice(&input);
    let misaligned = apply(&Narrow, Cow::Borrowed(&shifted[1..]), 1).unwrap();
    assert_eq!(misaligned.as_ref(), expected.as_slice());
    let mut into = vec![0u8; expected.len() + 1];
    apply_into(&Narrow, &shifted[1..], &mut into[1..]).unwrap();
    assert_eq!(&into[1..], expected.as_slice());
}

#[test]
fn widening_fills_a_new_buffer_completely() {
    let n = 2 * MIN_ELEMENTS_PER_TASK + 5;
    let input: Vec<u8> = (0..n)
        .flat_map(|i| u16::try_from(i % 65_536).unwrap().to_ne_bytes())
        .collect();
    let expected: Vec<u8> = (0..n)
        .flat_map(|i| (u64::try_from(i % 65_536).unwrap() << 40).to_ne_bytes())
        .collect();
    for tasks in [1, 2] {
        let owned = apply(&Widen, Cow::Owned(input.clone()), tasks).unwrap();
        assert_eq!(owned.as_ref(), expected.as_slice());
    }
}

#[test]
fn the_first_faulty_element_is_reported_by_its_chunk_index() {
    let n = 2 * MIN_ELEMENTS_PER_TASK;
    let bad = [n / 2 + 5, n - 1];
    let input = bytes((0..n).map(|i| if bad.contains(&i) { 70_000 } else { 1 }));
    for tasks in [1, 2] {
        let fault = apply(&Narrow, Cow::Owned(input.clone()), tasks).unwrap_err();
        assert_eq!(fault.index, bad[0]);
        assert_eq!(fault.value, Value::from_u64(70_000));
        let fault = apply(&Narrow, Cow::Borrowed(&input), tasks).unwrap_err();
        assert_eq!(fault.index, bad[0]);
    }
}
