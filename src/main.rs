//! The `majordomus` binary: parse, run, map the result to an exit code.
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    majordomus::cli::main()
}
