//! Output buffers.
//!
//! A chunk whose output is wider than its input (uint8 decoded to float64, say) needs a new
//! buffer. Large buffers come straight from the operating system, and filling one costs a page
//! fault per page touched, which for 4 KiB pages takes longer than the conversion itself. On Linux
//! the buffer is therefore offered transparent huge pages (2 MiB), a hint the kernel may ignore
//! (as it does unless `/sys/kernel/mm/transparent_hugepage/enabled` is `always` or `madvise`).

use std::mem::MaybeUninit;

/// Buffers of at least this many bytes are offered huge pages.
const HUGE_PAGE_MIN_BYTES: usize = 4 << 20;

/// The smallest page size of the platforms the crate runs on (where pages are larger, a step of
/// this size touches each page more than once, and advice for part of a page covers all of it).
const PAGE: usize = 4096;

/// The size of a transparent huge page on x86-64 and most aarch64 kernels.
const HUGE_PAGE: usize = 2 << 20;

/// An empty buffer with room for `len` bytes, which the caller writes before setting the length
/// (no byte is written here: zero-filling memory that is overwritten anyway costs a pass).
pub(crate) fn uninit(len: usize) -> Vec<u8> {
    let mut buffer = Vec::with_capacity(len);
    advise(&mut buffer.spare_capacity_mut()[..len]);
    buffer
}

/// The room of `values` (a new vector) for `len` elements, as bytes to write: never
/// zero-filled, and offered huge pages where it is large.
pub(crate) fn room<T: bytemuck::Pod>(values: &mut Vec<T>, len: usize) -> &mut [MaybeUninit<u8>] {
    values.reserve_exact(len);
    let slots = &mut values.spare_capacity_mut()[..len];
    let bytes_len = size_of_val(slots);
    // SAFETY: the `len` slots as their bytes, borrowed mutably for as long as `values`; bytes
    // have no alignment requirement, and `MaybeUninit<u8>` may hold anything.
    let bytes: &mut [MaybeUninit<u8>] =
        unsafe { std::slice::from_raw_parts_mut(slots.as_mut_ptr().cast(), bytes_len) };
    advise(bytes);
    bytes
}

/// Offers a new buffer of zeros (from the allocator's zeroed memory, not yet touched) huge pages
/// where it is large enough to gain, as [`advise`] does.
fn advise_zeroed(buffer: &mut [u8]) {
    // SAFETY: the same bytes as slots; `advise` writes nothing through them, so they stay
    // initialised.
    advise(unsafe { super::as_uninit(buffer) });
}

/// A new vector of `len` zeros for a read that writes it in an order of its own (zarrs' reads
/// into a buffer copy each chunk's rows into place, so that every thread writes across every page
/// at once): offered huge pages, and on more than one thread its pages faulted in first, each
/// thread taking a contiguous part of its own, so that the read's threads do not queue on the
/// faults of the same pages. A read through zarrs of chunks of 4096 x 64 into a new vector took
/// twice the read into a reused buffer plus what new memory costs on 16 threads without it.
pub(crate) fn zeroed_for_read<T: bytemuck::Pod>(len: usize, threads: usize) -> Vec<T> {
    let mut values = vec![T::zeroed(); len];
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut values);
    advise_zeroed(bytes);
    if threads > 1 && bytes.len() >= HUGE_PAGE_MIN_BYTES {
        let part = bytes.len().div_ceil(threads).next_multiple_of(HUGE_PAGE);
        let parts: Vec<&mut [u8]> = bytes.chunks_mut(part).collect();
        crate::parallel::map(parts, 1, |part| {
            for page in part.chunks_mut(PAGE) {
                // The byte is zero already; the write (of a value the compiler cannot see) is
                // what makes the kernel back the page.
                page[0] = std::hint::black_box(0);
            }
        });
    }
    values
}

/// Offers a new buffer (not yet written) huge pages where it is large enough to gain.
pub(crate) fn advise(buffer: &mut [MaybeUninit<u8>]) {
    if buffer.len() >= HUGE_PAGE_MIN_BYTES {
        advise_huge_pages(buffer);
    }
}

/// Asks the kernel to back the whole pages of `buffer` with huge pages (not under Miri, which
/// has no `madvise`; the advice changes nothing a program can observe).
#[cfg(all(target_os = "linux", not(miri)))]
fn advise_huge_pages(buffer: &mut [MaybeUninit<u8>]) {
    let skip = buffer.as_ptr().align_offset(PAGE).min(buffer.len());
    let pages = &mut buffer[skip..];
    let len = pages.len() / PAGE * PAGE;
    if len > 0 {
        // SAFETY: the `len` bytes from the page-aligned start of `pages` lie within `buffer`,
        // which this function borrows mutably, and `MADV_HUGEPAGE` changes only how the kernel
        // backs the pages, never their contents (nothing is read). The result is ignored: the
        // advice is a hint.
        unsafe {
            libc::madvise(pages.as_mut_ptr().cast(), len, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(any(not(target_os = "linux"), miri))]
fn advise_huge_pages(_buffer: &mut [MaybeUninit<u8>]) {}

#[cfg(test)]
mod tests {
    #[test]
    fn zeroed_buffers_for_reads_are_zeros_on_any_number_of_threads() {
        for threads in [1, 2, 3] {
            for len in [0, 5, (super::HUGE_PAGE_MIN_BYTES >> 3) + 4097] {
                let values: Vec<u64> = super::zeroed_for_read(len, threads);
                assert_eq!(values.len(), len);
                // One comparison of the bytes (Miri runs it natively).
                assert!(values == vec![0; len], "{threads} threads, {len} elements");
            }
        }
    }

    #[test]
    fn buffers_have_room_for_their_bytes_with_or_without_the_advice() {
        for len in [0, 1, 4095, super::HUGE_PAGE_MIN_BYTES + 12_345] {
            let buffer = super::uninit(len);
            assert!(buffer.is_empty());
            assert!(buffer.capacity() >= len);
        }
    }
}
