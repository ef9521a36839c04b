//! `zarrs-scale-offset migrate PATH [--dry-run]`.

use std::path::PathBuf;
use std::sync::Arc;

use zarrs::filesystem::FilesystemStore;
use zarrs_scale_offset_cast_tools::migrate::{
    MigrateOptions, MigrationReport, ZarrsBuiltin, migrate_array,
};

/// The arguments of `migrate`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// A Zarr V2 or V3 array (folder) stored with the legacy codec.
    path: PathBuf,
    /// Check and report without changing anything.
    #[arg(long)]
    dry_run: bool,
}

/// Migrates the array and prints what it did.
pub(crate) fn run(args: &Args) -> Result<(), String> {
    crate::existing(&args.path)?;
    let path = args.path.display();
    let store = Arc::new(FilesystemStore::new(&args.path).map_err(|e| format!("{path}: {e}"))?);
    let options = MigrateOptions::default().with_dry_run(args.dry_run);
    let report = migrate_array(store, "/", &options).map_err(|e| format!("{path}: {e}"))?;
    print(&path.to_string(), &report);
    Ok(())
}

fn print(path: &str, report: &MigrationReport) {
    println!(
        "{path}: Zarr V{} array with {}",
        report.zarr_format(),
        report.legacy()
    );
    let (did, will) = if report.applied() {
        ("replaced it", "changed")
    } else {
        ("would replace it (dry run)", "would change")
    };
    println!("  {did} with:");
    for codec in report.codecs() {
        println!("    {codec}");
    }
    println!(
        "  checked {} stored chunks, {} elements: all decode bit for bit as numcodecs decodes them; only the metadata {will}",
        report.chunks(),
        report.elements()
    );
    if report.zarr_format() == 2 {
        println!(
            "  the Zarr V2 metadata (.zarray, .zattrs) becomes zarr.json; the chunks keep their keys"
        );
    }
    match report.zarrs_builtin() {
        ZarrsBuiltin::Reads { elements: 0, .. } => {
            println!("  zarrs' own numcodecs.fixedscaleoffset reads them the same");
        }
        ZarrsBuiltin::Reads { elements, largest } => println!(
            "  zarrs' own numcodecs.fixedscaleoffset (float32 offset and scale) reads {elements} of these elements differently (by up to {largest:e}); the new chain reads them as numcodecs does"
        ),
        ZarrsBuiltin::CannotRead { reason } => {
            println!("  zarrs' own numcodecs.fixedscaleoffset cannot read this array: {reason}");
        }
        other => println!("  zarrs' own numcodecs.fixedscaleoffset: {other:?}"),
    }
    for note in report.notes() {
        println!("  note: {note}");
    }
}
