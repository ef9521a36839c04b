//! Kernels element by element, for the tests against the reference model.

use super::{BLOCK, Kernel};
use crate::numeric::element_bits;
use crate::numeric::fault::{Fault, FaultKind};
use zarrs_scale_offset_cast_reference::RefFault;

/// The result of every element of `bytes` on its own: its output bits or its fault. Blocks go
/// through [`Kernel::convert`] whole; a block that fails is converted again element by element.
/// Where the kernel converts in place, that must agree with `convert`, stop before any rejected
/// element, and leave the rest unchanged.
pub(crate) fn apply_each(kernel: &dyn Kernel, bytes: &[u8]) -> Vec<Result<u64, Fault>> {
    let (in_size, out_size) = kernel.sizes();
    let mut results = Vec::with_capacity(bytes.len() / in_size);
    for block in bytes.chunks(BLOCK * in_size) {
        let n = block.len() / in_size;
        let mut staged = vec![0u64; BLOCK];
        let input = &mut bytemuck::cast_slice_mut(&mut staged)[..block.len()];
        input.copy_from_slice(block);
        let mut output = vec![0u64; BLOCK];
        let output = &mut bytemuck::cast_slice_mut(&mut output)[..n * out_size];
        let converted = kernel.convert_init(input, output);
        if in_size == out_size {
            let mut data = staged.clone();
            let data = &mut bytemuck::cast_slice_mut(&mut data)[..block.len()];
            let done = kernel.convert_in_place(data);
            if let Err(fault) = &converted {
                assert!(fault.index >= done, "in place took a rejected element");
            }
            assert_eq!(
                &data[..done * in_size],
                &output[..done * in_size],
                "in place and convert disagree"
            );
            assert_eq!(
                &data[done * in_size..],
                &block[done * in_size..],
                "in place changed the rest"
            );
        }
        if converted.is_ok() {
            results.extend(output.chunks_exact(out_size).map(|y| Ok(element_bits(y))));
        } else {
            for x in block.chunks_exact(in_size) {
                let mut one_in = [0u64; 1];
                let one_in = &mut bytemuck::cast_slice_mut(&mut one_in)[..in_size];
                one_in.copy_from_slice(x);
                let mut one_out = [0u64; 1];
                let one_out = &mut bytemuck::cast_slice_mut(&mut one_out)[..out_size];
                results.push(
                    kernel
                        .convert_init(one_in, one_out)
                        .map(|()| element_bits(one_out))
                        .map_err(|fault| fault.fault),
                );
            }
        }
    }
    results
}

pub(crate) use crate::numeric::ROUNDINGS;

/// The model's name for a fault of the crate.
pub(crate) fn model_fault(fault: Fault) -> RefFault {
    if fault.encoded.is_some() {
        return RefFault::Unreadable;
    }
    match fault.kind {
        FaultKind::NanNotRepresentable => RefFault::Nan,
        FaultKind::InfinityNotRepresentable => RefFault::Infinity,
        FaultKind::OutOfRange => RefFault::OutOfRange,
        FaultKind::NotExact => RefFault::NotExact,
        FaultKind::InvalidEncoding => panic!("the inputs are encodings"),
    }
}

/// Under Miri: rayon's global pool made of the calling thread alone, so that zarrs (whose
/// `CodecOptions::default()` asks rayon for its thread count) starts no worker threads, whose idle
/// work stealing Miri's Stacked Borrows model rejects inside crossbeam-epoch. The crate's own
/// parallel work runs on scoped threads under Miri ([`crate::parallel`]); tests calling this make
/// zarrs read and write single chunks, which it does without rayon. Elsewhere it does nothing.
pub(crate) fn rayon_without_workers() {
    #[cfg(miri)]
    {
        static POOL: std::sync::Once = std::sync::Once::new();
        POOL.call_once(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .use_current_thread()
                .build_global()
                .expect("the first use of rayon's global pool");
        });
    }
}
