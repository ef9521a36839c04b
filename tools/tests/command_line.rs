//! The `zarrs-scale-offset` command explains what it refuses: a path that does not exist in the
//! same words for every command, a precision, a shape or a compressor it cannot use in the words
//! to type (before it reads the source), and a target inside its own source; nothing is written
//! when it refuses. `quantize` prints its plan before it writes, and only the plan with
//! `--dry-run`.

use std::path::Path;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zarrs-scale-offset"))
        .args(args)
        .output()
        .expect("the command runs")
}

/// The command's error message, which it must have printed on failure.
fn refusal(args: &[&str]) -> String {
    let output = run(args);
    assert!(!output.status.success(), "{args:?} succeeded");
    String::from_utf8(output.stderr).unwrap()
}

/// A copy of a zarr-python array to quantise.
fn source(dir: &Path) -> String {
    copy_of(dir, "v3-f64-plain")
}

/// A copy of the zarr-python array `name` of `tests/data/legacy/arrays`.
fn copy_of(dir: &Path, name: &str) -> String {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/legacy/arrays")
        .join(name);
    let to = dir.join(format!("{name}.zarr"));
    std::fs::create_dir_all(&to).unwrap();
    for entry in walk(&from) {
        let relative = entry.strip_prefix(&from).unwrap();
        let target = to.join(relative);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &target).unwrap();
    }
    to.to_str().unwrap().to_string()
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn a_path_that_does_not_exist_is_named_so_by_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.zarr");
    let missing = missing.to_str().unwrap();
    let target = dir.path().join("target.zarr");
    for args in [
        vec!["inspect", missing],
        vec!["migrate", missing],
        vec![
            "quantize",
            missing,
            target.to_str().unwrap(),
            "--max-error",
            "1e-4",
        ],
    ] {
        let error = refusal(&args);
        assert!(
            error.contains(&format!("{missing} does not exist")),
            "{args:?}: {error}"
        );
    }
    assert!(!target.exists(), "a refused quantize wrote its target");
}

#[test]
fn precisions_that_cannot_be_used_say_what_to_type() {
    let dir = tempfile::tempdir().unwrap();
    let source = source(dir.path());
    for value in ["0", "-1", "inf"] {
        let target = dir.path().join(format!("q{value}"));
        let args = [
            "quantize",
            &source,
            target.to_str().unwrap(),
            "--max-error",
            value,
        ];
        let error = refusal(&args);
        assert!(
            error.contains(&format!("--max-error {value}"))
                && error.contains("such as --max-error 1e-4")
                && !error.contains("MaxError("),
            "{value}: {error}"
        );
        assert!(
            !target.exists(),
            "{value}: a refused quantize left its target"
        );
    }
}

#[test]
fn a_target_inside_its_source_or_that_exists_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let source = source(dir.path());
    for target in [format!("{source}/sub"), format!("{source}/a/b")] {
        let error = refusal(&["quantize", &source, &target, "--max-error", "1e-4"]);
        assert!(
            error.contains("lies inside") && error.contains("give a folder outside the source"),
            "{error}"
        );
        assert!(!Path::new(&target).exists());
    }
    // An existing target is refused and left as it is.
    let existing = dir.path().join("existing");
    std::fs::create_dir(&existing).unwrap();
    std::fs::write(existing.join("notes.txt"), "keep me").unwrap();
    let error = refusal(&[
        "quantize",
        &source,
        existing.to_str().unwrap(),
        "--max-error",
        "1e-4",
    ]);
    assert!(error.contains("exists; give a new folder"), "{error}");
    assert_eq!(
        std::fs::read_to_string(existing.join("notes.txt")).unwrap(),
        "keep me"
    );
    // Beside it is fine.
    let beside = dir.path().join("beside.zarr");
    let output = run(&[
        "quantize",
        &source,
        beside.to_str().unwrap(),
        "--max-error",
        "1e-4",
    ]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn a_plan_reading_every_value_back_as_one_constant_needs_asking_for() {
    let dir = tempfile::tempdir().unwrap();
    let source = source(dir.path());
    let target = dir.path().join("constant.zarr");
    let args = [
        "quantize",
        &source,
        target.to_str().unwrap(),
        "--max-error",
        "1e9",
    ];
    let error = refusal(&args);
    assert!(
        error.contains("read back as one constant") && error.contains("--allow-constant"),
        "{error}"
    );
    assert!(!target.exists(), "a refused quantize left its target");
    let output = run(&[&args[..], &["--allow-constant"]].concat());
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(target.join("zarr.json").is_file());
}

#[test]
fn inspect_takes_the_zarr_v2_arrays_that_migrate_and_quantize_take() {
    let v2 = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/legacy/arrays/v2-f8-u2");
    let output = run(&["inspect", v2.to_str().unwrap()]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let shown = String::from_utf8(output.stdout).unwrap();
    assert!(
        shown.contains("numcodecs.fixedscaleoffset") && shown.contains("=>  uint16"),
        "{shown}"
    );
    let dir = tempfile::tempdir().unwrap();
    let error = refusal(&["inspect", dir.path().to_str().unwrap()]);
    assert!(error.contains("is not a Zarr array or group"), "{error}");
}

#[test]
fn arguments_are_checked_before_the_source_is_read() {
    let dir = tempfile::tempdir().unwrap();
    // A folder that is not an array: each refusal names the argument, not the source.
    let source = dir.path().join("not-an-array");
    std::fs::create_dir(&source).unwrap();
    let (source, target) = (source.to_str().unwrap(), dir.path().join("t.zarr"));
    let target = target.to_str().unwrap();
    for (extra, said) in [
        (vec!["--max-error", "0"], "--max-error 0"),
        (vec!["--digits", "0"], "--digits 0"),
        (
            vec!["--max-error", "1e-4", "--chunks", "16x0"],
            "--chunks 16x0: give positive whole numbers",
        ),
        (
            vec!["--max-error", "1e-4", "--compressor", "lzma"],
            "there is no compressor \"lzma\"",
        ),
        (
            vec!["--max-error", "1e-4", "--compressor", "zstd:high"],
            "\"high\" is not a whole number",
        ),
        (
            vec![
                "--max-error",
                "1e-4",
                "--compressor",
                r#"{"name": "bytes"}"#,
            ],
            "not a compressor",
        ),
    ] {
        let error = refusal(&[&["quantize", source, target][..], &extra].concat());
        assert!(error.contains(said), "{extra:?}: {error}");
        assert!(
            !error.contains("not-an-array"),
            "{extra:?} read the source: {error}"
        );
    }
    assert!(!Path::new(target).exists());
}

#[test]
fn quantize_prints_its_plan_before_writing_and_only_the_plan_on_a_dry_run() {
    let dir = tempfile::tempdir().unwrap();
    let source = copy_of(dir.path(), "v3-f64-sharded-blosc");
    let target = dir.path().join("q.zarr");
    let args = [
        "quantize",
        &source,
        target.to_str().unwrap(),
        "--max-error",
        "1e-4",
    ];
    let output = run(&[&args[..], &["--dry-run"]].concat());
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let shown = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = shown.lines().collect();
    assert!(
        lines[0].starts_with("source ")
            && lines[0].contains("shards [30, 50] of inner chunks [10, 25]"),
        "{shown}"
    );
    assert!(
        lines[1].starts_with("plan: float64 as uint16, offset")
            && lines[1].contains("guaranteed largest error 5"),
        "{shown}"
    );
    assert!(
        lines[2].starts_with(
            "layout: shards [30, 50] of inner chunks [10, 25], compressors [{\"name\":\"blosc\""
        ),
        "{shown}"
    );
    assert!(lines[2].contains("\"typesize\":2"), "{shown}");
    assert_eq!(lines[3], "dry run: nothing written");
    assert!(!target.exists(), "a dry run wrote its target");
    let output = run(&args);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let written = String::from_utf8(output.stdout).unwrap();
    let written: Vec<&str> = written.lines().collect();
    assert_eq!(
        written[..3],
        lines[..3],
        "the same plan, printed before writing"
    );
    assert!(
        written[3].starts_with(&format!(
            "wrote {}: 2 chunks; verified 3000 elements",
            target.display()
        )),
        "{written:?}"
    );
    assert!(target.join("zarr.json").is_file());
}
