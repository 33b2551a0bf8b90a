//! What built this program: the crate's version and the git commit it was built from (by
//! `build.rs`, where it was built from a checkout), as the outputs record them.

/// The crate's version, e.g. "0.1.0".
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The commit the program was built from (40 hex digits), or `None` outside a git checkout.
pub const COMMIT: Option<&str> = option_env!("SOLVEDGYM_COMMIT");

#[cfg(test)]
mod tests {
    #[test]
    fn version_and_commit_look_right() {
        assert!(!super::VERSION.is_empty());
        if let Some(c) = super::COMMIT {
            assert_eq!(c.len(), 40, "{c}");
            assert!(c.chars().all(|ch| ch.is_ascii_hexdigit()), "{c}");
        }
    }
}
