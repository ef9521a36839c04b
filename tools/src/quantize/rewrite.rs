//! Rewriting an array into a quantised copy, chunk by chunk, and verifying every element.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use zarrs::array::chunk_key_encoding::DefaultChunkKeyEncoding;
use zarrs::array::codec::BytesCodec;
use zarrs::array::codec::api::BytesToBytesCodecTraits;
use zarrs::array::storage_transformer::StorageTransformerChain;
use zarrs::array::{
    Array, ArrayBuilder, ArrayBytes, ArrayCreateError, ArrayError, ArrayMetadataOptions,
    ChunkKeyEncoding,
};
use zarrs::storage::{ReadableStorageTraits, ReadableWritableStorageTraits, StorageError};

use super::{DataRange, Plan, PlanError, Precision, chunk_indices, plan, to_f64};

/// What [`quantize_array`] did.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct QuantizeReport {
    plan: Plan,
    chunks: u64,
    elements: u64,
    max_error: f64,
}

impl QuantizeReport {
    /// The plan it used.
    #[must_use]
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The chunks written.
    #[must_use]
    pub fn chunks(&self) -> u64 {
        self.chunks
    }

    /// The elements verified.
    #[must_use]
    pub fn elements(&self) -> u64 {
        self.elements
    }

    /// The largest absolute error measured over every finite element.
    #[must_use]
    pub fn max_error(&self) -> f64 {
        self.max_error
    }
}

/// How [`quantize_array`] quantises: the precision, the compressors after the `bytes` codec (none
/// by default), and what to call with the progress (the stage, the chunks done and the chunks in
/// all, after each chunk).
#[derive(Clone)]
pub struct QuantizeOptions<'a> {
    precision: Precision,
    allow_constant: bool,
    compressors: Vec<Arc<dyn BytesToBytesCodecTraits>>,
    progress: Option<&'a (dyn Fn(Stage, u64, u64) + Sync)>,
}

impl std::fmt::Debug for QuantizeOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QuantizeOptions")
            .field("precision", &self.precision)
            .field("compressors", &self.compressors.len())
            .finish_non_exhaustive()
    }
}

impl<'a> QuantizeOptions<'a> {
    /// Options for `precision`, without compressors or progress.
    #[must_use]
    pub fn new(precision: Precision) -> Self {
        Self {
            precision,
            allow_constant: false,
            compressors: Vec::new(),
            progress: None,
        }
    }

    /// The same, accepting (if `allow`) a plan that stores every finite value as one code, so
    /// that all of them read back as one constant; refused by default, since a precision that
    /// coarse is more often a typo (1e9 for 1e-9) than a wish.
    #[must_use]
    pub fn with_constant_allowed(mut self, allow: bool) -> Self {
        self.allow_constant = allow;
        self
    }

    /// The same with `compressors` after the `bytes` codec.
    #[must_use]
    pub fn with_compressors(mut self, compressors: Vec<Arc<dyn BytesToBytesCodecTraits>>) -> Self {
        self.compressors = compressors;
        self
    }

    /// The same, calling `progress` after each chunk.
    #[must_use]
    pub fn with_progress(mut self, progress: &'a (dyn Fn(Stage, u64, u64) + Sync)) -> Self {
        self.progress = Some(progress);
        self
    }

    /// The precision.
    #[must_use]
    pub fn precision(&self) -> Precision {
        self.precision
    }

    fn report(&self, stage: Stage, done: u64, all: u64) {
        if let Some(progress) = self.progress {
            progress(stage, done, all);
        }
    }
}

/// The stage [`quantize_array`] reports progress of.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Reading the source to find its range.
    Scan,
    /// Writing the quantised chunks, and reading each back to compare every element.
    Write,
}

/// Why [`quantize_array`] failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum QuantizeError {
    /// No plan meets the request.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// The plan's codecs were rejected.
    #[error(transparent)]
    Codec(#[from] zarrs_scale_offset_cast::Error),
    /// The target array could not be created.
    #[error(transparent)]
    Create(#[from] ArrayCreateError),
    /// Reading or writing an array failed.
    #[error(transparent)]
    Array(#[from] ArrayError),
    /// Writing the target's metadata failed.
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// The plan stores every finite value as one code: all would read back as one constant.
    #[error(
        "the values from {low} to {high} would all be stored as one code and read back as one constant (largest error {bound:e}); ask for a smaller error, or allow it (--allow-constant)"
    )]
    Constant {
        /// The smallest finite value.
        low: f64,
        /// The largest finite value.
        high: f64,
        /// The plan's largest error.
        bound: f64,
    },
    /// An element read back from the target differs from the source by more than the bound.
    #[error(
        "element {element} of chunk {chunk:?} is {source_value} but reads back as {read} (bound {bound:e})"
    )]
    Verify {
        /// The chunk's indices.
        chunk: Vec<u64>,
        /// The element's index within the chunk (C order, the whole chunk).
        element: usize,
        /// The source's value.
        source_value: f64,
        /// The target's value.
        read: f64,
        /// The plan's bound.
        bound: f64,
    },
}

/// Rewrites `source` (a float array) into a new array at `path` of `target`, stored as integers
/// by the [`plan`] for its range (read from every chunk) and fill value at the precision of
/// `options`, with its compressors after the `bytes` codec. Shape, chunk grid, fill value,
/// dimension names and attributes stay as they are. Chunks are written, read back from the store
/// and compared with the source in parallel (rayon).
///
/// # Errors
/// Returns a [`QuantizeError`] if no plan meets `precision`, an array cannot be read or written,
/// or an element reads back outside the bound.
pub fn quantize_array<TSource, TTarget>(
    source: &Array<TSource>,
    target: Arc<TTarget>,
    path: &str,
    options: &QuantizeOptions<'_>,
) -> Result<(Array<TTarget>, QuantizeReport), QuantizeError>
where
    TSource: ?Sized + ReadableStorageTraits + 'static,
    TTarget: ?Sized + ReadableWritableStorageTraits + 'static,
{
    if super::format::Format::of(source.data_type()).is_none() {
        let name = source.data_type().name_v3().map(|n| n.to_string());
        return Err(PlanError::UnsupportedDataType(name.unwrap_or_default()).into());
    }
    let range = DataRange::scan(source, &|done, all| options.report(Stage::Scan, done, all))?;
    let fill = ArrayBytes::new_flen(source.fill_value().as_ne_bytes().to_vec());
    let fill = to_f64(source.data_type(), &fill)?.first().copied();
    let plan = plan(source.data_type(), &range, options.precision, fill)?;
    let (lo, hi) = plan.range();
    if plan.codes().0 == plan.codes().1 && lo < hi && !options.allow_constant {
        return Err(QuantizeError::Constant {
            low: lo,
            high: hi,
            bound: plan.max_error(),
        });
    }
    let array = ArrayBuilder::from_array(source)
        .array_to_array_codecs(plan.codecs()?)
        .array_to_bytes_codec(Arc::new(BytesCodec::little()))
        .bytes_to_bytes_codecs(options.compressors.clone())
        .chunk_key_encoding(ChunkKeyEncoding::new(DefaultChunkKeyEncoding::default()))
        .storage_transformers(StorageTransformerChain::default())
        .build(target, path)?;
    // Every check, and writes checked against the whole chain.
    let checked = zarrs_scale_offset_cast::CheckedArray::new(&array)?;
    // The source's attributes as they are, without zarrs' `_zarrs` entry.
    array
        .store_metadata_opt(&ArrayMetadataOptions::default().with_include_zarrs_metadata(false))?;
    let chunks = chunk_indices(source);
    let total = chunks.len() as u64;
    let done = AtomicU64::new(0);
    let (elements, max_error) = chunks
        .par_iter()
        .map(|indices| {
            let result = write_chunk(source, &checked, indices, plan.max_error);
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            options.report(Stage::Write, n, total);
            result
        })
        .try_reduce(|| (0, 0.0), |a, b| Ok((a.0 + b.0, a.1.max(b.1))))?;
    let report = QuantizeReport {
        plan,
        chunks: total,
        elements,
        max_error,
    };
    Ok((array, report))
}

/// Writes the chunk at `indices` of `source` to `target`, reads it back from the store and
/// compares every element with the source's: the elements within the array, and the largest error.
fn write_chunk<TSource, TTarget>(
    source: &Array<TSource>,
    target: &Array<TTarget>,
    indices: &[u64],
    bound: f64,
) -> Result<(u64, f64), QuantizeError>
where
    TSource: ?Sized + ReadableStorageTraits + 'static,
    TTarget: ?Sized + ReadableWritableStorageTraits + 'static,
{
    let bytes: ArrayBytes<'static> = source.retrieve_chunk(indices)?;
    let expected = to_f64(source.data_type(), &bytes)?;
    target.store_chunk(indices, bytes)?;
    let read: ArrayBytes<'static> = target.retrieve_chunk(indices)?;
    let read = to_f64(target.data_type(), &read)?;
    let mut largest = 0f64;
    for (element, (&x, &z)) in expected.iter().zip(&read).enumerate() {
        let error = if x.is_finite() { (z - x).abs() } else { 0.0 };
        let same_special =
            (x.is_nan() && z.is_nan()) || (x.is_infinite() && x.to_bits() == z.to_bits());
        if !(same_special || (x.is_finite() && error <= bound)) {
            return Err(QuantizeError::Verify {
                chunk: indices.to_vec(),
                element,
                source_value: x,
                read: z,
                bound,
            });
        }
        largest = largest.max(error);
    }
    Ok((
        source.chunk_subset_bounded(indices)?.num_elements(),
        largest,
    ))
}
