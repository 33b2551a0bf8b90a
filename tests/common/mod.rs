//! Helpers the integration tests share: run the binary, feed `play` a person's input.

#![allow(dead_code)]

pub mod hostile;

use std::io::Write;
use std::process::{Command, Output, Stdio};

pub fn solvedgym(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_solvedgym"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Runs `solvedgym ARGS`, which must succeed and print one JSON value.
pub fn solvedgym_json(args: &[&str]) -> serde_json::Value {
    let out = solvedgym(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON")
}

/// Runs `solvedgym ARGS` with `input` on stdin; it must succeed. Returns stdout.
pub fn with_input(args: &[&str], input: &[u8]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_solvedgym"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
