//! `plateau`: train, reproduce and benchmark from the command line (see `plateau --help`).

#[cfg(not(target_arch = "wasm32"))]
fn main() -> std::process::ExitCode {
    plateau::cli::main()
}

#[cfg(target_arch = "wasm32")]
fn main() {}
