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

/// An empty buffer with room for `len` bytes, which the caller writes before setting the length
/// (no byte is written here: zero-filling memory that is overwritten anyway costs a pass).
pub(crate) fn uninit(len: usize) -> Vec<u8> {
    let mut buffer = Vec::with_capacity(len);
    advise(&mut buffer.spare_capacity_mut()[..len]);
    buffer
}

/// Offers a new buffer of zeros (from the allocator's zeroed memory, not yet touched) huge pages
/// where it is large enough to gain, as [`advise`] does.
pub(crate) fn advise_zeroed(buffer: &mut [u8]) {
    // SAFETY: the same bytes as slots; `advise` writes nothing through them, so they stay
    // initialised.
    advise(unsafe { super::as_uninit(buffer) });
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
    const PAGE: usize = 4096;
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
    fn buffers_have_room_for_their_bytes_with_or_without_the_advice() {
        for len in [0, 1, 4095, super::HUGE_PAGE_MIN_BYTES + 12_345] {
            let buffer = super::uninit(len);
            assert!(buffer.is_empty());
            assert!(buffer.capacity() >= len);
        }
    }
}
