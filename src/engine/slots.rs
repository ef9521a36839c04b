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
