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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouping_digits() {
        assert_eq!(group("255168"), "255,168");
        assert_eq!(group("5478"), "5,478");
        assert_eq!(group("12"), "12");
    }
}
