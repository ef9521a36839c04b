//! `quantize SOURCE TARGET (--max-error E | --digits N) [--compressor none|gzip[:L]|zstd[:L]]`:
//! rewrites the float array at SOURCE (any Zarr V3 or V2 array on a filesystem) into a new Zarr V3
//! array at TARGET stored as integers by `scale_offset` and `cast_value`, chosen by the
//! quantisation planner; then verifies every element and prints the error and the sizes.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressStyle};
use zarrs::array::Array;
use zarrs::array::codec::api::BytesToBytesCodecTraits;
use zarrs::array::codec::{GzipCodec, ZstdCodec};
use zarrs::filesystem::FilesystemStore;
use zarrs_scale_offset_cast::quantize::{Precision, Stage, quantize_array};

const USAGE: &str = "usage: quantize SOURCE TARGET (--max-error E | --digits N) [--compressor none|gzip[:LEVEL]|zstd[:LEVEL]]";

struct Arguments {
    source: String,
    target: String,
    precision: Precision,
    compressors: Vec<Arc<dyn BytesToBytesCodecTraits>>,
    compressor_name: String,
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

fn arguments() -> Result<Arguments, String> {
    let mut positional = Vec::new();
    let mut precision = None;
    let mut compressor_name = "zstd".to_string();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--max-error" => {
                let v = value("--max-error")?;
                let e = v
                    .parse()
                    .map_err(|_| format!("--max-error {v:?} is not a number"))?;
                precision = Some(Precision::MaxError(e));
            }
            "--digits" => {
                let v = value("--digits")?;
                let d = v
                    .parse()
                    .map_err(|_| format!("--digits {v:?} is not a whole number"))?;
                precision = Some(Precision::SignificantDigits(d));
            }
            "--compressor" => compressor_name = value("--compressor")?,
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            _ => positional.push(arg),
        }
    }
    let [source, target] = <[String; 2]>::try_from(positional).map_err(|_| USAGE.to_string())?;
    Ok(Arguments {
        source,
        target,
        precision: precision.ok_or("give --max-error or --digits")?,
        compressors: compressor(&compressor_name)?,
        compressor_name,
    })
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

fn run(args: &Arguments) -> Result<(), String> {
    if Path::new(&args.target).exists() {
        return Err(format!("{} exists; give a new folder", args.target));
    }
    let source_store = Arc::new(FilesystemStore::new(&args.source).map_err(|e| e.to_string())?);
    let source = Array::open(source_store, "/").map_err(|e| format!("{}: {e}", args.source))?;
    std::fs::create_dir_all(&args.target).map_err(|e| format!("{}: {e}", args.target))?;
    let target_store = Arc::new(FilesystemStore::new(&args.target).map_err(|e| e.to_string())?);
    println!(
        "source {}: {} {:?}, chunks {}",
        args.source,
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
    let result = quantize_array(
        &source,
        target_store,
        "/",
        args.precision,
        args.compressors.clone(),
        &progress,
    );
    bar.finish_and_clear();
    let (array, report) = result.map_err(|e| {
        let _ = std::fs::remove_dir_all(&args.target);
        e.to_string()
    })?;
    let plan = &report.plan;
    let reserved: Vec<String> = [
        ("NaN", plan.nan),
        ("Infinity", plan.positive_infinity),
        ("-Infinity", plan.negative_infinity),
    ]
    .iter()
    .filter_map(|(name, code)| code.map(|c| format!("{name} as {c}")))
    .collect();
    println!(
        "plan: {} as {}, offset {}, scale {}, codes {}..={}{}; guaranteed largest error {:e}",
        plan.data_type.name_v3().unwrap_or_default(),
        plan.storage.name_v3().unwrap_or_default(),
        plan.offset,
        plan.scale,
        plan.codes.0,
        plan.codes.1,
        if reserved.is_empty() {
            String::new()
        } else {
            format!(", {}", reserved.join(", "))
        },
        plan.max_error
    );
    let metadata = serde_json::to_value(array.metadata()).map_err(|e| e.to_string())?;
    println!("codecs: {}", metadata["codecs"]);
    println!(
        "wrote {}: {} chunks ({} compression)",
        args.target, report.chunks, args.compressor_name
    );
    println!(
        "verified {} elements: largest error {:e} (guaranteed {:e})",
        report.elements, report.max_error, plan.max_error
    );
    let (before, after) = (size(Path::new(&args.source)), size(Path::new(&args.target)));
    #[expect(clippy::cast_precision_loss, reason = "a ratio")]
    let ratio = before as f64 / after.max(1) as f64;
    println!("size: {before} bytes -> {after} bytes ({ratio:.2}x smaller)");
    Ok(())
}

fn main() -> ExitCode {
    zarrs_scale_offset_cast::register();
    let args = match arguments() {
        Ok(args) => args,
        Err(error) => {
            eprintln!("quantize: {error}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("quantize: {error}");
            ExitCode::FAILURE
        }
    }
}
