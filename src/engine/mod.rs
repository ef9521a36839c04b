//! The engine both codecs run on: element conversions applied block by block to chunks.
//!
//! A [`Kernel`] converts a block of at most [`BLOCK`] elements, with its element types erased to
//! bytes; [`blockwise`] feeds it the bytes of a chunk (in place, borrowed, misaligned, in parallel).
//! It is compiled once; only the small typed loops of each kernel are generic, and those
//! only over the ten storage types, never over pairs of the 26 data types.
//!
//! Kernels come in three kinds: vectorised loops over hardware types (the `cast_value` fast paths
//! and the `scale_offset` arithmetic), tables for one-byte inputs ([`lut`]), and the exact element
//! function for everything else ([`exact`]).

pub(crate) mod blockwise;
pub(crate) mod buffer;
pub(crate) mod exact;
pub(crate) mod lut;
pub(crate) mod simd;
mod slots;
#[cfg(test)]
pub(crate) mod testing;

use std::cell::RefCell;
use std::fmt::Debug;
use std::mem::MaybeUninit;
use std::sync::Arc;

use crate::numeric::Storage;
use crate::numeric::fault::ElementFault;
pub(crate) use slots::{Slots, Written, as_uninit, assume_init, cast_uninit};

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

/// A kernel written over typed slices, block by block; [`Kernel`] is derived from it.
///
/// A block is converted in two passes: [`Self::block`], a loop compiled for the kernel's
/// instruction set ([`Isa::run_block`](simd::Isa::run_block)) that writes every element and says
/// whether it left some undecided, and only then [`Self::settle`], which decides those (or names
/// the first element without an acceptable result).
pub(crate) trait Typed: Send + Sync + Debug + 'static {
    /// The input element storage.
    type In: Storage;
    /// The output element storage.
    type Out: Storage;

    /// The instruction set [`Self::block`] is compiled for.
    fn isa(&self) -> simd::Isa;

    /// The loop over one block: writes every slot, and returns whether it left some elements
    /// for [`Self::settle`]. Implementations are `#[inline(always)]`, as is every function they
    /// call on the hot path, so that they are compiled into each instruction set's copy.
    fn block<'a>(
        &self,
        input: &[Self::In],
        output: Slots<'a, Self::Out>,
    ) -> (Written<'a, Self::Out>, bool);

    /// Decides the elements [`Self::block`] left undecided in `output`, the block's output.
    ///
    /// # Errors
    /// Returns the first element without an acceptable result.
    fn settle(&self, input: &[Self::In], output: &mut [Self::Out]) -> Result<(), ElementFault>;

    /// As [`Kernel::convert`], into elements already initialised.
    ///
    /// # Errors
    /// As [`Kernel::convert`].
    #[cfg(test)]
    fn convert_typed(
        &self,
        input: &[Self::In],
        output: &mut [Self::Out],
    ) -> Result<(), ElementFault>
    where
        Self: Sized,
    {
        Kernel::convert_init(
            self,
            bytemuck::cast_slice(input),
            bytemuck::cast_slice_mut(output),
        )
    }

    /// As [`Kernel::convert_in_place`] (only called when `In` and `Out` have the same width).
    fn convert_in_place(&self, data: &mut [Self::In]) -> usize {
        let _ = data;
        0
    }
}

// SAFETY: `convert` hands the output to `Typed::block` as `Slots`, which only writes values,
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
        let (mut written, undecided) = self.isa().run_block(self, input, Slots::new(output));
        let elements = written.elements();
        assert!(
            std::ptr::eq(elements.as_ptr(), start) && elements.len() == len,
            "the proof covers the slots handed out"
        );
        if undecided {
            self.settle(input, elements)?;
        }
        Ok(())
    }

    fn convert_in_place(&self, data: &mut [u8]) -> usize {
        Typed::convert_in_place(self, bytemuck::cast_slice_mut(data))
    }
}

/// Two kernels one after the other, the block in between kept in a buffer of the thread's.
#[derive(Debug)]
pub(crate) struct Composed {
    first: Arc<dyn Kernel>,
    second: Arc<dyn Kernel>,
}

impl Composed {
    /// `first`, then `second` (whose input is `first`'s output).
    pub(crate) fn new(first: Arc<dyn Kernel>, second: Arc<dyn Kernel>) -> Self {
        debug_assert_eq!(first.sizes().1, second.sizes().0);
        Self { first, second }
    }
}

// SAFETY: both kernels write only initialised values.
unsafe impl Kernel for Composed {
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
