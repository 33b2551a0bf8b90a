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
    println!("cargo:rerun-if-changed=build.rs");
}
