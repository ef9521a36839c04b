//! `zarrs-scale-offset`: quantise float arrays, migrate `numcodecs.fixedscaleoffset` and inspect
//! `scale_offset`/`cast_value` chains of Zarr arrays on a filesystem.

mod inspect;
mod migrate;
mod quantize;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Quantise float arrays, migrate numcodecs.fixedscaleoffset and inspect scale_offset/cast_value
/// chains of Zarr arrays on a filesystem.
#[derive(Parser)]
#[command(name = "zarrs-scale-offset", version)]
#[expect(
    clippy::doc_markdown,
    reason = "the comments are the command's --help text"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
#[expect(
    clippy::doc_markdown,
    reason = "the comments are the command's --help text"
)]
enum Command {
    /// Show the codec chain of a Zarr V3 array (or of each array of a group) step by step, what
    /// validate_array says, and statistics of the decoded values.
    Inspect(inspect::Args),
    /// Rewrite a float array (Zarr V3 or V2) as a new Zarr V3 array stored as integers by
    /// scale_offset and cast_value, at the precision asked for, and verify every element.
    Quantize(quantize::Args),
    /// Replace numcodecs.fixedscaleoffset (Zarr V3) or the fixedscaleoffset filter (Zarr V2) by
    /// scale_offset and cast_value, rewriting only the metadata once every stored chunk is proven
    /// to decode bit for bit as numcodecs decodes it.
    Migrate(migrate::Args),
}

/// Checks that `path`, given on the command line, exists: every command says so in the same words.
///
/// # Errors
/// Returns `PATH does not exist` where it does not.
pub(crate) fn existing(path: &std::path::Path) -> Result<(), String> {
    if path.exists() {
        Ok(())
    } else {
        Err(format!("{} does not exist", path.display()))
    }
}

fn main() -> ExitCode {
    zarrs_scale_offset_cast::register();
    let cli = Cli::parse();
    let (name, result) = match &cli.command {
        Command::Inspect(args) => ("inspect", inspect::run(args)),
        Command::Quantize(args) => ("quantize", quantize::run(args)),
        Command::Migrate(args) => ("migrate", migrate::run(args)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("zarrs-scale-offset {name}: {error}");
            ExitCode::FAILURE
        }
    }
}
