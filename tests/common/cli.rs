//! Running the `plateau` binary from a test: its exit code and output, a scratch folder per test
//! process, and the flags of a golden run.

use std::process::Command;

/// `plateau ARGS`: exit code, stdout, stderr.
pub fn plateau(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_plateau")).args(args).output().expect("run plateau");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A path under this test process's scratch folder.
pub fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("plateau-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// The flags that give a golden run's config (`tests/common`), from its non-default pairs.
pub fn flags_of(cfg: &plateau::config::RunConfig) -> Vec<String> {
    cfg.non_default_pairs().into_iter().flat_map(|(k, v)| [format!("--{k}"), v]).collect()
}
