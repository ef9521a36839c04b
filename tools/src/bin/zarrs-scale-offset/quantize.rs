//! `zarrs-scale-offset quantize SOURCE TARGET (--max-error E | --digits N) [--chunks SHAPE
//! [--shards SHAPE]] [--compressor C] [--dry-run]`.

use std::num::NonZeroU64;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressStyle};
use zarrs::array::codec::api::{BytesToBytesCodecTraits, Codec};
use zarrs::array::codec::{GzipCodec, ZlibCodec, ZstdCodec};
use zarrs::array::{Array, ArraySubset};
use zarrs::filesystem::FilesystemStore;
use zarrs::metadata::v3::MetadataV3;
use zarrs_scale_offset_cast_tools::quantize::{
    Chunking, Precision, Quantization, QuantizeOptions, QuantizeReport, Stage, prepare_quantization,
};

/// The arguments of `quantize`.
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("precision").required(true)))]
pub(crate) struct Args {
    /// The float array to quantise: a Zarr V3 or V2 array (folder).
    source: PathBuf,
    /// The new Zarr V3 array (a folder that does not exist yet).
    target: PathBuf,
    /// The largest absolute error of any value (such as 1e-4).
    #[arg(long, group = "precision", allow_negative_numbers = true)]
    max_error: Option<f64>,
    /// Significant decimal digits of the value of largest magnitude.
    #[arg(long, group = "precision")]
    digits: Option<u32>,
    /// Accept a precision so coarse that every value reads back as one constant.
    #[arg(long)]
    allow_constant: bool,
    /// The chunk shape, such as 512x512 (with --shards, the inner chunks of each shard); the
    /// source's chunks and shards without it.
    #[arg(long, value_name = "SHAPE")]
    chunks: Option<String>,
    /// The shard shape, such as 2048x2048, holding inner chunks of --chunks.
    #[arg(long, value_name = "SHAPE", requires = "chunks")]
    shards: Option<String>,
    /// The compressors after the bytes codec (inside the shards): `source` (the source's), `none`,
    /// `zstd[:LEVEL]`, `gzip[:LEVEL]`, `zlib[:LEVEL]`, `blosc[:CNAME[:CLEVEL]]`, or the JSON
    /// metadata of any compressor zarrs builds (an object, or a list of them). Blosc takes the
    /// stored type's size as its typesize.
    #[arg(long, default_value = "source", value_name = "C")]
    compressor: String,
    /// Print the plan, its guaranteed error and the layout, and write nothing.
    #[arg(long)]
    dry_run: bool,
}

/// The compressors `spec` names; `None` for the source's.
fn compressors(spec: &str) -> Result<Option<Vec<Arc<dyn BytesToBytesCodecTraits>>>, String> {
    if spec.trim_start().starts_with(['{', '[']) {
        return from_json(spec).map(Some);
    }
    let parts: Vec<&str> = spec.split(':').collect();
    let (name, rest) = (parts[0], &parts[1..]);
    let most = if name == "blosc" { 2 } else { 1 };
    if rest.len() > most {
        return Err(format!("--compressor {spec}: too many parts"));
    }
    let level = |at: usize, default: i32| -> Result<i32, String> {
        rest.get(at).map_or(Ok(default), |l| {
            l.parse()
                .map_err(|_| format!("the compressor level {l:?} is not a whole number"))
        })
    };
    let invalid = |e: &dyn std::fmt::Display| format!("--compressor {spec}: {e}");
    let codec: Arc<dyn BytesToBytesCodecTraits> = match name {
        "source" if rest.is_empty() => return Ok(None),
        "none" if rest.is_empty() => return Ok(Some(Vec::new())),
        "zstd" => Arc::new(ZstdCodec::new(level(0, 3)?, false)),
        "gzip" => {
            let level = u32::try_from(level(0, 5)?).map_err(|e| invalid(&e))?;
            Arc::new(GzipCodec::new(level).map_err(|e| invalid(&e))?)
        }
        "zlib" => {
            let level = u32::try_from(level(0, 5)?).map_err(|e| invalid(&e))?;
            let level = level.try_into().map_err(|e| invalid(&e))?;
            Arc::new(ZlibCodec::new(level))
        }
        "blosc" => {
            let cname = rest.first().copied().unwrap_or("zstd");
            let clevel = level(1, 5)?;
            let json = format!(
                r#"{{"name": "blosc", "configuration": {{"cname": "{cname}", "clevel": {clevel}, "shuffle": "shuffle", "typesize": 1, "blocksize": 0}}}}"#
            );
            return from_json(&json).map(Some);
        }
        other => {
            return Err(format!(
                "there is no compressor {other:?}: give source, none, zstd, gzip, zlib, blosc or the JSON metadata of a compressor"
            ));
        }
    };
    Ok(Some(vec![codec]))
}

/// The bytes-to-bytes codecs of the JSON metadata `json`: an object, or a list of them.
fn from_json(json: &str) -> Result<Vec<Arc<dyn BytesToBytesCodecTraits>>, String> {
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("--compressor is not valid JSON: {e}"))?;
    let items = match value {
        serde_json::Value::Array(items) => items,
        item => vec![item],
    };
    items
        .into_iter()
        .map(|item| {
            let metadata: MetadataV3 = serde_json::from_value(item.clone())
                .map_err(|e| format!("--compressor {item}: not codec metadata: {e}"))?;
            match Codec::from_metadata(&metadata) {
                Ok(Codec::BytesToBytes(codec)) => Ok(codec),
                Ok(_) => Err(format!(
                    "--compressor {item}: {} is not a compressor (a bytes-to-bytes codec)",
                    metadata.name()
                )),
                Err(e) => Err(format!("--compressor {item}: {e}")),
            }
        })
        .collect()
}

/// A shape written as `512x512` (or `512,512`).
fn shape(option: &str, text: &str) -> Result<Vec<NonZeroU64>, String> {
    text.split(['x', ','])
        .map(|n| {
            n.trim().parse::<NonZeroU64>().map_err(|_| {
                format!("--{option} {text}: give positive whole numbers, such as 512x512")
            })
        })
        .collect()
}

/// The chunking the arguments ask for.
fn chunking(args: &Args) -> Result<Chunking, String> {
    Ok(match (&args.chunks, &args.shards) {
        (None, _) => Chunking::Source,
        (Some(chunks), None) => Chunking::Chunks(shape("chunks", chunks)?),
        (Some(chunks), Some(shards)) => Chunking::Shards {
            chunks: shape("chunks", chunks)?,
            shards: shape("shards", shards)?,
        },
    })
}

/// Whether `target` (which does not exist yet) would lie inside `source` (which does).
fn inside(target: &Path, source: &Path) -> bool {
    let Ok(source) = source.canonicalize() else {
        return false;
    };
    // The nearest existing folder above the target, resolved, with the rest of the target.
    let mut existing = target;
    let mut rest = Vec::new();
    while !existing.exists() {
        let (Some(parent), Some(name)) = (existing.parent(), existing.file_name()) else {
            break;
        };
        rest.push(name);
        existing = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
    }
    existing
        .canonicalize()
        .map(|resolved| {
            rest.iter()
                .rev()
                .fold(resolved, |path, name| path.join(name))
        })
        .is_ok_and(|resolved| resolved.starts_with(&source))
}

/// The bytes of every file under `path`.
fn size(path: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(path) else {
        return std::fs::metadata(path).map_or(0, |m| m.len());
    };
    entries
        .filter_map(Result::ok)
        .map(|entry| {
            let path = entry.path();
            if path.is_dir() {
                size(&path)
            } else {
                entry.metadata().map_or(0, |m| m.len())
            }
        })
        .sum()
}

/// Erases what a failed quantisation wrote into the target folder it made: the array's chunks and
/// metadata (the keys zarrs wrote), then the folders they leave empty. Anything else stays.
fn erase_written(store: &Arc<FilesystemStore>, target: &Path) {
    if let Ok(array) = Array::open(store.clone(), "/") {
        let chunks = ArraySubset::new_with_shape(array.chunk_grid_shape().to_vec());
        let _ = array.erase_chunks(&chunks);
        let _ = array.erase_metadata();
    }
    remove_empty_folders(target);
}

/// Removes `path` and the folders under it that are empty once their empty folders are gone
/// (`remove_dir` removes only empty folders).
fn remove_empty_folders(path: &Path) {
    if let Ok(entries) = std::fs::read_dir(path) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                remove_empty_folders(&entry.path());
            }
        }
    }
    let _ = std::fs::remove_dir(path);
}

/// Quantises the source into the target and prints what it did.
pub(crate) fn run(args: &Args) -> Result<(), String> {
    let precision = match (args.max_error, args.digits) {
        (Some(error), _) => Precision::MaxError(error),
        (None, Some(digits)) => Precision::SignificantDigits(digits),
        (None, None) => return Err("give --max-error or --digits".into()),
    };
    // Every argument is checked before the source is read.
    precision.check().map_err(|e| e.to_string())?;
    let compressors = compressors(&args.compressor)?;
    let chunking = chunking(args)?;
    let (source_path, target_path) = (args.source.display(), args.target.display());
    crate::existing(&args.source)?;
    if args.target.exists() {
        return Err(format!("{target_path} exists; give a new folder"));
    }
    if inside(&args.target, &args.source) {
        return Err(format!(
            "{target_path} lies inside {source_path}; give a folder outside the source"
        ));
    }
    let source_store = Arc::new(FilesystemStore::new(&args.source).map_err(|e| e.to_string())?);
    let source = Array::open(source_store, "/").map_err(|e| format!("{source_path}: {e}"))?;
    println!(
        "source {source_path}: {} {:?}, {}",
        source.data_type().name_v3().unwrap_or_default(),
        source.shape(),
        source_layout(&source)
    );
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{msg:>9} {bar:40} {pos}/{len} chunks ({eta})")
            .map_err(|e| e.to_string())?,
    );
    let progress = |stage: Stage, done: u64, all: u64| {
        bar.set_length(all);
        bar.set_message(match stage {
            Stage::Scan => "scanning",
            Stage::Write => "writing",
        });
        bar.set_position(done);
    };
    let mut options = QuantizeOptions::new(precision)
        .with_constant_allowed(args.allow_constant)
        .with_chunking(chunking)
        .with_progress(&progress);
    if let Some(compressors) = compressors {
        options = options.with_compressors(compressors);
    }
    let prepared = prepare_quantization(&source, &options);
    bar.finish_and_clear();
    let prepared = prepared.map_err(|e| e.to_string())?;
    print_plan(&prepared);
    if args.dry_run {
        println!("dry run: nothing written");
        return Ok(());
    }
    std::fs::create_dir_all(&args.target).map_err(|e| format!("{target_path}: {e}"))?;
    let target_store = Arc::new(FilesystemStore::new(&args.target).map_err(|e| e.to_string())?);
    bar.reset();
    let result = prepared.write(target_store.clone(), "/");
    bar.finish_and_clear();
    let (_, report) = result.map_err(|e| {
        erase_written(&target_store, &args.target);
        e.to_string()
    })?;
    print_report(&report, &args.target, size(&args.source));
    Ok(())
}

/// The source's chunks, and the inner chunks of its shards where it is sharded.
fn source_layout(source: &Array<FilesystemStore>) -> String {
    let grid = source
        .chunk_grid()
        .chunk_shape_u64(&vec![0; source.dimensionality()])
        .ok()
        .flatten()
        .map_or_else(|| "irregular".to_string(), |shape| format!("{shape:?}"));
    let metadata = serde_json::to_value(source.metadata()).unwrap_or_default();
    let codecs = &metadata["codecs"];
    let sharding = codecs
        .as_array()
        .into_iter()
        .flatten()
        .find(|codec| codec["name"] == "sharding_indexed");
    match sharding {
        Some(sharding) => {
            let inner: Vec<u64> =
                serde_json::from_value(sharding["configuration"]["chunk_shape"].clone())
                    .unwrap_or_default();
            format!("shards {grid} of inner chunks {inner:?}")
        }
        None => format!("chunks {grid}"),
    }
}

/// The plan, its guarantee and the layout, before anything is written.
fn print_plan<T: ?Sized>(prepared: &Quantization<'_, '_, T>) {
    let plan = prepared.plan();
    let reserved: Vec<String> = [
        ("NaN", plan.nan()),
        ("Infinity", plan.positive_infinity()),
        ("-Infinity", plan.negative_infinity()),
    ]
    .iter()
    .filter_map(|(name, code)| code.map(|c| format!("{name} as {c}")))
    .collect();
    let (lo, hi) = plan.codes();
    println!(
        "plan: {} as {}, offset {}, scale {}, codes {lo}..={hi}{}; guaranteed largest error {:e}",
        plan.data_type().name_v3().unwrap_or_default(),
        plan.storage().name_v3().unwrap_or_default(),
        plan.offset(),
        plan.scale(),
        if reserved.is_empty() {
            String::new()
        } else {
            format!(", {}", reserved.join(", "))
        },
        plan.max_error()
    );
    let layout = prepared.layout();
    let chunks = match layout.inner_chunk_shape() {
        Some(inner) => format!(
            "shards {:?} of inner chunks {inner:?}",
            layout.chunk_shape()
        ),
        None => format!("chunks {:?}", layout.chunk_shape()),
    };
    let compressors: Vec<String> = layout
        .compressors()
        .iter()
        .map(|m| serde_json::to_string(m).unwrap_or_default())
        .collect();
    println!("layout: {chunks}, compressors [{}]", compressors.join(", "));
}

/// What was written and verified, and the sizes.
fn print_report(report: &QuantizeReport, target: &Path, before: u64) {
    println!(
        "wrote {}: {} chunks; verified {} elements: largest error {:e} (guaranteed {:e})",
        target.display(),
        report.chunks(),
        report.elements(),
        report.max_error(),
        report.plan().max_error()
    );
    let after = size(target);
    #[expect(clippy::cast_precision_loss, reason = "a ratio")]
    let ratio = before as f64 / after.max(1) as f64;
    if ratio >= 1.0 {
        println!("size: {before} bytes -> {after} bytes ({ratio:.2}x smaller)");
    } else {
        println!(
            "size: {before} bytes -> {after} bytes ({:.2}x larger)",
            1.0 / ratio
        );
    }
}
