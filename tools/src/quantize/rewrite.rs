//! Rewriting an array into a quantised copy, chunk by chunk, and verifying every element.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rayon::prelude::*;
use zarrs::array::chunk_key_encoding::DefaultChunkKeyEncoding;
use zarrs::array::codec::api::BytesToBytesCodecTraits;
use zarrs::array::storage_transformer::StorageTransformerChain;
use zarrs::array::{
    Array, ArrayBuilder, ArrayBytes, ArrayCreateError, ArrayError, ArrayMetadataOptions,
    ChunkKeyEncoding, unravel_index,
};
use zarrs::storage::{ReadableStorageTraits, ReadableWritableStorageTraits, StorageError};

use super::layout::{Chunking, Layout};
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

/// How [`quantize_array`] quantises: the precision, the layout (the source's by default: its
/// chunks, shards and compressors), and what to call with the progress (the stage, the chunks
/// done and the chunks in all, after each chunk).
#[derive(Clone)]
pub struct QuantizeOptions<'a> {
    precision: Precision,
    allow_constant: bool,
    chunking: Chunking,
    compressors: Option<Vec<Arc<dyn BytesToBytesCodecTraits>>>,
    progress: Option<&'a (dyn Fn(Stage, u64, u64) + Sync)>,
}

impl std::fmt::Debug for QuantizeOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QuantizeOptions")
            .field("precision", &self.precision)
            .field("chunking", &self.chunking)
            .field("compressors", &self.compressors.as_ref().map(Vec::len))
            .finish_non_exhaustive()
    }
}

impl<'a> QuantizeOptions<'a> {
    /// Options for `precision`, keeping the source's layout, without progress.
    #[must_use]
    pub fn new(precision: Precision) -> Self {
        Self {
            precision,
            allow_constant: false,
            chunking: Chunking::Source,
            compressors: None,
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

    /// The same with `compressors` after the `bytes` codec (inside the shards where the copy is
    /// sharded) instead of the source's; none for an empty list. Blosc takes the stored type's
    /// size as its `typesize`.
    #[must_use]
    pub fn with_compressors(mut self, compressors: Vec<Arc<dyn BytesToBytesCodecTraits>>) -> Self {
        self.compressors = Some(compressors);
        self
    }

    /// The same with the copy chunked as `chunking` says instead of as the source is.
    #[must_use]
    pub fn with_chunking(mut self, chunking: Chunking) -> Self {
        self.chunking = chunking;
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
        "the element at {coordinates:?} is {source_value} but reads back as {read} (bound {bound:e})"
    )]
    Verify {
        /// The element's coordinates in the array.
        coordinates: Vec<u64>,
        /// The source's value.
        source_value: f64,
        /// The target's value.
        read: f64,
        /// The plan's bound.
        bound: f64,
    },
}

/// A quantisation decided and not yet written: the [`Plan`] for the source's range and fill value,
/// and the copy's [`Layout`]. [`prepare_quantization`] makes it; printing it is a dry run.
#[derive(Debug)]
pub struct Quantization<'s, 'o, TSource: ?Sized> {
    source: &'s Array<TSource>,
    options: &'s QuantizeOptions<'o>,
    plan: Plan,
    layout: Layout,
}

/// Reads every chunk of `source` (a float array) to find its range, and decides the [`plan`] for
/// it at the precision of `options` and the copy's layout; writes nothing.
///
/// # Errors
/// Returns a [`QuantizeError`] if the precision is not valid (before anything is read), no plan
/// meets it, the layout asked for does not fit the array, or the source cannot be read.
pub fn prepare_quantization<'s, 'o, TSource>(
    source: &'s Array<TSource>,
    options: &'s QuantizeOptions<'o>,
) -> Result<Quantization<'s, 'o, TSource>, QuantizeError>
where
    TSource: ?Sized + ReadableStorageTraits + 'static,
{
    options.precision.check()?;
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
    let layout = Layout::new(
        source,
        &options.chunking,
        options.compressors.as_deref(),
        plan.storage(),
    )?;
    Ok(Quantization {
        source,
        options,
        plan,
        layout,
    })
}

impl<TSource: ?Sized> Quantization<'_, '_, TSource> {
    /// The plan.
    #[must_use]
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The copy's layout.
    #[must_use]
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
}

impl<TSource> Quantization<'_, '_, TSource>
where
    TSource: ?Sized + ReadableStorageTraits + 'static,
{
    /// Writes the copy into a new array at `path` of `target`: the source's shape, fill value,
    /// dimension names and attributes, the layout's chunks, shards and compressors, and the
    /// plan's codecs (inside the shards where it is sharded), through a
    /// [`CheckedArray`](zarrs_scale_offset_cast::CheckedArray). Chunks are written, read back
    /// from the store and compared with the source in parallel (rayon).
    ///
    /// # Errors
    /// Returns a [`QuantizeError`] if an array cannot be read or written, or an element reads
    /// back outside the bound.
    pub fn write<TTarget>(
        &self,
        target: Arc<TTarget>,
        path: &str,
    ) -> Result<(Array<TTarget>, QuantizeReport), QuantizeError>
    where
        TTarget: ?Sized + ReadableWritableStorageTraits + 'static,
    {
        let (source, plan) = (self.source, &self.plan);
        let mut builder = ArrayBuilder::from_array(source);
        self.layout
            .build_into(&mut builder, plan.codecs()?, plan.data_type());
        let array = builder
            .chunk_key_encoding(ChunkKeyEncoding::new(DefaultChunkKeyEncoding::default()))
            .storage_transformers(StorageTransformerChain::default())
            .build(target, path)?;
        // Every check, and writes checked against the whole chain.
        let checked = zarrs_scale_offset_cast::CheckedArray::new(&array)?;
        // The source's attributes as they are, without zarrs' `_zarrs` entry.
        array.store_metadata_opt(
            &ArrayMetadataOptions::default().with_include_zarrs_metadata(false),
        )?;
        let chunks = chunk_indices(&array);
        let total = chunks.len() as u64;
        let done = AtomicU64::new(0);
        let (elements, max_error) = chunks
            .par_iter()
            .map(|indices| {
                let result = write_chunk(source, &checked, indices, plan.max_error);
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                self.options.report(Stage::Write, n, total);
                result
            })
            .try_reduce(|| (0, 0.0), |a, b| Ok((a.0 + b.0, a.1.max(b.1))))?;
        let report = QuantizeReport {
            plan: plan.clone(),
            chunks: total,
            elements,
            max_error,
        };
        Ok((array, report))
    }
}

/// Rewrites `source` (a float array) into a new array at `path` of `target`, stored as integers
/// by the [`plan`] for its range (read from every chunk) and fill value at the precision of
/// `options`: [`prepare_quantization`] and then [`Quantization::write`]. Shape, fill value,
/// dimension names and attributes stay as they are, and so, unless `options` change them, do the
/// chunks, the shards and their inner chunks, and the compressors.
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
    prepare_quantization(source, options)?.write(target, path)
}

/// Writes the chunk at `indices` of `target` from the same elements of `source`, reads it back
/// from the store and compares every element with the source's: the elements, and the largest
/// error.
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
    let subset = target.chunk_subset_bounded(indices)?;
    let bytes: ArrayBytes<'static> = source.retrieve_array_subset(&subset)?;
    let expected = to_f64(source.data_type(), &bytes)?;
    target.store_array_subset(&subset, bytes)?;
    let read: ArrayBytes<'static> = target.retrieve_array_subset(&subset)?;
    let read = to_f64(target.data_type(), &read)?;
    let mut largest = 0f64;
    for (element, (&x, &z)) in expected.iter().zip(&read).enumerate() {
        let error = if x.is_finite() { (z - x).abs() } else { 0.0 };
        let same_special =
            (x.is_nan() && z.is_nan()) || (x.is_infinite() && x.to_bits() == z.to_bits());
        if !(same_special || (x.is_finite() && error <= bound)) {
            let within = unravel_index(element as u64, subset.shape()).unwrap_or_default();
            return Err(QuantizeError::Verify {
                coordinates: within
                    .iter()
                    .zip(subset.start())
                    .map(|(i, start)| i + start)
                    .collect(),
                source_value: x,
                read: z,
                bound,
            });
        }
        largest = largest.max(error);
    }
    Ok((subset.num_elements(), largest))
}
