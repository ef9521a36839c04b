//! Output slots a loop fills, and the proof that it wrote every one of them.

use std::mem::MaybeUninit;

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
