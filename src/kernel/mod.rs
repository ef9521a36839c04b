//! The engine both codecs run on: element conversions applied block by block to chunks.
//!
//! A [`Kernel`] converts a block of at most [`BLOCK`] elements, with its element types erased to
//! bytes; [`driver`] feeds it the bytes of a chunk (in place, borrowed, misaligned, in parallel).
//! The driver is compiled once; only the small typed loops of each kernel are generic, and those
//! only over the ten storage types, never over pairs of the 26 data types.
//!
//! Kernels come in three kinds: vectorised loops over hardware types (the `cast_value` fast paths
//! and the `scale_offset` arithmetic), tables for one-byte inputs ([`lut`]), and the exact element
//! function for everything else ([`exact`]).

pub(crate) mod buffer;
pub(crate) mod driver;
pub(crate) mod exact;
pub(crate) mod lut;
pub(crate) mod simd;
#[cfg(test)]
pub(crate) mod testing;

use std::cell::RefCell;
use std::fmt::Debug;
use std::mem::MaybeUninit;
use std::sync::Arc;

use crate::numeric::Storage;
use crate::numeric::fault::ElementFault;

/// Elements per block: large enough to amortise the work around each block's loops (calls, slice
/// and alignment checks: at 1024 elements they cost a quarter of a narrowing cast's time), small
/// enough that a block's input and output stay in the core's own caches between passes.
#[cfg(not(miri))]
pub(crate) const BLOCK: usize = 4096;
/// Under Miri, blocks of 128 elements, so that the tests cross many blocks in little time.
#[cfg(miri)]
pub(crate) const BLOCK: usize = 128;

/// A conversion of blocks of elements, element types erased.
///
/// The output of [`Self::convert`] may be memory not yet written (a new chunk's buffer), so it is
/// handed over as `MaybeUninit` and every element must be written.
///
/// # Safety
/// [`Self::convert`] writes every output element when it succeeds, so that the driver may take
/// the output as initialised then; and implementations write only initialised values into the
/// output (never `MaybeUninit::uninit()`), so that the driver may hand them initialised bytes as
/// well ([`convert_init`](Self::convert_init)), which stay initialised.
pub(crate) unsafe trait Kernel: Send + Sync + Debug {
    /// The bytes of one input element and of one output element.
    fn sizes(&self) -> (usize, usize);

    /// Converts the elements of `input` into `output`, writing every output element (at most
    /// [`BLOCK`] elements; both aligned for their element types, as the driver guarantees).
    ///
    /// # Errors
    /// Returns the first element without an acceptable result, indexed within the block; the
    /// output is then partly written.
    fn convert(&self, input: &[u8], output: &mut [MaybeUninit<u8>]) -> Result<(), ElementFault>;

    /// As [`Self::convert`], into bytes already initialised.
    ///
    /// # Errors
    /// As [`Self::convert`].
    fn convert_init(&self, input: &[u8], output: &mut [u8]) -> Result<(), ElementFault> {
        // SAFETY: the trait's contract: `convert` writes only initialised values, so `output`
        // stays initialised.
        self.convert(input, unsafe { as_uninit(output) })
    }

    /// Converts a leading part of `data` in place, exactly as [`Self::convert`] would, for a
    /// kernel of equal input and output width, and returns how many elements it converted; the
    /// rest is left unchanged and goes through [`Self::convert`]. The default converts nothing.
    ///
    /// The part must end before any element that [`Self::convert`] rejects.
    fn convert_in_place(&self, data: &mut [u8]) -> usize {
        let _ = data;
        0
    }
}

/// Output elements not yet written, which a loop fills with one output element per input
/// element: the only safe way to a [`Written`], so that the typed loops make no promise of their
/// own ([`Kernel`] checks the proof where it hands the slots out).
pub(crate) struct Slots<'a, T> {
    slots: &'a mut [MaybeUninit<T>],
}

/// The proof that every element of some [`Slots`] was written: the elements, initialised.
#[must_use]
pub(crate) struct Written<'a, T> {
    elements: &'a mut [T],
}

impl<'a, T: Copy> Slots<'a, T> {
    /// The slots `slots`.
    pub(crate) fn new(slots: &'a mut [MaybeUninit<T>]) -> Self {
        Self { slots }
    }

    /// The number of slots.
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// Writes `f(x)` for every element `x` of `input`, which holds one element per slot.
    ///
    /// # Panics
    /// If `input` does not hold as many elements as there are slots.
    #[expect(
        clippy::inline_always,
        reason = "inlined into each instruction set's copy of the loop"
    )]
    #[inline(always)]
    pub(crate) fn fill<S: Copy>(self, input: &[S], mut f: impl FnMut(S) -> T) -> Written<'a, T> {
        assert_eq!(
            input.len(),
            self.slots.len(),
            "one output element per input element"
        );
        for (&x, y) in input.iter().zip(self.slots.iter_mut()) {
            y.write(f(x));
        }
        let elements =
            // SAFETY: the loop wrote every slot: there are as many as input elements (asserted).
            unsafe { assume_init(self.slots) };
        Written { elements }
    }

    /// Fills the slots in two parts: the first `mid` by `head`, the rest by `tail` (which also
    /// returns a value of its own); the proof for all of them, taken from these slots themselves
    /// once both parts have proved theirs.
    ///
    /// # Panics
    /// If `mid` is beyond the slots, or a part's proof does not cover the slots it was given.
    pub(crate) fn fill_in_two<R>(
        self,
        mid: usize,
        head: impl for<'s> FnOnce(Slots<'s, T>) -> Written<'s, T>,
        tail: impl for<'s> FnOnce(Slots<'s, T>) -> (Written<'s, T>, R),
    ) -> (Written<'a, T>, R) {
        let (first, rest) = self.slots.split_at_mut(mid);
        // Where each part starts and how long it is, compared with its proof.
        let place = |part: &[MaybeUninit<T>]| (part.as_ptr().cast::<T>(), part.len());
        let covers = |(start, len): (*const T, usize), written: &mut Written<'_, T>| {
            let elements = written.elements();
            assert!(
                std::ptr::eq(elements.as_ptr(), start) && elements.len() == len,
                "a part's proof covers the slots it was given"
            );
        };
        let (first_place, rest_place) = (place(first), place(rest));
        covers(first_place, &mut head(Slots { slots: first }));
        let (mut written, value) = tail(Slots { slots: rest });
        covers(rest_place, &mut written);
        let elements =
            // SAFETY: both parts proved every one of their slots written (checked above), and
            // together they are all of these slots.
            unsafe { assume_init(self.slots) };
        (Written { elements }, value)
    }

    /// The slots, for a loop that stores through pointers.
    pub(crate) fn as_mut_ptr(&mut self) -> *mut T {
        self.slots.as_mut_ptr().cast()
    }

    /// The proof for slots a loop wrote through [`Self::as_mut_ptr`].
    ///
    /// # Safety
    /// Every slot must have been written with a value.
    pub(crate) unsafe fn assume_written(self) -> Written<'a, T> {
        let elements =
            // SAFETY: the caller guarantees that every slot was written.
            unsafe { assume_init(self.slots) };
        Written { elements }
    }
}

impl<'a, T> Written<'a, T> {
    /// The elements written.
    pub(crate) fn elements(&mut self) -> &mut [T] {
        self.elements
    }

    /// The elements written, for good.
    pub(crate) fn into_elements(self) -> &'a mut [T] {
        self.elements
    }
}

/// A kernel written over typed slices; [`Kernel`] is derived from it.
pub(crate) trait Typed: Send + Sync + Debug + 'static {
    /// The input element storage.
    type In: Storage;
    /// The output element storage.
    type Out: Storage;

    /// As [`Kernel::convert`]: writes every slot, or returns the first element without an
    /// acceptable result.
    ///
    /// # Errors
    /// Returns the first element without an acceptable result.
    fn convert<'a>(
        &self,
        input: &[Self::In],
        output: Slots<'a, Self::Out>,
    ) -> Result<Written<'a, Self::Out>, ElementFault>;

    /// As [`Self::convert`], into elements already initialised.
    ///
    /// # Errors
    /// As [`Self::convert`].
    #[cfg(test)]
    fn convert_typed(
        &self,
        input: &[Self::In],
        output: &mut [Self::Out],
    ) -> Result<(), ElementFault> {
        // SAFETY: the slots are only ever written with values (`Slots` writes nothing else).
        let slots = Slots::new(unsafe { as_uninit(output) });
        self.convert(input, slots).map(|_| ())
    }

    /// As [`Kernel::convert_in_place`] (only called when `In` and `Out` have the same width).
    fn convert_in_place(&self, data: &mut [Self::In]) -> usize {
        let _ = data;
        0
    }
}

// SAFETY: `convert` hands the output to `Typed::convert` as `Slots`, which only writes values,
// and returns only once the proof it gets back covers those very slots.
unsafe impl<K: Typed> Kernel for K {
    fn sizes(&self) -> (usize, usize) {
        (size_of::<K::In>(), size_of::<K::Out>())
    }

    fn convert(&self, input: &[u8], output: &mut [MaybeUninit<u8>]) -> Result<(), ElementFault> {
        let output: &mut [MaybeUninit<K::Out>] = cast_uninit(output);
        let input: &[K::In] = bytemuck::cast_slice(input);
        assert_eq!(
            input.len(),
            output.len(),
            "one output element per input element"
        );
        let (start, len) = (output.as_ptr().cast::<K::Out>(), output.len());
        let mut written = Typed::convert(self, input, Slots::new(output))?;
        let elements = written.elements();
        assert!(
            std::ptr::eq(elements.as_ptr(), start) && elements.len() == len,
            "the proof covers the slots handed out"
        );
        Ok(())
    }

    fn convert_in_place(&self, data: &mut [u8]) -> usize {
        Typed::convert_in_place(self, bytemuck::cast_slice_mut(data))
    }
}

/// `slice` as slots that may be written.
///
/// # Safety
/// Only initialised values may be written through the result (as every kernel does), else
/// `slice` would hold uninitialised elements.
pub(crate) unsafe fn as_uninit<T: Copy>(slice: &mut [T]) -> &mut [MaybeUninit<T>] {
    // SAFETY: `MaybeUninit<T>` has the layout of `T`; the caller writes only initialised values.
    unsafe { &mut *(std::ptr::from_mut(slice) as *mut [MaybeUninit<T>]) }
}

/// `slots`, every one of which has been written.
///
/// # Safety
/// Every element of `slots` must be initialised.
pub(crate) unsafe fn assume_init<T: Copy>(slots: &mut [MaybeUninit<T>]) -> &mut [T] {
    // SAFETY: `MaybeUninit<T>` has the layout of `T`, and the caller guarantees that every
    // element is initialised.
    unsafe { &mut *(std::ptr::from_mut(slots) as *mut [T]) }
}

/// Bytes not yet written as slots for elements of `T`.
///
/// # Panics
/// If `bytes` is not aligned for `T` or not a whole number of elements (the driver guarantees
/// both), as `bytemuck::cast_slice_mut` does.
pub(crate) fn cast_uninit<T: bytemuck::Pod>(
    bytes: &mut [MaybeUninit<u8>],
) -> &mut [MaybeUninit<T>] {
    assert!(
        bytes.as_ptr().align_offset(align_of::<T>()) == 0
            && bytes.len().is_multiple_of(size_of::<T>()),
        "output bytes misaligned or not a whole number of elements"
    );
    let len = bytes.len() / size_of::<T>();
    // SAFETY: the bytes are aligned for `T` and hold `len` elements of it (checked above); the
    // result borrows them mutably for as long as `bytes` did, and `MaybeUninit<T>` may hold any
    // bytes, written or not.
    unsafe { std::slice::from_raw_parts_mut(bytes.as_mut_ptr().cast(), len) }
}

/// Two kernels one after the other, the block in between kept in a buffer of the thread's.
#[derive(Debug)]
pub(crate) struct Chain {
    first: Arc<dyn Kernel>,
    second: Arc<dyn Kernel>,
}

impl Chain {
    /// `first`, then `second` (whose input is `first`'s output).
    pub(crate) fn new(first: Arc<dyn Kernel>, second: Arc<dyn Kernel>) -> Self {
        debug_assert_eq!(first.sizes().1, second.sizes().0);
        Self { first, second }
    }
}

// SAFETY: both kernels write only initialised values.
unsafe impl Kernel for Chain {
    fn sizes(&self) -> (usize, usize) {
        (self.first.sizes().0, self.second.sizes().1)
    }

    fn convert(&self, input: &[u8], output: &mut [MaybeUninit<u8>]) -> Result<(), ElementFault> {
        // The block in between lives in a buffer of the thread's, zeroed once, not per call.
        thread_local! {
            static MIDDLE: RefCell<Box<[u64]>> = RefCell::new(vec![0; BLOCK].into_boxed_slice());
        }
        let (in_size, mid_size) = self.first.sizes();
        let n = input.len() / in_size;
        assert_eq!(
            output.len(),
            n * self.second.sizes().1,
            "one output element per input element"
        );
        let mut run = |middle: &mut [u64]| {
            let middle = &mut bytemuck::cast_slice_mut(middle)[..n * mid_size];
            self.first.convert_init(input, middle)?;
            self.second.convert(middle, output)
        };
        MIDDLE.with(|middle| match middle.try_borrow_mut() {
            Ok(mut middle) => run(&mut middle),
            // A chain inside a chain: the inner one takes a block of its own.
            Err(_) => run(&mut vec![0; BLOCK]),
        })
    }
}

#[cfg(test)]
mod tests {
    use std::mem::MaybeUninit;

    use super::{Slots, Written};

    /// Writes `value` into every slot.
    fn fill<T: Copy>(slots: Slots<'_, T>, value: T) -> Written<'_, T> {
        let input = vec![(); slots.len()];
        slots.fill(&input, |()| value)
    }

    #[test]
    fn slots_filled_in_two_parts_are_proved_written_as_one() {
        for mid in [0, 1, 5, 9] {
            let mut slots = [MaybeUninit::<u16>::uninit(); 9];
            let (mut written, value) = Slots::new(&mut slots).fill_in_two(
                mid,
                |head| fill(head, 1),
                |tail| (fill(tail, 2), "tail"),
            );
            assert_eq!(value, "tail");
            let want: Vec<u16> = (0..9).map(|i| if i < mid { 1 } else { 2 }).collect();
            assert_eq!(written.elements(), want.as_slice());
        }
    }

    #[test]
    #[should_panic(expected = "a part's proof covers the slots it was given")]
    // The proof of other slots must outlive every call, so it is leaked, which Miri reports.
    #[cfg_attr(miri, ignore)]
    fn a_part_proving_other_slots_is_caught() {
        let mut slots = [MaybeUninit::<u16>::uninit(); 4];
        let other: &'static mut [u16] = Box::leak(vec![7u16; 2].into_boxed_slice());
        let _ = Slots::new(&mut slots).fill_in_two(
            2,
            |_head| Written { elements: other },
            |tail| (fill(tail, 2), ()),
        );
    }
}
