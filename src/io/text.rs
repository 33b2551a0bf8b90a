//! Text helpers shared by every report.

/// "255168" -> "255,168" (anything that is not all digits is left as it is).
pub fn group(digits: &str) -> String {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return digits.to_string();
    }
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `text` whole when it has at most `max` characters, else its first `max` and how long it
/// is: what an error echoes of an input that may be megabytes long.
pub fn abbreviated(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    let head: String = text.chars().take(max).collect();
    format!("{head}… ({} characters)", group(&n.to_string()))
}

/// `message` with `input`, and each long part of it (what follows a `=`, `,` or `:`, and what
/// lies between them), [`abbreviated`] to `max` characters wherever it quotes them: for
/// messages built by code that quotes what it was given whole (a megabyte setting, a path).
pub fn quote_short(message: String, input: &str, max: usize) -> String {
    if input.chars().count() <= max || message.len() <= max {
        return message;
    }
    let mut parts: Vec<&str> = vec![input];
    for (i, c) in input.char_indices() {
        if matches!(c, '=' | ',' | ':') {
            parts.push(&input[i + c.len_utf8()..]);
        }
        if parts.len() > 64 {
            break;
        }
    }
    parts.extend(input.split(['=', ',', ':']).take(64));
    parts.retain(|p| p.chars().count() > max);
    parts.sort_by_key(|p| std::cmp::Reverse(p.len()));
    let mut message = message;
    for part in parts {
        if message.contains(part) {
            message = message.replace(part, &abbreviated(part, max));
        }
    }
    message
}

/// A number as a person reads it, short at any size: "0.25", "-0.5", "1e308" (not 309
/// digits), "5e-324", "NaN", "inf", "-inf".
pub fn short_number(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    let size = x.abs();
    if size != 0.0 && !(1e-4..1e6).contains(&size) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// How far apart two words are: the fewest single-character insertions, deletions,
/// substitutions and swaps of two neighbours that turn one into the other (optimal string
/// alignment; `alpah` is one slip from `alpha`), on lower-case characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().flat_map(char::to_lowercase).collect();
    let b: Vec<char> = b.chars().flat_map(char::to_lowercase).collect();
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut last: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (last[j - 1] + cost).min(last[j] + 1).min(row[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut last, row);
    }
    last[b.len()]
}

/// The candidate a misspelt `input` most likely meant: the closest by [`edit_distance`]
/// (ignoring case, `-` and `_`), where it is close (at most a third of its length apart, at
/// least 1 and at most 3); `None` where nothing is. Ties go to the earlier candidate.
pub fn closest<'c>(input: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let plain = |s: &str| -> String { s.chars().filter(|c| *c != '-' && *c != '_').collect() };
    let typed = plain(input);
    let n = typed.chars().count();
    // A long input is no misspelling of a short name (and would cost its length squared).
    if n == 0 || n > 64 {
        return None;
    }
    let mut best: Option<(usize, &'c str)> = None;
    for candidate in candidates {
        let c = plain(candidate);
        let d = edit_distance(&typed, &c);
        let allowed = (c.chars().count().max(n) / 3).clamp(1, 3);
        if d <= allowed && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// " (did you mean `rows`?)" where a candidate is close to `input` ([`closest`]), else
/// empty: the tail of an "unknown name" message.
pub fn did_you_mean<'c>(input: &str, candidates: impl IntoIterator<Item = &'c str>) -> String {
    closest(input, candidates)
        .map(|c| format!(" (did you mean `{c}`?)"))
        .unwrap_or_default()
}

/// A message of serde or TOML in a user's words: Rust's type names ("expected usize", "u64",
/// "invalid type: floating point `1.5`") become what a value must be ("expected a whole
/// number ≥ 0", "got `1.5`"), a type's own name ("expected struct TdToml") goes, long quoted
/// values are [`abbreviated`], and an unknown field or variant close to one the message lists
/// gets a "did you mean". Anything else is left as it is.
pub fn plain_words(message: &str) -> String {
    let mut out = type_words(&abbreviate_quoted(message.trim()));
    for what in ["unknown field `", "unknown variant `"] {
        if let Some(at) = out.find(what) {
            let rest = &out[at + what.len()..];
            if let Some((given, listed)) = rest.split_once('`') {
                let listed = listed.lines().next().unwrap_or("");
                let names: Vec<&str> = listed.split('`').skip(1).step_by(2).collect();
                let hint = did_you_mean(given, names.iter().copied());
                if !hint.is_empty() {
                    let line_end = out[at..].find('\n').map_or(out.len(), |i| at + i);
                    out.insert_str(line_end, &hint);
                }
            }
        }
    }
    // "expected struct FooToml" / "untagged enum BarToml": the type's name means nothing to a
    // reader; the key the message comes with says where.
    for lead in [
        "data did not match any variant of untagged enum ",
        "expected struct ",
        "expected enum ",
        "expected tuple struct ",
    ] {
        while let Some(i) = out.find(lead) {
            let name_start = i + lead.len();
            let name_end = out[name_start..]
                .find(|c: char| !c.is_alphanumeric() && c != '_')
                .map_or(out.len(), |j| name_start + j);
            let plain = if lead.starts_with("data") {
                "a value of another form than this key takes"
            } else {
                "expected a table"
            };
            out.replace_range(i..name_end, plain);
        }
    }
    out
}

/// Rust's type names ("expected usize", "u64",
/// "invalid type: floating point `1.5`") become what a value must be ("expected a whole
/// number ≥ 0", "got `1.5`"), and a value it quotes is [`abbreviated`]. Anything else is left
/// as it is.
fn type_words(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(4096));
    let mut rest = message;
    loop {
        let next = ["invalid type: ", "invalid value: ", "expected "]
            .iter()
            .filter_map(|p| find_word(rest, p).map(|at| (at, *p)))
            .min();
        let Some((at, prefix)) = next else { break };
        out.push_str(&rest[..at]);
        rest = &rest[at + prefix.len()..];
        if prefix == "expected " {
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            out.push_str(prefix);
            if let Some(r) = rest.strip_prefix("a nonzero ") {
                let end = r
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(r.len());
                match &r[..end] {
                    t if t.starts_with('u') && type_in_words(t).is_some() => {
                        out.push_str("a whole number ≥ 1");
                    }
                    t if t.starts_with('i') && type_in_words(t).is_some() => {
                        out.push_str("a whole number other than 0");
                    }
                    t => {
                        out.push_str("a nonzero ");
                        out.push_str(t);
                    }
                }
                rest = &r[end..];
                continue;
            }
            if let Some(r) = rest.strip_prefix("a sequence") {
                out.push_str("a list");
                rest = r;
                continue;
            }
            if let Some(r) = rest.strip_prefix("a map") {
                out.push_str("a table");
                rest = r;
                continue;
            }
            match type_in_words(&rest[..end]) {
                Some(words) => out.push_str(&words),
                None => out.push_str(&rest[..end]),
            }
            rest = &rest[end..];
        } else {
            // What serde got: up to ", expected" (a quoted text may hold commas).
            let line = rest.find('\n').unwrap_or(rest.len());
            let end = rest[..line].rfind(", expected ").unwrap_or(line);
            out.push_str("got ");
            out.push_str(&value_in_words(&rest[..end]));
            rest = &rest[end..];
        }
    }
    out.push_str(rest);
    out
}

/// Where `word` starts in `text` at a word's start (not inside "unexpected").
fn find_word(text: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = text[from..].find(word) {
        let at = from + i;
        let before = text[..at].chars().next_back();
        if !before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// serde's words for a value it got ("floating point `1.5`", "string \"a\"", "sequence") as
/// a user's ("`1.5`", "the text \"a\"", "a list").
fn value_in_words(got: &str) -> String {
    for (rust, plain) in [
        ("floating point ", ""),
        ("integer ", ""),
        ("boolean ", ""),
        ("character ", ""),
        ("string ", "the text "),
    ] {
        if let Some(value) = got.strip_prefix(rust) {
            return format!("{plain}{}", abbreviated(value, 100));
        }
    }
    match got {
        "sequence" => "a list".to_string(),
        "map" => "a table".to_string(),
        "unit value" | "unit" => "nothing".to_string(),
        other => abbreviated(other, 100),
    }
}

/// A Rust primitive type's name in words ("u32" -> "a whole number from 0 to 4,294,967,295").
fn type_in_words(word: &str) -> Option<String> {
    let range = |low: &str, high: &str| {
        Some(format!(
            "a whole number from {} to {}",
            low,
            group(high.trim_start_matches('-'))
        ))
    };
    match word {
        "usize" | "u64" | "u128" => Some("a whole number ≥ 0".to_string()),
        "u8" => range("0", "255"),
        "u16" => range("0", "65535"),
        "u32" => range("0", "4294967295"),
        "i8" => Some("a whole number from -128 to 127".to_string()),
        "i16" => Some("a whole number from -32,768 to 32,767".to_string()),
        "i32" => Some("a whole number from -2,147,483,648 to 2,147,483,647".to_string()),
        "isize" | "i64" | "i128" => Some("a whole number".to_string()),
        "f32" | "f64" => Some("a number".to_string()),
        "bool" => Some("true or false".to_string()),
        "char" => Some("a single character".to_string()),
        _ => None,
    }
}

/// Quoted values (between backticks or double quotes) of over 100 characters, abbreviated.
fn abbreviate_quoted(text: &str) -> String {
    let mut text = text.to_string();
    for quote in ['`', '"'] {
        if text.chars().count() <= 300 {
            break;
        }
        let mut out = String::new();
        for (i, piece) in text.split(quote).enumerate() {
            if i > 0 {
                out.push(quote);
            }
            out.push_str(&abbreviated(piece, if i % 2 == 1 { 100 } else { 400 }));
        }
        text = out;
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouping_digits() {
        assert_eq!(group("255168"), "255,168");
        assert_eq!(group("5478"), "5,478");
        assert_eq!(group("12"), "12");
    }

    #[test]
    fn long_inputs_are_quoted_short() {
        let path = "p".repeat(500);
        let input = format!("agent={path}");
        let message = format!("--ai {input}: opening {path}: not found");
        let quiet = quote_short(message, &input, 100);
        assert!(quiet.len() < 400, "{quiet}");
        assert!(quiet.ends_with(": not found"), "{quiet}");
        assert_eq!(quote_short("short".into(), &input, 100), "short");
    }

    #[test]
    fn numbers_are_short() {
        assert_eq!(short_number(1e308), "1e308");
        assert_eq!(short_number(5e-324), "5e-324");
        assert_eq!(short_number(0.25), "0.25");
        assert_eq!(short_number(-0.0), "-0");
        assert_eq!(short_number(f64::NAN), "NaN");
        assert_eq!(short_number(f64::NEG_INFINITY), "-inf");
    }

    #[test]
    fn misspellings_get_the_closest_name() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        let games = ["hexapawn", "octapawn", "fox-hounds", "tictactoe"];
        assert_eq!(closest("hexapwan", games), Some("hexapawn"));
        assert_eq!(closest("TicTacToe", games), Some("tictactoe"));
        assert_eq!(closest("foxhound", games), Some("fox-hounds"));
        assert_eq!(closest("chess", games), None);
        assert_eq!(closest(&"x".repeat(1_000_000), games), None);
        assert_eq!(closest("sise", ["size"]), Some("size"));
        assert_eq!(
            did_you_mean("rowz", ["rows", "cols"]),
            " (did you mean `rows`?)"
        );
        assert_eq!(did_you_mean("q", ["rows", "cols"]), "");
    }

    #[test]
    fn rust_type_names_are_said_in_words() {
        assert_eq!(
            plain_words("invalid type: floating point `1.5`, expected usize"),
            "got `1.5`, expected a whole number ≥ 0"
        );
        assert_eq!(
            plain_words("invalid value: integer `-1`, expected u32"),
            "got `-1`, expected a whole number from 0 to 4,294,967,295"
        );
        assert_eq!(
            plain_words("invalid type: string \"a\", expected u64 for key `size`"),
            "got the text \"a\", expected a whole number ≥ 0 for key `size`"
        );
        assert_eq!(
            plain_words("invalid type: sequence, expected f64"),
            "got a list, expected a number"
        );
        assert_eq!(
            plain_words("expected one of `rows`"),
            "expected one of `rows`"
        );
        assert_eq!(
            plain_words("`episodes`: got `-1`, expected a nonzero u64"),
            "`episodes`: got `-1`, expected a whole number ≥ 1"
        );
        assert_eq!(plain_words("unexpected u32"), "unexpected u32");
    }

    #[test]
    fn serde_messages_lose_type_names_and_gain_suggestions() {
        assert_eq!(
            plain_words("unknown field `alpah`, expected one of `alpha`, `gamma`"),
            "unknown field `alpah`, expected one of `alpha`, `gamma` (did you mean `alpha`?)"
        );
        assert_eq!(
            plain_words("data did not match any variant of untagged enum BestResponseToml"),
            "a value of another form than this key takes"
        );
        assert!(!plain_words("expected struct TdConfig").contains("TdConfig"));
        assert_eq!(plain_words("bu64x"), "bu64x");
        let long = format!("unknown field `{}`", "x".repeat(10_000));
        assert!(plain_words(&long).len() < 400);
        assert_eq!(closest("alpah", ["alpha", "gamma"]), Some("alpha"));
        assert_eq!(short_number(1e308), "1e308");
        assert_eq!(short_number(-0.5), "-0.5");
    }
}
