//! A TOML text read with the positions of its keys and values, so that every error about it
//! names the file, the line and column, and the dotted key, and shows the line. Values are read
//! with serde (toml gives the position of an error, `serde_path_to_error` the key inside the
//! value read); checks that serde cannot make point at a key by its path.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;
use toml::de::{DeTable, DeValue, ValueDeserializer};

/// A config that cannot be run, with where the problem is.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    /// The key at fault, dotted ("learner.seat"), when there is one.
    pub key: Option<String>,
    pub message: String,
    source_line: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: ", self.file.display(), self.line, self.column)?;
        if let Some(key) = &self.key {
            write!(f, "`{key}`: ")?;
        }
        writeln!(f, "{}", self.message)?;
        let gutter = self.line.to_string().len();
        writeln!(f, "{:gutter$} |", "")?;
        // A long line is shown around the fault: a line of megabytes is not echoed whole.
        let chars: Vec<char> = self.source_line.chars().collect();
        let column = self.column.max(1);
        let (from, to) = if chars.len() <= 120 {
            (0, chars.len())
        } else {
            let from = column.saturating_sub(60);
            (from, (from + 120).min(chars.len()))
        };
        let shown: String = chars[from..to].iter().collect();
        let (lead, tail) = (
            if from > 0 { "…" } else { "" },
            if to < chars.len() { "…" } else { "" },
        );
        writeln!(f, "{} | {lead}{shown}{tail}", self.line)?;
        write!(
            f,
            "{:gutter$} | {:>col$}",
            "",
            "^",
            col = column - from + lead.chars().count()
        )
    }
}

impl std::error::Error for ConfigError {}

/// The text of a config and where its keys and values stand.
pub(crate) struct Source<'a> {
    file: &'a Path,
    text: &'a str,
    root: Spanned<DeValue<'a>>,
}

impl<'a> Source<'a> {
    pub(crate) fn parse(file: &'a Path, text: &'a str) -> Result<Self, ConfigError> {
        let root = DeTable::parse(text).map_err(|e| {
            let span = e.span().unwrap_or(0..0);
            error_at(file, text, span, None, e.message().to_string())
        })?;
        let span = root.span();
        Ok(Source {
            file,
            text,
            root: Spanned::new(span, DeValue::Table(root.into_inner())),
        })
    }

    /// The value at a dotted path such as `learners[2].alpha` (the whole file at "").
    pub(crate) fn get(&self, path: &str) -> Option<&Spanned<DeValue<'a>>> {
        let mut value = &self.root;
        for part in path.split('.').filter(|p| !p.is_empty()) {
            let (key, index) = match part.split_once('[') {
                Some((k, i)) => (k, i.trim_end_matches(']').parse::<usize>().ok()),
                None => (part, None),
            };
            value = value.get_ref().as_table()?.get(key)?;
            if let Some(i) = index {
                value = value.get_ref().as_array()?.get(i)?;
            }
        }
        Some(value)
    }

    /// An error about the key at `path`, pointing at its value (or at the nearest enclosing
    /// table when the key is missing).
    pub(crate) fn error(&self, path: &str, message: impl Into<String>) -> ConfigError {
        let mut at = path;
        let span = loop {
            if let Some(v) = self.get(at) {
                break v.span();
            }
            at = at.rfind(['.', '[']).map_or("", |i| &at[..i]);
        };
        let key = (!path.is_empty()).then(|| path.to_string());
        error_at(self.file, self.text, span, key, message.into())
    }

    /// The span of the key itself (not its value) at the end of `path`.
    fn key_span(&self, path: &str) -> Option<Range<usize>> {
        let (parent, key) = path.rsplit_once('.').unwrap_or(("", path));
        self.get(parent)?
            .get_ref()
            .as_table()?
            .keys()
            .find(|k| k.get_ref() == key)
            .map(|k| k.span())
    }

    /// Reads the value at `path` as `T` (`None` if the key is absent).
    pub(crate) fn read<T: for<'de> Deserialize<'de>>(
        &self,
        path: &str,
    ) -> Result<Option<T>, ConfigError> {
        match self.get(path) {
            None => Ok(None),
            Some(v) => self
                .read_value(path, v.clone(), |de| T::deserialize(de))
                .map(Some),
        }
    }

    /// Reads `value` (the value at `path`, perhaps with keys removed) with `read`; an error
    /// names the key inside it that is at fault.
    pub(crate) fn read_value<T>(
        &self,
        path: &str,
        value: Spanned<DeValue<'a>>,
        read: impl FnOnce(
            serde_path_to_error::Deserializer<'_, '_, ValueDeserializer<'a>>,
        ) -> Result<T, toml::de::Error>,
    ) -> Result<T, ConfigError> {
        let mut track = serde_path_to_error::Track::new();
        let de = serde_path_to_error::Deserializer::new(ValueDeserializer::from(value), &mut track);
        read(de).map_err(|e| {
            let mut key = path.to_string();
            for segment in track.path().iter() {
                match segment {
                    serde_path_to_error::Segment::Map { key: k } => {
                        if !key.is_empty() {
                            key.push('.');
                        }
                        key.push_str(k);
                    }
                    serde_path_to_error::Segment::Seq { index } => {
                        key.push_str(&format!("[{index}]"))
                    }
                    _ => {}
                }
            }
            let message = crate::io::text::plain_words(e.message());
            // serde names an unknown field but not where it stands: point at the key itself.
            if let Some(field) = message
                .strip_prefix("unknown field `")
                .and_then(|m| m.split('`').next())
            {
                let at = if key.is_empty() {
                    field.to_string()
                } else {
                    format!("{key}.{field}")
                };
                if let Some(span) = self.key_span(&at) {
                    return error_at(self.file, self.text, span, Some(at), message);
                }
            }
            match e.span() {
                Some(span) => error_at(self.file, self.text, span, Some(key), message),
                None => self.error(&key, message),
            }
        })
    }
}

fn error_at(
    file: &Path,
    text: &str,
    span: Range<usize>,
    key: Option<String>,
    message: String,
) -> ConfigError {
    let start = span.start.min(text.len());
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    ConfigError {
        file: file.to_path_buf(),
        line: text[..start].matches('\n').count() + 1,
        column: text[line_start..start].chars().count() + 1,
        key: key.filter(|k| !k.is_empty()),
        message,
        source_line: text[line_start..].lines().next().unwrap_or("").to_string(),
    }
}
