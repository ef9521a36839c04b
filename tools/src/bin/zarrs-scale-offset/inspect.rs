//! `zarrs-scale-offset inspect PATH`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use indicatif::{ProgressBar, ProgressStyle};
use zarrs::array::Array;
use zarrs::filesystem::FilesystemStore;
use zarrs_scale_offset_cast_tools::inspect::{Report, inspect_array};

/// Arrays with more chunks than this show a progress bar while their values are read.
const PROGRESS_MIN_CHUNKS: u64 = 8;

/// The node type of the `zarr.json` in `folder`, if there is one, or of its Zarr V2 metadata
/// (`.zarray`, `.zgroup`).
fn node_type(folder: &Path) -> Result<Option<String>, String> {
    let path = folder.join("zarr.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(if folder.join(".zarray").is_file() {
            Some("array".to_string())
        } else if folder.join(".zgroup").is_file() {
            Some("group".to_string())
        } else {
            None
        });
    };
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(json["node_type"].as_str().map(str::to_string))
}

/// The arrays under `root` (itself, if it is one), as folders relative to it.
fn arrays(root: &Path) -> Result<Vec<PathBuf>, String> {
    match node_type(root)?.as_deref() {
        Some("array") => Ok(vec![PathBuf::new()]),
        Some("group") => {
            let mut found = Vec::new();
            let mut folders = vec![PathBuf::new()];
            while let Some(folder) = folders.pop() {
                let mut entries: Vec<_> = std::fs::read_dir(root.join(&folder))
                    .map_err(|e| format!("{}: {e}", root.join(&folder).display()))?
                    .filter_map(Result::ok)
                    .filter(|entry| entry.path().is_dir())
                    .map(|entry| folder.join(entry.file_name()))
                    .collect();
                entries.sort();
                for child in entries.into_iter().rev() {
                    match node_type(&root.join(&child))?.as_deref() {
                        Some("array") => found.push(child),
                        Some("group") => folders.push(child),
                        _ => {}
                    }
                }
            }
            found.sort();
            Ok(found)
        }
        Some(other) => Err(format!("{}: unknown node_type {other:?}", root.display())),
        None => Err(format!(
            "{} is not a Zarr array or group (it has no zarr.json, .zarray or .zgroup)",
            root.display()
        )),
    }
}

fn print(path: &Path, array: &Array<FilesystemStore>, report: &Report) {
    println!(
        "{}  shape {:?}  {} (fill {})",
        if path.as_os_str().is_empty() {
            Path::new("/")
        } else {
            path
        }
        .display(),
        array.shape(),
        report.data_type(),
        report.fill_value()
    );
    for step in report.steps() {
        // The inner chain of a sharding codec, indented below it.
        let indent = "    ".repeat(step.depth());
        match (step.data_type(), step.fill_value()) {
            (Some(data_type), Some(fill)) => {
                println!(
                    "  {indent}-> {}  =>  {data_type} (fill {fill})",
                    step.codec()
                );
            }
            _ => println!("  {indent}-> {}", step.codec()),
        }
    }
    match report.validation() {
        Ok(()) => println!("  validate_array: ok"),
        Err(error) => println!("  validate_array: {error}"),
    }
    if let Some(s) = report.statistics() {
        let show = |v: Option<f64>| v.map_or_else(|| "-".to_string(), |v| format!("{v}"));
        println!(
            "  decoded: {} elements, min {}, max {}, NaN {}, largest quantisation step {}",
            s.elements(),
            show(s.min()),
            show(s.max()),
            s.nan(),
            show(s.largest_step())
        );
    }
}

/// The arguments of `inspect`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// A Zarr array or group: a folder holding zarr.json (V3) or .zarray or .zgroup (V2).
    path: PathBuf,
}

/// Inspects every array at the path.
pub(crate) fn run(args: &Args) -> Result<(), String> {
    crate::existing(&args.path)?;
    let root = args.path.as_path();
    let arrays = arrays(root)?;
    let store = Arc::new(FilesystemStore::new(root).map_err(|e| e.to_string())?);
    for path in arrays {
        let node = format!("/{}", path.to_string_lossy());
        let array = Array::open(store.clone(), &node).map_err(|e| format!("{node}: {e}"))?;
        let chunks: u64 = array.chunk_grid_shape().iter().product();
        let bar = if chunks > PROGRESS_MIN_CHUNKS {
            let bar = ProgressBar::new(chunks);
            bar.set_style(
                ProgressStyle::with_template("  reading {bar:40} {pos}/{len} chunks ({eta})")
                    .map_err(|e| e.to_string())?,
            );
            Some(bar)
        } else {
            None
        };
        let report = inspect_array(&array, &mut |done, _| {
            if let Some(bar) = &bar {
                bar.set_position(done);
            }
        })
        .map_err(|e| format!("{node}: {e}"))?;
        if let Some(bar) = bar {
            bar.finish_and_clear();
        }
        print(&path, &array, &report);
    }
    Ok(())
}
