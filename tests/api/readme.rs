//! The README's usage example is `examples/readme.rs` (which `cargo test` builds and whose test
//! compares its layout with zarr-python's) word for word, but for that test.

#[test]
fn the_readme_quotes_the_usage_example_whole() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let example = std::fs::read_to_string(root.join("examples/readme.rs")).unwrap();
    let start = example.find("use std::error::Error;").unwrap();
    let end = example.find("#[cfg(test)]").unwrap();
    let code = example[start..end].trim_end();
    assert!(
        readme.contains(&format!("```rust\n{code}\n```")),
        "README.md must quote examples/readme.rs from its first `use` to its test module"
    );
    assert!(code.lines().count() > 20, "the example's code");
}
