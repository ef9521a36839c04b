//! The README's usage example is `examples/readme.rs` (which `cargo test` builds and whose test
//! compares its layout with zarr-python's) word for word: its imports and `reflectance_layout`,
//! and its `main`.

#[test]
fn the_readme_quotes_the_usage_example_word_for_word() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let example = std::fs::read_to_string(root.join("examples/readme.rs")).unwrap();
    let blocks: Vec<&str> = readme
        .split("```rust\n")
        .skip(1)
        .map(|block| block.split("\n```").next().unwrap())
        .collect();
    assert_eq!(blocks.len(), 2, "the README's two Rust blocks");
    for block in &blocks {
        assert!(
            example.contains(block),
            "README.md quotes examples/readme.rs word for word:\n{block}"
        );
    }
    assert!(
        blocks[0].starts_with("use std::error::Error;"),
        "the imports first"
    );
    assert!(blocks[0].contains("fn reflectance_layout("), "the layout");
    assert!(
        blocks[1].starts_with("fn main()") && blocks[1].ends_with("\n}"),
        "main, whole"
    );
    let main = &example[example.find("fn main()").unwrap()..];
    assert!(
        main.starts_with(blocks[1])
            && main[blocks[1].len()..]
                .trim_start()
                .starts_with("#[cfg(test)]"),
        "main, whole"
    );
}
