//! The README's usage example is `examples/readme.rs` (which `cargo test` builds) word for word.

#[test]
fn the_readme_quotes_the_usage_example_whole() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let example = std::fs::read_to_string(root.join("examples/readme.rs")).unwrap();
    let code = &example[example.find("use std::sync::Arc;").unwrap()..];
    assert!(
        readme.contains(&format!("```rust\n{code}```")),
        "README.md must quote examples/readme.rs from its first `use` to its end"
    );
    assert!(code.lines().count() > 20, "the example's code");
}
