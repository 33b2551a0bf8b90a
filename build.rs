//! Records the git commit the crate is built from (`SOLVEDGYM_COMMIT`), where it is built from a
//! checkout with git at hand; elsewhere (a packaged crate, no git) nothing is set and the
//! outputs say the commit is unknown.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

fn main() {
    println!("cargo:rerun-if-env-changed=SOLVEDGYM_COMMIT");
    if let Some(commit) = git(&["rev-parse", "HEAD"]) {
        println!("cargo:rustc-env=SOLVEDGYM_COMMIT={commit}");
        // Built again when HEAD moves: a new commit, a checkout, a branch's ref. Only files that
        // exist: cargo runs the script again on every build for one that does not.
        let mut watch = vec!["HEAD".to_string(), "packed-refs".to_string()];
        watch.extend(git(&["symbolic-ref", "-q", "HEAD"]));
        for path in watch {
            if let Some(p) = git(&["rev-parse", "--git-path", &path])
                && Path::new(&p).exists()
            {
                println!("cargo:rerun-if-changed={p}");
            }
        }
    }
    // The `solvedgym` command is linked at a fixed address (not as a position-independent
    // executable) on Linux with the GNU toolchain: its code stays position-independent (the
    // library and anything linking it, a Python extension included, are unchanged), but the
    // loader has no relocations to apply at start-up. As a PIE, the 62,000 pointers in its
    // read-only data were rewritten on every start, copying 1.4 MB of pages: a third of the
    // start-up of each one-shot `solve` (1.3 of 2.6 ms of CPU, docs/performance.md). The price
    // is no address randomisation for the executable itself.
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
