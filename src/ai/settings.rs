//! The one grammar of a player's settings, as `--ai`, tournaments, configs and the Python
//! package write them: comma-separated parts, each `key=value` or a bare `key` (a switch),
//! spaces around either trimmed, empty parts skipped (`depth=4, no-prune` or
//! `sims=2000,c=1.4`). The search's and MCTS's settings ([`SearchOptions::parse`],
//! [`MctsOptions::parse`]) read their keys from it, and an error names the part at fault.
//!
//! [`SearchOptions::parse`]: crate::ai::SearchOptions::parse
//! [`MctsOptions::parse`]: crate::ai::MctsOptions::parse

use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::str::FromStr;

/// One part of a settings text: `key=value`, or `key` with an empty value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Setting<'a> {
    /// The part as written (trimmed), for errors.
    pub text: &'a str,
    pub key: &'a str,
    pub value: &'a str,
}

/// The parts of `spec`, in order.
pub fn settings(spec: &str) -> impl Iterator<Item = Setting<'_>> {
    spec.split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|text| {
            let (key, value) = text.split_once('=').unwrap_or((text, ""));
            Setting {
                text,
                key: key.trim(),
                value: value.trim(),
            }
        })
}

/// What `eval=agent:PATH` says, for a setting that may name a saved agent's file.
const AGENT_HELP: &str = "eval=agent:PATH names a saved agent's file (a run's agents/*.parquet)";

impl Setting<'_> {
    /// The error for this part: "`part`: what".
    pub fn error(&self, what: &str) -> String {
        format!("`{}`: {what}", self.text)
    }

    /// The value as a number within `range`; else the error `what` (which says the range).
    pub fn number<T: FromStr + PartialOrd>(
        &self,
        range: RangeInclusive<T>,
        what: &str,
    ) -> Result<T, String> {
        self.value
            .parse()
            .ok()
            .filter(|v| range.contains(v))
            .ok_or_else(|| self.error(what))
    }

    /// The value as any number of its type; else the error `what`.
    pub fn whole<T: FromStr>(&self, what: &str) -> Result<T, String> {
        self.value.parse().map_err(|_| self.error(what))
    }

    /// For `eval=agent:PATH`: `Some` with the file (or the error for an empty path); `None` for
    /// any other part.
    pub fn agent(&self) -> Option<Result<PathBuf, String>> {
        let path = self.value.strip_prefix("agent:")?.trim();
        (self.key == "eval").then(|| match path {
            "" => Err(self.error(AGENT_HELP)),
            path => Ok(PathBuf::from(path)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_trimmed_split_at_the_first_equals_and_empty_ones_skipped() {
        let parts: Vec<(&str, &str, &str)> = settings(" depth = 4,,no-prune, eval=kc=1.2 ,")
            .map(|s| (s.text, s.key, s.value))
            .collect();
        assert_eq!(
            parts,
            vec![
                ("depth = 4", "depth", "4"),
                ("no-prune", "no-prune", ""),
                ("eval=kc=1.2", "eval", "kc=1.2"),
            ]
        );
        assert_eq!(settings("").count(), 0);
    }

    #[test]
    fn numbers_are_read_within_their_range_and_errors_name_the_part() {
        let s = settings("sims=0").next().unwrap();
        assert_eq!(
            s.number(1..=10u32, "sims is 1 to 10"),
            Err("`sims=0`: sims is 1 to 10".to_string())
        );
        let s = settings("c=1.5").next().unwrap();
        assert_eq!(s.number(0.0..=100.0, "c"), Ok(1.5));
        assert_eq!(
            s.whole::<u64>("seed is whole"),
            Err("`c=1.5`: seed is whole".into())
        );
    }

    #[test]
    fn an_agent_is_named_by_eval_agent_path() {
        let agent = |t: &str| settings(t).next().unwrap().agent();
        assert_eq!(agent("eval=agent: a.parquet"), Some(Ok("a.parquet".into())));
        assert_eq!(agent("eval=kc=1"), None);
        assert_eq!(agent("depth=agent:x"), None);
        assert!(
            agent("eval=agent:")
                .unwrap()
                .unwrap_err()
                .contains("saved agent")
        );
    }
}
