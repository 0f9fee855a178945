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
//! library, tests and benches are built as before. A static build (`RUSTFLAGS="-C
//! target-feature=+crt-static -C relocation-model=static"` with `--target`, docs/HOOKS.md)
//! is linked as rustc links it.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=MAJORDOMUS_PIE");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let keep_pie = std::env::var_os("MAJORDOMUS_PIE").is_some_and(|v| !v.is_empty() && v != "0");
    // A static build (`-C target-feature=+crt-static`) is linked as rustc decides: a static
    // PIE, or with `-C relocation-model=static` a fixed-address one. `-no-pie` beside
    // rustc's `-static-pie` gives an executable that crashes at start.
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let crt_static = features.split(',').any(|f| f == "crt-static");
    let rustflags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let fixed_address = rustflags
        .split('\x1f')
        .any(|f| f == "relocation-model=static" || f == "-Crelocation-model=static");
    let no_pie = os == "linux" && env == "gnu" && !keep_pie && !crt_static;
    if no_pie {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    let no_pie = no_pie || (crt_static && fixed_address);
    // The tests read it to know which executable to expect (tests/cli/hooks.rs).
    println!(
        "cargo:rustc-env=MAJORDOMUS_LINKED_PIE={}",
        if no_pie { "no" } else { "yes" }
    );
}
