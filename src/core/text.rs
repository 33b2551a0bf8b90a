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

/// A number as a person reads it: `0.25`, `-0.5`, `1e308`, `2.2e-308`, never 300 digits.
pub fn short_number(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-4..1e6).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
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

/// The closest of `candidates` to `input` by edit distance (case ignored), when it is close
/// enough to be a slip: at most a third of the name's letters wrong, and at least 1.
pub fn closest<'a>(input: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let input = input.to_lowercase();
    if input.is_empty() || input.chars().count() > 64 {
        return None;
    }
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = edit_distance(&input, &c.to_lowercase());
        let allowed = (c.chars().count().max(input.chars().count()) / 3).max(1);
        if d <= allowed && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// " (did you mean `x`?)" for the closest candidate ([`closest`]), or nothing.
pub fn did_you_mean<'a>(input: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(input, candidates)
        .map(|c| format!(" (did you mean `{c}`?)"))
        .unwrap_or_default()
}

/// Edit distance over characters, a swap of two neighbours counting as one edit (optimal
/// string alignment): `alpah` is one slip from `alpha`.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
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

/// A serde error message in a reader's words: no Rust type names (`u64`, `usize`, `f64`,
/// `struct BestResponseToml`), long values abbreviated, and a "did you mean" after an unknown
/// field or variant that is close to one it lists.
pub fn plain_serde(message: &str) -> String {
    let mut out = abbreviate_quoted(message.trim());
    // "unknown field `alpah`, expected one of `alpha`, `gamma`": suggest the closest.
    for what in ["unknown field `", "unknown variant `"] {
        if let Some(rest) = out.strip_prefix(what)
            && let Some((given, listed)) = rest.split_once('`')
        {
            let names: Vec<&str> = listed.split('`').skip(1).step_by(2).collect();
            let hint = did_you_mean(given, names.iter().copied());
            out.push_str(&hint);
        }
    }
    const WORDS: [(&str, &str); 24] = [
        ("a nonzero usize", "a whole number ≥ 1"),
        ("a nonzero u64", "a whole number ≥ 1"),
        ("a nonzero u32", "a whole number ≥ 1"),
        ("a nonzero u8", "a whole number ≥ 1"),
        ("nonzero usize", "a whole number ≥ 1"),
        ("nonzero u64", "a whole number ≥ 1"),
        ("usize", "a whole number ≥ 0"),
        ("u64", "a whole number ≥ 0"),
        ("u32", "a whole number ≥ 0"),
        ("u16", "a whole number ≥ 0"),
        ("u8", "a whole number ≥ 0"),
        ("i64", "a whole number"),
        ("i32", "a whole number"),
        ("f64", "a number"),
        ("f32", "a number"),
        ("a borrowed string", "text"),
        ("a string", "text"),
        ("a boolean", "true or false"),
        ("a character", "one character"),
        ("invalid type: floating point", "a number with a fraction,"),
        ("invalid type: integer", "a whole number,"),
        ("invalid type: string", "text,"),
        ("invalid type: boolean", "true/false,"),
        ("invalid value: integer", "the number"),
    ];
    for (rust, plain) in WORDS {
        out = replace_word(&out, rust, plain);
    }
    for (rust, plain) in [
        ("invalid type: map", "a table"),
        ("invalid type: sequence", "a list"),
        ("invalid type: unit value", "nothing"),
        ("invalid type: option", "nothing"),
    ] {
        out = out.replace(rust, plain);
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

/// `text` with every `word` that stands alone (not inside a longer name) replaced.
fn replace_word(text: &str, word: &str, by: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(word) {
        let before = rest[..i].chars().next_back();
        let after = rest[i + word.len()..].chars().next();
        let alone = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric() && c != '_');
        out.push_str(&rest[..i]);
        out.push_str(if alone(before) && alone(after) {
            by
        } else {
            word
        });
        rest = &rest[i + word.len()..];
    }
    out.push_str(rest);
    out
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
    fn serde_messages_in_plain_words() {
        assert_eq!(
            plain_serde("invalid type: floating point `1.5`, expected usize"),
            "a number with a fraction, `1.5`, expected a whole number ≥ 0"
        );
        assert_eq!(
            plain_serde("invalid value: integer `-1`, expected u64"),
            "the number `-1`, expected a whole number ≥ 0"
        );
        assert_eq!(
            plain_serde("invalid type: string \"ten\", expected a nonzero u64"),
            "text, \"ten\", expected a whole number ≥ 1"
        );
        assert_eq!(
            plain_serde("unknown field `alpah`, expected one of `alpha`, `gamma`"),
            "unknown field `alpah`, expected one of `alpha`, `gamma` (did you mean `alpha`?)"
        );
        assert_eq!(
            plain_serde("data did not match any variant of untagged enum BestResponseToml"),
            "a value of another form than this key takes"
        );
        assert!(!plain_serde("expected struct TdConfig").contains("TdConfig"));
        // Names that merely contain a type word are left alone.
        assert_eq!(plain_serde("bu64x"), "bu64x");
        let long = format!("unknown field `{}`", "x".repeat(10_000));
        assert!(plain_serde(&long).len() < 400);
    }

    #[test]
    fn slips_get_a_suggestion_and_strangers_none() {
        let games = ["hexapawn", "tictactoe", "fox-hounds", "hackenbush"];
        assert_eq!(closest("hexapwan", games), Some("hexapawn"));
        assert_eq!(closest("TicTacToe", games), Some("tictactoe"));
        assert_eq!(closest("chess", games), None);
        assert_eq!(
            did_you_mean("fox-hound", games),
            " (did you mean `fox-hounds`?)"
        );
        assert_eq!(short_number(1e308), "1e308");
        assert_eq!(short_number(-0.5), "-0.5");
    }

    #[test]
    fn grouping_digits() {
        assert_eq!(group("255168"), "255,168");
        assert_eq!(group("5478"), "5,478");
        assert_eq!(group("12"), "12");
    }
}
