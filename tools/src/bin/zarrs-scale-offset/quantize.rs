//! `zarrs-scale-offset quantize SOURCE TARGET (--max-error E | --digits N) [--compressor C]`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressStyle};
use zarrs::array::codec::api::BytesToBytesCodecTraits;
use zarrs::array::codec::{GzipCodec, ZstdCodec};
use zarrs::array::{Array, ArraySubset};
use zarrs::filesystem::FilesystemStore;
use zarrs_scale_offset_cast_tools::quantize::{
    Precision, QuantizeOptions, QuantizeReport, Stage, quantize_array,
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
    /// The compressor after the bytes codec: none, `gzip[:LEVEL]` or `zstd[:LEVEL]`.
    #[arg(long, default_value = "zstd")]
    compressor: String,
}

fn compressor(spec: &str) -> Result<Vec<Arc<dyn BytesToBytesCodecTraits>>, String> {
    let (name, level) = spec
        .split_once(':')
        .map_or((spec, None), |(n, l)| (n, Some(l)));
    let level = |default: i32| -> Result<i32, String> {
        level.map_or(Ok(default), |l| {
            l.parse()
                .map_err(|_| format!("compressor level {l:?} is not a number"))
        })
    };
    Ok(match name {
        "none" => vec![],
        "gzip" => {
            let level = u32::try_from(level(5)?).map_err(|e| e.to_string())?;
            vec![Arc::new(GzipCodec::new(level).map_err(|e| e.to_string())?)]
        }
        "zstd" => vec![Arc::new(ZstdCodec::new(level(3)?, false))],
        other => return Err(format!("unknown compressor {other:?} (none, gzip, zstd)")),
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
    let compressors = compressor(&args.compressor)?;
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
    std::fs::create_dir_all(&args.target).map_err(|e| format!("{target_path}: {e}"))?;
    let target_store = Arc::new(FilesystemStore::new(&args.target).map_err(|e| e.to_string())?);
    println!(
        "source {source_path}: {} {:?}, chunks {}",
        source.data_type().name_v3().unwrap_or_default(),
        source.shape(),
        source
            .chunk_grid()
            .chunk_shape_u64(&vec![0; source.dimensionality()])
            .ok()
            .flatten()
            .map_or_else(|| "irregular".to_string(), |shape| format!("{shape:?}"))
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
    let options = QuantizeOptions::new(precision)
        .with_constant_allowed(args.allow_constant)
        .with_compressors(compressors)
        .with_progress(&progress);
    let result = quantize_array(&source, target_store.clone(), "/", &options);
    bar.finish_and_clear();
    let (array, report) = result.map_err(|e| {
        erase_written(&target_store, &args.target);
        e.to_string()
    })?;
    print(&report);
    let metadata = serde_json::to_value(array.metadata()).map_err(|e| e.to_string())?;
    println!("codecs: {}", metadata["codecs"]);
    println!(
        "wrote {target_path}: {} chunks ({} compression)",
        report.chunks(),
        args.compressor
    );
    println!(
        "verified {} elements: largest error {:e} (guaranteed {:e})",
        report.elements(),
        report.max_error(),
        report.plan().max_error()
    );
    let (before, after) = (size(&args.source), size(&args.target));
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
    Ok(())
}

fn print(report: &QuantizeReport) {
    let plan = report.plan();
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
}
