//! Links the `majordomus` executable without PIE on Linux (glibc).
//!
//! git starts majordomus on every commit (the post-commit hook). A position-independent
//! executable of this size carries ~37,000 relative relocations that the dynamic loader
//! applies at every start, writing (and so copying) the pages of `.data.rel.ro`: a
//! quarter of the instructions and a third of the page faults of a `hook post-commit`
//! run. Linked at a fixed address there are 3 (docs/PERFORMANCE.md, "The binary's own
//! start"). The price is that the executable's own code and data are not placed at a
//! random address (shared libraries, stack, heap and mmap still are); set
//! `MAJORDOMUS_PIE=1` when building to keep a PIE. Only the binary is linked so: the
//! library, tests and benches are built as before.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=MAJORDOMUS_PIE");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let keep_pie = std::env::var_os("MAJORDOMUS_PIE").is_some_and(|v| !v.is_empty() && v != "0");
    let no_pie = os == "linux" && env == "gnu" && !keep_pie;
    if no_pie {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    // The tests read it to know which executable to expect (tests/cli/hooks.rs).
    println!(
        "cargo:rustc-env=MAJORDOMUS_LINKED_PIE={}",
        if no_pie { "no" } else { "yes" }
    );
}
