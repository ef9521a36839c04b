//! What the benchmarks share: seeded data, the streaming floors the codec passes are compared with,
//! and the minimal codec that marks the ceiling of the zarrs `Array` API. They run with the system
//! allocator, as users do.

pub mod minimal;
pub mod reflectance;

use std::sync::Arc;

use bytemuck::Pod;
use num_traits::AsPrimitive;
use zarrs::array::CodecOptions;
use zarrs::array::codec::api::{ArrayToArrayCodecTraits, Codec};
use zarrs::metadata::v3::MetadataV3;

/// The chunk sizes of the codec benchmarks, in elements.
pub const SIZES: [usize; 2] = [65_536, 16_777_216];

/// The `scale_offset` of the codec passes (offset -10, scale 0.1).
pub const SCALE_OFFSET: &str =
    r#"{"name": "scale_offset", "configuration": {"offset": -10, "scale": 0.1}}"#;
/// float64 → uint8, nearest-even, clamp, NaN ↔ 0.
pub const F64_TO_U8: &str = r#"{"name": "cast_value", "configuration": {"data_type": "uint8", "rounding": "nearest-even", "out_of_range": "clamp", "scalar_map": {"encode": [["NaN", 0]], "decode": [[0, "NaN"]]}}}"#;

/// A codec from its JSON metadata.
pub fn codec(json: &str) -> Arc<dyn ArrayToArrayCodecTraits> {
    let metadata: MetadataV3 = serde_json::from_str(json).unwrap();
    match Codec::from_metadata(&metadata).unwrap() {
        Codec::ArrayToArray(codec) => codec,
        _ => unreachable!("both codecs are array-to-array"),
    }
}

pub fn options() -> CodecOptions {
    CodecOptions::default().with_concurrent_target(1)
}

/// The low byte of a random number.
#[expect(clippy::cast_possible_truncation, reason = "the low bits")]
pub fn low_byte(r: u64) -> u8 {
    r as u8
}

/// A seeded generator (splitmix64).
pub fn seeded(n: usize) -> impl Iterator<Item = u64> {
    let mut state = 0x5eed_u64;
    (0..n).map(move |_| {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    })
}

/// Reflectance-like float64 values in [0, 0.6], one in 64 NaN.
#[expect(clippy::cast_precision_loss, reason = "random fractions")]
pub fn reflectances(n: usize) -> Vec<f64> {
    seeded(n)
        .map(|r| {
            if r % 64 == 0 {
                f64::NAN
            } else {
                (r >> 11) as f64 / (1u64 << 53) as f64 * 0.6
            }
        })
        .collect()
}

/// Values in [1, 255] (one in 64 NaN): reflectances in [0, 2540] after offset -10, scale 0.1.
pub fn scaled(n: usize) -> Vec<f64> {
    reflectances(n)
        .into_iter()
        .map(|x| x / 0.6 * 254.0 + 1.0)
        .collect()
}

/// The bytes of `values`.
pub fn bytes<T: Pod>(values: &[T]) -> Vec<u8> {
    bytemuck::cast_slice(values).to_vec()
}

/// A new buffer with room for `len` bytes, offered transparent huge pages on Linux when large,
/// as the codecs' output buffers are.
pub fn with_capacity(len: usize) -> Vec<u8> {
    let mut buffer = Vec::with_capacity(len);
    #[cfg(target_os = "linux")]
    if len >= 4 << 20 {
        let spare = buffer.spare_capacity_mut();
        let skip = spare.as_ptr().align_offset(4096);
        let whole_pages = (len - skip) / 4096 * 4096;
        // SAFETY: the page-aligned range lies within the buffer's capacity; the advice changes
        // no contents and reads nothing.
        unsafe {
            libc::madvise(
                spare[skip..].as_mut_ptr().cast(),
                whole_pages,
                libc::MADV_HUGEPAGE,
            )
        };
    }
    buffer
}

/// Runs `body` compiled for the best vector instructions the CPU has (AVX-512 or AVX2), as the
/// codecs' kernels are.
pub fn with_best<R>(body: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        #[target_feature(enable = "avx2,avx512f,avx512vl,avx512dq,avx512bw")]
        fn avx512<R>(body: impl FnOnce() -> R) -> R {
            body()
        }
        #[target_feature(enable = "avx2")]
        fn avx2<R>(body: impl FnOnce() -> R) -> R {
            body()
        }
        if has!("avx2")
            && has!("avx512f")
            && has!("avx512vl")
            && has!("avx512dq")
            && has!("avx512bw")
        {
            // SAFETY: the CPU has these features.
            return unsafe { avx512(body) };
        }
        if has!("avx2") {
            // SAFETY: the CPU has AVX2.
            return unsafe { avx2(body) };
        }
    }
    body()
}

/// Streams `input` into `output`, one truncating or widening move per element.
fn floor_loop<I: Pod + AsPrimitive<O>, O: Pod>(input: &[u8], output: &mut [u8]) {
    let input: &[I] = bytemuck::cast_slice(input);
    let output: &mut [O] = bytemuck::cast_slice_mut(output);
    for (x, y) in input.iter().zip(output.iter_mut()) {
        *y = x.as_();
    }
}

/// The streaming floor of a pass over owned input: a plain loop that reads the input and writes
/// the output, with nothing in between but an integer move, with the buffer handling the zarrs
/// API allows: in place when the output is not wider (when narrowing, blocks in order, the first
/// ones through a copy on the stack, as their output overlaps their own input), else into a new
/// buffer.
fn floor_owned<I, O>(mut buffer: Vec<u8>) -> Vec<u8>
where
    I: Pod + AsPrimitive<O>,
    O: Pod,
{
    const BLOCK: usize = 1024;
    let (in_size, out_size) = (size_of::<I>(), size_of::<O>());
    let n = buffer.len() / in_size;
    if out_size > in_size {
        return floor_borrowed::<I, O>(&buffer);
    }
    let mut staged = [I::zeroed(); BLOCK];
    with_best(|| {
        let mut start = 0;
        while start < n {
            let len = BLOCK.min(n - start);
            let (head, tail) = buffer.split_at_mut(start * in_size);
            let end = (start + len) * out_size;
            if end <= head.len() {
                floor_loop::<I, O>(&tail[..len * in_size], &mut head[start * out_size..end]);
            } else {
                let block = &mut staged[..len];
                bytemuck::cast_slice_mut(block).copy_from_slice(&tail[..len * in_size]);
                floor_loop::<I, O>(
                    bytemuck::cast_slice(block),
                    &mut buffer[start * out_size..end],
                );
            }
            start += len;
        }
    });
    buffer.truncate(n * out_size);
    buffer
}

/// The streaming floor of a pass over borrowed input: a plain loop from the input into a new
/// buffer (not zero-filled: written once).
fn floor_borrowed<I, O>(input: &[u8]) -> Vec<u8>
where
    I: Pod + AsPrimitive<O>,
    O: Pod,
{
    let n = input.len() / size_of::<I>();
    let mut output = with_capacity(n * size_of::<O>());
    let values: &[I] = bytemuck::cast_slice(input);
    let spare = &mut output.spare_capacity_mut()[..n * size_of::<O>()];
    assert_eq!(spare.as_ptr().align_offset(align_of::<O>()), 0);
    // SAFETY: the spare capacity holds `n` elements of `O` and is aligned for them (checked);
    // `MaybeUninit<O>` may hold any bytes.
    let typed: &mut [std::mem::MaybeUninit<O>] =
        unsafe { std::slice::from_raw_parts_mut(spare.as_mut_ptr().cast(), n) };
    with_best(|| {
        for (x, y) in values.iter().zip(typed.iter_mut()) {
            y.write(x.as_());
        }
    });
    // SAFETY: every one of the `n` elements was written just above.
    unsafe { output.set_len(n * size_of::<O>()) };
    output
}

/// The floor of a pass from elements of `in_size` bytes to elements of `out_size` bytes, for owned
/// (`true`) or borrowed input.
pub fn floor(in_size: usize, out_size: usize, owned: bool) -> fn(&[u8], Vec<u8>) -> Vec<u8> {
    macro_rules! pick {
        ($I:ty, $O:ty) => {
            if owned {
                |_: &[u8], buffer: Vec<u8>| floor_owned::<$I, $O>(buffer)
            } else {
                |input: &[u8], _: Vec<u8>| floor_borrowed::<$I, $O>(input)
            }
        };
    }
    match (in_size, out_size) {
        (8, 8) => pick!(u64, u64),
        (8, 4) => pick!(u64, u32),
        (8, 2) => pick!(u64, u16),
        (8, 1) => pick!(u64, u8),
        (4, 4) => pick!(u32, u32),
        (4, 2) => pick!(u32, u16),
        (2, 8) => pick!(u16, u64),
        (1, 8) => pick!(u8, u64),
        (1, 1) => pick!(u8, u8),
        other => unreachable!("no floor for {other:?}"),
    }
}
