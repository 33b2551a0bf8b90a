//! Game expressions in CGSuite's notation, read into canonical games.
//!
//! An expression is a sum or difference of terms (`{0|1} + *`, `1/2 - ^`); a term is a
//! number (`3`, `-1/2`, `0.375`), a nimber (`*`, `*3`), ups and downs (`^`, `^^`, `^3`, `v`,
//! `vv`, `v3`, `^[3]`, `v<2>`, also `↑ ↓ ⇑ ⇓`), `±x` ({x | −x}), a game in braces or an
//! expression in parentheses; juxtaposed terms add (`1*`, `3/4v[3]*`). Braces take
//! comma-separated options on each side of the bars; more bars nest (`{3||2*|1*}` is
//! {3 | {2* | 1*}}, `{0|*||*}` is {{0|*} | *}).

use std::fmt;

use super::Dyadic;
use super::store::{GameId, Store};

/// Where and why an expression could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseGameError {
    /// Character offset in the text.
    pub position: usize,
    pub message: String,
}

impl fmt::Display for ParseGameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at character {}: {}", self.position + 1, self.message)
    }
}

impl std::error::Error for ParseGameError {}

/// The largest nimber an expression may name.
pub const MAX_NIMBER: u64 = 256;
/// The largest multiple of up and uptimal index an expression may name.
pub const MAX_UPS: u64 = 64;
/// The deepest an expression may nest: braces, parentheses, `±` and levels of bars
/// (`{0|*||*}` nests 2 deep) together. Deeper text is refused before any game is built, so
/// the reader's recursion stays far from the end of the stack.
pub const MAX_NESTING: usize = 200;
/// The longest expression read, in characters.
pub const MAX_CHARS: usize = 100_000;

impl Store {
    /// Reads a game expression (see the module docs) into its canonical form.
    pub fn parse(&mut self, text: &str) -> Result<GameId, ParseGameError> {
        // A typographic minus (−, as printed texts write it) reads as `-`.
        let chars: Vec<char> = text
            .chars()
            .map(|c| if c == '\u{2212}' { '-' } else { c })
            .collect();
        if chars.len() > MAX_CHARS {
            return Err(ParseGameError {
                position: MAX_CHARS,
                message: format!(
                    "the expression is {} characters long; at most {MAX_CHARS} are read",
                    chars.len()
                ),
            });
        }
        if chars.iter().all(|c| c.is_whitespace()) {
            return Err(ParseGameError {
                position: 0,
                message: "the expression is empty (try \"{0|1} + *\")".into(),
            });
        }
        let mut p = Parser {
            s: &chars,
            pos: 0,
            end: chars.len(),
            depth: 0,
        };
        let g = p.expr(self)?;
        p.skip_ws();
        if p.pos < p.end {
            return Err(p.err(format!("unexpected `{}`", p.s[p.pos])));
        }
        Ok(g)
    }
}

struct Parser<'a> {
    s: &'a [char],
    pos: usize,
    end: usize,
    /// How deep the reader is nested (see [`MAX_NESTING`]).
    depth: usize,
}

impl Parser<'_> {
    fn err(&self, message: impl Into<String>) -> ParseGameError {
        ParseGameError {
            position: self.pos,
            message: message.into(),
        }
    }

    /// One level deeper at `at`: refused beyond [`MAX_NESTING`].
    fn deeper(&mut self, at: usize) -> Result<(), ParseGameError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(ParseGameError {
                position: at,
                message: format!(
                    "the expression nests more than {MAX_NESTING} deep here (braces, parentheses, \
                     ± and levels of bars count); at most {MAX_NESTING} levels are read"
                ),
            });
        }
        Ok(())
    }

    fn skip_ws(&mut self) {
        while self.pos < self.end && self.s[self.pos].is_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        (self.pos < self.end).then(|| self.s[self.pos])
    }

    fn expr(&mut self, st: &mut Store) -> Result<GameId, ParseGameError> {
        let mut acc = self.term(st)?;
        loop {
            match self.peek() {
                Some('+') => {
                    self.pos += 1;
                    let t = self.term(st)?;
                    acc = st.add(acc, t);
                }
                Some('-') => {
                    self.pos += 1;
                    let t = self.term(st)?;
                    acc = st.sub(acc, t);
                }
                _ => return Ok(acc),
            }
        }
    }

    /// A term: an optional sign on its first atom, then atoms that add (`-2v` is −2 + ↓, as
    /// CGSuite prints it).
    fn term(&mut self, st: &mut Store) -> Result<GameId, ParseGameError> {
        let mut acc = match self.peek() {
            Some('-') => {
                self.pos += 1;
                let a = self.atom(st)?;
                st.neg(a)
            }
            Some('+') => {
                self.pos += 1;
                self.atom(st)?
            }
            _ => self.atom(st)?,
        };
        while let Some(c) = self.peek() {
            if matches!(c, '+' | '-' | ',' | '|' | '}' | ')') {
                break;
            }
            let a = self.atom(st)?;
            acc = st.add(acc, a);
        }
        Ok(acc)
    }

    /// A count after `*`, `^`, `v` (`None` without digits); counts above `limit` are errors,
    /// as the games they name would fill memory (*n has n options a side; n·↑ prints in n
    /// nested levels).
    fn digits(&mut self, limit: u64, what: &str) -> Result<Option<i64>, ParseGameError> {
        let start = self.pos;
        while self.pos < self.end && self.s[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
        if start == self.pos {
            return Ok(None);
        }
        let t: String = self.s[start..self.pos].iter().collect();
        match t.parse::<u64>() {
            Ok(n) if n <= limit => Ok(Some(n as i64)),
            _ => Err(ParseGameError {
                position: start,
                message: format!("{what} up to {limit} are supported, not {t}"),
            }),
        }
    }

    fn bracketed(&mut self, close: char) -> Result<i64, ParseGameError> {
        let n = self
            .digits(MAX_UPS, "uptimals")?
            .ok_or_else(|| self.err("expected a number"))?;
        if self.pos >= self.end || self.s[self.pos] != close {
            return Err(self.err(format!("expected `{close}`")));
        }
        self.pos += 1;
        Ok(n)
    }

    fn atom(&mut self, st: &mut Store) -> Result<GameId, ParseGameError> {
        let Some(c) = self.peek() else {
            return Err(self.err("expected a game"));
        };
        let start = self.pos;
        match c {
            '0'..='9' => {
                while self.pos < self.end
                    && (self.s[self.pos].is_ascii_digit() || matches!(self.s[self.pos], '/' | '.'))
                {
                    self.pos += 1;
                }
                let t: String = self.s[start..self.pos].iter().collect();
                let x: Dyadic =
                    t.parse()
                        .map_err(|e: super::dyadic::ParseDyadicError| ParseGameError {
                            position: start,
                            message: e.0,
                        })?;
                Ok(st.number(&x))
            }
            '*' => {
                self.pos += 1;
                let n = self.digits(MAX_NIMBER, "nimbers")?.unwrap_or(1);
                Ok(st.nimber(n as u64))
            }
            '^' | 'v' | '↑' | '↓' | '⇑' | '⇓' => {
                self.pos += 1;
                let (sign, mut count) = match c {
                    '^' | '↑' => (1, 1),
                    'v' | '↓' => (-1, 1),
                    '⇑' => (1, 2),
                    _ => (-1, 2),
                };
                let ascii = c == '^' || c == 'v';
                if ascii && self.pos < self.end && self.s[self.pos] == '[' {
                    self.pos += 1;
                    let n = self.bracketed(']')?;
                    if n == 0 {
                        return Err(ParseGameError {
                            position: start,
                            message: "`^[0]` is not defined (use 0)".into(),
                        });
                    }
                    return Ok(st.up_sub(sign * n));
                }
                if ascii && self.pos < self.end && self.s[self.pos] == '<' {
                    self.pos += 1;
                    let n = self.bracketed('>')?;
                    if n == 0 {
                        return Err(ParseGameError {
                            position: start,
                            message: "`^<0>` is not defined".into(),
                        });
                    }
                    return Ok(st.up_power(sign * n));
                }
                while self.pos < self.end && self.s[self.pos] == c {
                    self.pos += 1;
                    count += 1;
                }
                if ascii
                    && count == 1
                    && let Some(n) = self.digits(MAX_UPS, "multiples of up")?
                {
                    count = n;
                }
                if count > MAX_UPS as i64 {
                    return Err(ParseGameError {
                        position: start,
                        message: format!(
                            "multiples of up up to {MAX_UPS} are supported, not {count} arrows"
                        ),
                    });
                }
                Ok(st.up_multiple(sign * count))
            }
            '±' => {
                self.deeper(start)?;
                self.pos += 1;
                let a = self.atom(st)?;
                self.depth -= 1;
                let na = st.neg(a);
                Ok(st.game(&[a], &[na]))
            }
            '(' => {
                self.deeper(start)?;
                self.pos += 1;
                let g = self.expr(st)?;
                if self.peek() != Some(')') {
                    return Err(self.err("expected `)`"));
                }
                self.pos += 1;
                self.depth -= 1;
                Ok(g)
            }
            '{' => {
                self.deeper(start)?;
                let close = self.matching(start)?;
                let g = self.braced(st, start, start + 1, close)?;
                self.pos = close + 1;
                self.depth -= 1;
                Ok(g)
            }
            c => Err(self.err(format!("unexpected `{c}`"))),
        }
    }

    /// The index of the `}` that closes the `{` at `open`.
    fn matching(&self, open: usize) -> Result<usize, ParseGameError> {
        let mut depth = 0usize;
        for i in open..self.end {
            match self.s[i] {
                '{' | '(' => depth += 1,
                '}' | ')' => {
                    depth -= 1;
                    if depth == 0 {
                        if self.s[i] != '}' {
                            break;
                        }
                        return Ok(i);
                    }
                }
                _ => {}
            }
        }
        Err(ParseGameError {
            position: open,
            message: "this `{` is not closed".into(),
        })
    }

    /// The game whose options are written in `s[from..to]` (inside the braces opened at
    /// `open`, or a side of bars nested in them).
    fn braced(
        &mut self,
        st: &mut Store,
        open: usize,
        from: usize,
        to: usize,
    ) -> Result<GameId, ParseGameError> {
        // Runs of bars at depth 0: (start, length).
        let mut runs: Vec<(usize, usize)> = Vec::new();
        let mut depth = 0usize;
        let mut i = from;
        while i < to {
            match self.s[i] {
                '{' | '(' => depth += 1,
                '}' | ')' => depth = depth.saturating_sub(1),
                '|' if depth == 0 => {
                    let start = i;
                    while i < to && self.s[i] == '|' {
                        i += 1;
                    }
                    runs.push((start, i - start));
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
        let Some(most) = runs.iter().map(|r| r.1).max() else {
            // Only braces reach here without bars: a nested side has bars by definition.
            return Err(ParseGameError {
                position: open,
                message: "a game in braces needs a `|` between Left's and Right's options".into(),
            });
        };
        let tops: Vec<&(usize, usize)> = runs.iter().filter(|r| r.1 == most).collect();
        if tops.len() > 1 {
            return Err(ParseGameError {
                position: tops[1].0,
                message: format!(
                    "two separators of {most} bar(s) at the same level; nest with more bars or braces"
                ),
            });
        }
        let (bar, len) = *tops[0];
        let left = self.side(st, open, from, bar, runs.iter().any(|r| r.0 < bar))?;
        let right = self.side(st, open, bar + len, to, runs.iter().any(|r| r.0 > bar))?;
        Ok(st.game(&left, &right))
    }

    /// Options written in `s[from..to]`: comma-separated, or one nested game if it has bars.
    fn side(
        &mut self,
        st: &mut Store,
        open: usize,
        from: usize,
        to: usize,
        nested: bool,
    ) -> Result<Vec<GameId>, ParseGameError> {
        if nested {
            self.deeper(from)?;
            let g = self.braced(st, open, from, to)?;
            self.depth -= 1;
            return Ok(vec![g]);
        }
        let mut out = Vec::new();
        if self.s[from..to].iter().all(|c| c.is_whitespace()) {
            return Ok(out);
        }
        let mut sub = Parser {
            s: self.s,
            pos: from,
            end: to,
            depth: self.depth,
        };
        loop {
            out.push(sub.expr(st)?);
            match sub.peek() {
                Some(',') => sub.pos += 1,
                None => return Ok(out),
                Some(c) => return Err(sub.err(format!("unexpected `{c}` in a list of options"))),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(s: &mut Store, text: &str) -> String {
        let g = s.parse(text).unwrap();
        s.show(g)
    }

    #[test]
    fn the_algebra_vectors() {
        let mut s = Store::new();
        assert_eq!(round(&mut s, "{0|1}"), "1/2");
        assert_eq!(round(&mut s, "{0|1/2}"), "1/4");
        assert_eq!(round(&mut s, "{0|1/4}"), "1/8");
        assert_eq!(round(&mut s, "1/4 + 1/8"), "3/8");
        assert_eq!(round(&mut s, "{1/4|1}"), "1/2");
        assert_eq!(round(&mut s, "* + *"), "0");
        assert_eq!(round(&mut s, "{3/4|3/4}"), "3/4*");
        assert_eq!(round(&mut s, "*1 + *3 + *2"), "0");
        assert_eq!(round(&mut s, "{-2,-1,0|2,3}"), "1");
        assert_eq!(round(&mut s, "{0|2}"), "1");
        assert_eq!(round(&mut s, "{1/2|2}"), "1");
        assert_eq!(round(&mut s, "{3/4|7/8}"), "13/16");
        assert_eq!(round(&mut s, "{1,2|}"), "3");
        assert_eq!(round(&mut s, "{42|*}"), "{42|*}");
        assert_eq!(round(&mut s, "{0,*,*2|0,*,*2}"), "*3");
        assert_eq!(round(&mut s, "{1|0}+{0|1}"), "{3/2|1/2}");
        assert_eq!(round(&mut s, "-{^|*}"), "v[2]");
        assert_eq!(round(&mut s, "{*|v}"), "v[2]");
        assert_eq!(round(&mut s, "*4 - *4"), "0");
        assert_eq!(round(&mut s, "-*4"), "*4");
        assert_eq!(round(&mut s, "{0|*||*|||*||||*}"), "^[4]");
        assert_eq!(round(&mut s, "{3||2*|1*}"), "{3||2*|1*}");
        assert_eq!(round(&mut s, "{0,^*|0}"), "^[2]*");
        assert_eq!(round(&mut s, "1/2 + {3/2|-3/2}"), "{2|-1}");
        assert_eq!(round(&mut s, "±1"), "{1|-1}");
        assert_eq!(round(&mut s, "↑ + ↑"), "^^");
        assert_eq!(round(&mut s, "3/4v[3]*"), "3/4v[3]*");
        assert_eq!(round(&mut s, "-2v"), "-2v");
        assert_eq!(round(&mut s, "-2 - v"), "-2^");
        assert_eq!(round(&mut s, "-(2v)"), "-2^");
    }

    #[test]
    fn order_and_outcomes() {
        use crate::truth::cgt::{Comparison, Outcome};
        let mut s = Store::new();
        let mut cmp = |a: &str, b: &str| {
            let (x, y) = (s.parse(a).unwrap(), s.parse(b).unwrap());
            s.compare(x, y)
        };
        assert_eq!(cmp("0", "*"), Comparison::Confused);
        assert_eq!(cmp("*2", "*"), Comparison::Confused);
        assert_eq!(cmp("-1", "*"), Comparison::Less);
        assert_eq!(cmp("1", "*"), Comparison::Greater);
        assert_eq!(cmp("1", "2"), Comparison::Less);
        let mut out = |a: &str| {
            let g = s.parse(a).unwrap();
            s.outcome(g)
        };
        assert_eq!(out("0"), Outcome::P);
        assert_eq!(out("5"), Outcome::L);
        assert_eq!(out("-1/2"), Outcome::R);
        assert_eq!(out("*8"), Outcome::N);
        assert_eq!(out("^"), Outcome::L);
        assert_eq!(out("v*"), Outcome::N);
        assert_eq!(out("{0|*||*|||*||||*}"), Outcome::L);
    }

    /// Nesting, length and counts are bounded before any game is built (43,000 nested braces
    /// overflowed the stack).
    #[test]
    fn the_bounds() {
        let mut s = Store::new();
        let nested = |n: usize| format!("{}{}", "{".repeat(n), "|}".repeat(n));
        assert_eq!(round(&mut s, &nested(MAX_NESTING)), "199");
        let e = s.parse(&nested(MAX_NESTING + 1)).unwrap_err();
        assert!(e.message.contains("nests more than 200 deep"), "{e}");
        assert_eq!(e.position, MAX_NESTING);
        let e = s.parse(&nested(33_000)).unwrap_err();
        assert!(e.message.contains("nests more than"), "{e}");
        let e = s
            .parse(&format!("{}1", "±".repeat(MAX_NESTING + 1)))
            .unwrap_err();
        assert!(e.message.contains("nests more than"), "{e}");
        let parens = |n: usize| format!("{}1{}", "(".repeat(n), ")".repeat(n));
        assert_eq!(round(&mut s, &parens(MAX_NESTING)), "1");
        assert!(s.parse(&parens(MAX_NESTING + 1)).is_err());
        // Levels of bars nest too: {0|*||*|||*…}.
        let bars = |n: usize| {
            let mut t = String::from("{0");
            for k in 1..=n {
                t.push_str(&"|".repeat(k));
                t.push('*');
            }
            t + "}"
        };
        assert_eq!(round(&mut s, &bars(6)), "^[6]");
        assert!(s.parse(&bars(MAX_NESTING)).is_ok());
        let e = s.parse(&bars(MAX_NESTING + 1)).unwrap_err();
        assert!(e.message.contains("nests more than"), "{e}");
        let e = s.parse(&"1".repeat(MAX_CHARS + 1)).unwrap_err();
        assert!(e.message.contains("at most 100000"), "{e}");
        assert_eq!(round(&mut s, &"^".repeat(64)), "^64");
        let e = s.parse(&"v".repeat(65)).unwrap_err();
        assert!(e.message.contains("up to 64"), "{e}");
    }

    #[test]
    fn errors_say_where() {
        let mut s = Store::new();
        let e = s.parse("{0|1").unwrap_err();
        assert_eq!(e.position, 0);
        // The brace without its bar, not the character after it.
        let e = s.parse("{{0|}}").unwrap_err();
        assert_eq!(e.position, 0, "{e}");
        let e = s.parse("{0|{1}}").unwrap_err();
        assert_eq!(e.position, 3, "{e}");
        let e = s.parse("1/3").unwrap_err();
        assert!(e.message.contains("power of two"), "{e}");
        let e = s.parse("{0|1|2}").unwrap_err();
        assert!(e.message.contains("two separators"), "{e}");
        let e = s.parse("1 + q").unwrap_err();
        assert_eq!(e.position, 4);
        for big in [
            "*99999999999999999999",
            "^18446744073709551615",
            "^[9223372036854775808]",
            "v99999",
        ] {
            let e = s.parse(big).unwrap_err();
            assert!(e.message.contains("supported"), "{big}: {e}");
        }
    }
}
