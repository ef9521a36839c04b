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

use crate::fault::ElementFault;
use crate::numeric::Storage;

/// Elements per block: large enough to amortise the work around each block's loops (calls, slice
/// and alignment checks: at 1024 elements they cost a quarter of a narrowing cast's time), small
/// enough that a block's input and output stay in the core's own caches between passes.
pub(crate) const BLOCK: usize = 4096;

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

/// A kernel written over typed slices; [`Kernel`] is derived from it.
///
/// # Safety
/// As for [`Kernel`]: `convert` writes every output element when it succeeds, and only
/// initialised values.
pub(crate) unsafe trait Typed: Send + Sync + Debug + 'static {
    /// The input element storage.
    type In: Storage;
    /// The output element storage.
    type Out: Storage;

    /// As [`Kernel::convert`].
    ///
    /// # Errors
    /// Returns the first element without an acceptable result.
    fn convert(
        &self,
        input: &[Self::In],
        output: &mut [MaybeUninit<Self::Out>],
    ) -> Result<(), ElementFault>;

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
        // SAFETY: the trait's contract: `convert` writes only initialised values.
        self.convert(input, unsafe { as_uninit(output) })
    }

    /// As [`Kernel::convert_in_place`] (only called when `In` and `Out` have the same width).
    fn convert_in_place(&self, data: &mut [Self::In]) -> usize {
        let _ = data;
        0
    }
}

// SAFETY: `convert` hands the output to `Typed::convert`, whose contract is the same.
unsafe impl<K: Typed> Kernel for K {
    fn sizes(&self) -> (usize, usize) {
        (size_of::<K::In>(), size_of::<K::Out>())
    }

    fn convert(&self, input: &[u8], output: &mut [MaybeUninit<u8>]) -> Result<(), ElementFault> {
        Typed::convert(self, bytemuck::cast_slice(input), cast_uninit(output))
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

/// Elements of `T` as slots for bytes (the inverse of [`cast_uninit`]).
pub(crate) fn uninit_bytes<T: bytemuck::Pod>(
    slots: &mut [MaybeUninit<T>],
) -> &mut [MaybeUninit<u8>] {
    let len = size_of_val(slots);
    // SAFETY: the same memory, borrowed mutably for as long as `slots` was; bytes have no
    // alignment requirement, and a `MaybeUninit<u8>` may hold any byte, written or not.
    unsafe { std::slice::from_raw_parts_mut(slots.as_mut_ptr().cast(), len) }
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
