//! `migrate PATH [--dry-run]`: replaces the legacy `numcodecs.fixedscaleoffset` codec (Zarr V3) or
//! `fixedscaleoffset` filter (Zarr V2) of the array at PATH (a filesystem folder) by
//! `scale_offset` and `cast_value`, after proving that every stored chunk decodes to the same
//! values; with `--dry-run`, reports what it would change and changes nothing.

use std::process::ExitCode;
use std::sync::Arc;

use zarrs::filesystem::FilesystemStore;
use zarrs_scale_offset_cast::migrate::{MigrationReport, migrate_array};

fn print(path: &str, report: &MigrationReport) {
    println!(
        "{path}: Zarr V{} array with {}",
        report.zarr_format, report.legacy
    );
    println!(
        "  {} with:",
        if report.applied {
            "replaced it"
        } else {
            "would replace it (dry run)"
        }
    );
    for codec in &report.codecs {
        println!("    {codec}");
    }
    println!(
        "  checked {} stored chunks, {} elements: all decode bit for bit as numcodecs decodes them; only the metadata {}",
        report.chunks,
        report.elements,
        if report.applied {
            "changed"
        } else {
            "would change"
        }
    );
    if report.zarr_format == 2 {
        println!(
            "  the Zarr V2 metadata (.zarray, .zattrs) becomes zarr.json; the chunks keep their keys"
        );
    }
    match &report.zarrs_builtin_differences {
        Ok((0, _)) => println!("  zarrs' own numcodecs.fixedscaleoffset reads them the same"),
        Ok((count, largest)) => println!(
            "  zarrs' own numcodecs.fixedscaleoffset (float32 offset and scale) reads {count} of these elements differently (by up to {largest:e}); the new chain reads them as numcodecs does"
        ),
        Err(error) => {
            println!("  zarrs' own numcodecs.fixedscaleoffset cannot read this array: {error}");
        }
    }
    for note in &report.notes {
        println!("  note: {note}");
    }
}

fn main() -> ExitCode {
    zarrs_scale_offset_cast::register();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dry_run = args.iter().any(|a| a == "--dry-run");
    let paths: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let ([path], true) = (
        &paths[..],
        args.iter()
            .all(|a| !a.starts_with("--") || a == "--dry-run"),
    ) else {
        eprintln!("usage: migrate PATH [--dry-run]   (PATH: a Zarr V2 or V3 array folder)");
        return ExitCode::from(2);
    };
    let store = match FilesystemStore::new(path.as_str()) {
        Ok(store) => Arc::new(store),
        Err(error) => {
            eprintln!("migrate: {path}: {error}");
            return ExitCode::FAILURE;
        }
    };
    match migrate_array(store, "/", dry_run) {
        Ok(report) => {
            print(path, &report);
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("{path}: {error}");
            ExitCode::FAILURE
        }
    }
}
