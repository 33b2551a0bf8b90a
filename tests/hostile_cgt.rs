//! Hostile input on the combinatorial-game surfaces: `solvedgym value EXPR` (CGSuite's
//! notation) and `solvedgym solve hackenbush` (graph strings, random positions). Each case must
//! end with a clear error naming the bound it passed (exit code 1) or a correct answer, within
//! the harness's time bound and memory limit (`tests/common/hostile.rs`); never a panic, an
//! abort or a stack overflow. The parsers are also fed arbitrary strings as library calls.
//! (An argument is at most 128 KiB on Linux, so the longest inputs here are just below.)

mod common;

use common::hostile::{Case, Expect, case, folder, run_all};
use proptest::prelude::*;
use solvedgym::games::hackenbush::graph::Graph;
use solvedgym::truth::cgt::{Limits, analyse_within};

fn value(expr: &str, expect: Expect) -> Case {
    case(&["value", expr], expect)
}

fn position(text: &str, expect: Expect) -> Case {
    case(&["solve", "hackenbush", "--position", text], expect)
}

fn random(args: &[&str], expect: Expect) -> Case {
    let mut all = vec!["solve", "hackenbush"];
    all.extend_from_slice(args);
    case(&all, expect)
}

/// `n` nested braces around nothing: {{{…{|}…|}|}|} is the number n − 1 ({|} = 0, {n|} = n + 1).
fn nested_integers(n: usize) -> String {
    format!("{}{}", "{".repeat(n), "|}".repeat(n))
}

/// {0|*||*|||*…} with `n` levels of bars: ↑^[n] ({0|*} = ↑, {↑^[k] | *} = ↑^[k+1]).
fn bars(n: usize) -> String {
    let mut s = String::from("{0");
    for k in 1..=n {
        s.push_str(&"|".repeat(k));
        s.push('*');
    }
    s.push('}');
    s
}

#[test]
fn value_expressions() {
    use Expect::{Answer, Refused};
    let dir = folder("cgt-value", &[]);
    let deep = |n: usize| nested_integers(n);
    let mut cases = vec![
        // Deep nesting: answered up to the bound, refused past it (43,000 overflowed the stack).
        value(&deep(1), Answer("= 0\n")),
        value(&deep(10), Answer("= 9\n")),
        value(&deep(100), Answer("= 99\n")),
        value(&deep(200), Answer("= 199\n")),
        value(&deep(201), Refused("nests more than 200 deep")),
        value(&deep(1000), Refused("nests more than 200 deep")),
        value(&deep(33_000), Refused("nests more than 200 deep")),
        // 43,000 braces (129,000 characters) overflowed the stack; now the length is refused.
        value(
            &deep(43_000),
            Refused("129000 characters long; at most 100000 are read"),
        ),
        value(
            &"{".repeat(43_000),
            Refused("at character 1: this `{` is not closed"),
        ),
        value(
            &format!("{}1{}", "(".repeat(150), ")".repeat(150)),
            Answer("= 1\n"),
        ),
        value(
            &format!("{}1{}", "(".repeat(201), ")".repeat(201)),
            Refused("nests more than 200 deep"),
        ),
        value(
            &format!("{}1", "±".repeat(300)),
            Refused("nests more than 200 deep"),
        ),
        value(&bars(4), Answer("= ^[4]\n")),
        value(&bars(20), Answer("= ^[20]\n")),
        value(&bars(201), Refused("nests more than 200 deep")),
        // Known values (Winning Ways; Siegel): nimbers add by XOR, G + (-G) = 0.
        value("*256 + *256", Answer("= 0\n")),
        value("*1 + *3 + *2", Answer("= 0\n")),
        value("*2 + *3", Answer("= *\n")),
        value("*256", Answer("= *256\n")),
        value("^ + ^", Answer("= ^^\n")),
        value("^ - ^", Answer("= 0\n")),
        value("^[2] + v[2]", Answer("= 0\n")),
        value("^64", Answer("= ^64\n")),
        value(&"^".repeat(64), Answer("= ^64\n")),
        value("↑↑", Answer("= ^^\n")),
        value("⇑ + ⇓", Answer("= 0\n")),
        value("{1|-1} + {1|-1}", Answer("= 0\n")),
        value("±1", Answer("= {1|-1}\n")),
        value("{3||2*|1*}", Answer("mean 9/4, temperature 3/4")),
        value("1/2 + 1/2", Answer("= 1\n")),
        value("−1", Answer("= -1\n")),
        value("{|}", Answer("= 0\n")),
        value("{ | }", Answer("= 0\n")),
        value("{0|1}", Answer("= 1/2\n")),
        // Huge numbers are exact.
        value(
            "999999999999999999999999",
            Answer("= 999999999999999999999999\n"),
        ),
        value(
            "{999999999999999999999999|}",
            Answer("= 1000000000000000000000000\n"),
        ),
        value(
            "-999999999999999999999999 - 1",
            Answer("= -1000000000000000000000000\n"),
        ),
        value(
            "18446744073709551616 + 1",
            Answer("= 18446744073709551617\n"),
        ),
        value(
            "-9223372036854775808 - 1",
            Answer("= -9223372036854775809\n"),
        ),
        value(
            "1/1208925819614629174706176",
            Answer("= 1/1208925819614629174706176\n"),
        ),
        value(
            "999999999999999999999999 + *",
            Answer("= 999999999999999999999999*\n"),
        ),
        // Counts past the bounds the notation states.
        value("^<99999999999>", Refused("uptimals up to 64")),
        value("^<65>", Refused("uptimals up to 64")),
        value("^[65]", Refused("uptimals up to 64")),
        value("*18446744073709551616", Refused("nimbers up to 256")),
        value("*257", Refused("nimbers up to 256")),
        value("^65", Refused("multiples of up up to 64")),
        value(&"^".repeat(65), Refused("multiples of up up to 64")),
        value(&"v".repeat(100_000), Refused("multiples of up up to 64")),
        value("^<0>", Refused("not defined")),
        value("v[0]", Refused("not defined")),
        // Work past the bounds: refused with the numbers, not 2.6 GB and 600 s.
        value("^<64> + *256", Refused("the limit is 10000000")),
        // Empty, whitespace, garbage, unicode.
        value("", Refused("empty")),
        value("   ", Refused("empty")),
        value("\t\n", Refused("empty")),
        value("abc", Refused("unexpected `a`")),
        value("💥", Refused("unexpected `💥`")),
        value("１", Refused("unexpected `１`")),
        value("±", Refused("expected a game")),
        value("1 +", Refused("expected a game")),
        value("1/3", Refused("power of two")),
        value("0.1", Refused("not dyadic")),
        value("1/0", Refused("power of two")),
        value("1..2", Refused("dyadic")),
        value("*-1", Answer("= -1*\n")),
        value("*256 + *255", Answer("= *511\n")),
        value("^[", Refused("expected a number")),
        value("^[2", Refused("expected `]`")),
        // Unbalanced braces and bars; the brace without its bar is named (item 5).
        value("{", Refused("not closed")),
        value("}", Refused("unexpected `}`")),
        value("{0|1}}", Refused("unexpected `}`")),
        value("{0|1", Refused("at character 1: this `{` is not closed")),
        value(
            "{{0|}}",
            Refused("at character 1: a game in braces needs a `|`"),
        ),
        value(
            "{0|{1}}",
            Refused("at character 4: a game in braces needs a `|`"),
        ),
        value("(1", Refused("expected `)`")),
        value("{0|1)", Refused("not closed")),
        value("{0|1|2}", Refused("two separators")),
        value("{0,|1}", Refused("expected a game")),
        // Very long strings: answered up to the bound, refused past it.
        value(&format!("{}1", "1+".repeat(40_000)), Answer("= 40001\n")),
        value(&format!("{}*", "*+".repeat(49_999)), Answer("= 0\n")),
        value(&format!("{}*", "*+".repeat(49_998)), Answer("= *\n")),
        value(&"1".repeat(100_001), Refused("at most 100000 are read")),
        value(&" ".repeat(100_001), Refused("at most 100000 are read")),
    ];
    // Nested switches {{{…{1|-1}|-1}…|-1}, 24 deep (2.2 GB and no answer in 60 s before).
    let mut switch = String::from("{1|-1}");
    for _ in 0..24 {
        switch = format!("{{{switch}|-1}}");
    }
    cases.push(value(&switch, Answer("outcome")));
    // A sum of 24 switches, {1|-1} + {2|-2} + … (2.2 GB and no answer in 60 s before): its
    // canonical form doubles with each switch.
    let switches: Vec<String> = (1..=24).map(|i| format!("{{{i}|-{i}}}")).collect();
    cases.push(value(
        &switches.join("+"),
        Refused("more than 1000000 characters (the limit is 1000000)"),
    ));
    cases.push(value(&switches[..3].join(" + "), Answer("temperature 3")));
    cases.push(value(
        &format!("{}+{}", switches[0], switches[0]),
        Answer("= 0\n"),
    ));
    run_all(cases, &dir);
}

#[test]
fn hackenbush_positions() {
    use Expect::{Answer, Refused};
    let dir = folder("cgt-hackenbush", &[]);
    let cycle = |letters: &str, n: usize| format!(":A{}:A", letters.repeat(n));
    let cases = vec![
        // The issue's inputs: a 51-edge hotchpotch cycle (4.8 GB, abort), 40 random edges
        // (exponential, silent), 129,000-character cycles (quadratic growth).
        position(
            ":Alrelrelrelrelrelrelrelrelrelrelrelrelrelrelrelrelre:A",
            Refused("has 51 edges with mixed colours or blue-red cycles"),
        ),
        random(
            &[
                "--random",
                "1",
                "--edges",
                "40",
                "--family",
                "graphs",
                "--palette",
                "all",
            ],
            Refused("the exact method takes at most 32"),
        ),
        position(
            &cycle("lre", 43_000),
            Refused("a position has at most 16384"),
        ),
        position(
            &cycle("l", 129_000),
            Refused("a position has at most 16384"),
        ),
        // Single-colour parts of any size up to the bound are counted, not searched.
        position(&cycle("l", 16_000), Answer("value 16000 ")),
        position(&cycle("r", 16_000), Answer("value -16000 ")),
        position(&cycle("l", 33), Answer("value 33 ")),
        position(&cycle("l", 20), Answer("value 20 ")),
        // Long stalks: blue-red by the sign expansion, green by the colon principle.
        position(&"l".repeat(16_384), Answer("value 16384 ")),
        position(&"e".repeat(4096), Answer("value *4096 ")),
        position(&"e".repeat(16_384), Refused("builds nimbers up to *4096")),
        position(&format!("({})", "e;".repeat(16_384)), Answer("value 0 ")),
        position(&"lr".repeat(8_192), Answer("(outcome L")),
        position(
            &"l".repeat(16_385),
            Refused("it has 16385 edge letters (l, r, e); a position has at most 16384 edges"),
        ),
        position(
            &"lr".repeat(50_000),
            Refused("a position has at most 16384"),
        ),
        // Hotchpotch stalks: small ones answered, long ones refused up front.
        position(&"lre".repeat(5), Answer("(15 edges)")),
        position(&"lre".repeat(20), Refused("has 60 edges")),
        position(&"lre".repeat(5_000), Refused("has 15000 edges")),
        // Known values (the paper, CGSuite's vectors).
        position("lrlerrr", Answer("value 3/4v[3]*")),
        position("fig3a", Answer("value 1 ")),
        position("fig5c", Answer("value 0 ")),
        position("(e;e)", Answer("value 0 ")),
        position(":Alrl:A", Answer("(3 edges)")),
        position(".", Answer("value 0 ")),
        position("", Answer("value 0 ")),
        // Deep branch groups are read without recursion.
        position(
            &format!("{}{}", "l(".repeat(16_000), ")".repeat(16_000)),
            Answer("value 16000 "),
        ),
        position(
            &format!("{}{}", "(".repeat(43_000), ")".repeat(43_000)),
            Answer("value 0 "),
        ),
        position(&"(".repeat(43_000), Refused("unclosed '('")),
        // Bad graph strings.
        position(")", Refused("unmatched ')'")),
        position("l(l;r", Refused("unclosed '('")),
        position(":", Refused("must be followed by a vertex name")),
        position(":{", Refused("unclosed '{'")),
        position(":{}", Refused("empty vertex name")),
        position(
            &format!(":{{{}", "a".repeat(100_000)),
            Refused("unclosed '{'"),
        ),
        position("x", Refused("unexpected 'x'")),
        position("L", Refused("unexpected 'L'")),
        position("-", Refused("unlabelled edge")),
        position("ℓ", Refused("unexpected 'ℓ'")),
        position("l;r", Refused("outside parentheses")),
        position("(l)r", Refused("after ')'")),
        position("l::A", Refused("not a vertex name")),
        position(&"x".repeat(130_000), Refused("130,000 characters")),
        // Random positions: the bounds of the parameters, and sizes either side of the method's.
        random(
            &["--random", "1", "--edges", "0"],
            Refused("1 to 4096 edges"),
        ),
        random(
            &["--random", "1", "--edges", "5000"],
            Refused("1 to 4096 edges"),
        ),
        random(
            &["--random", "255"],
            Refused("at most 254 random positions"),
        ),
        random(
            &[
                "--random",
                "1",
                "--edges",
                "4096",
                "--family",
                "graphs",
                "--palette",
                "all",
            ],
            Refused("the exact method takes at most 32"),
        ),
        random(
            &[
                "--random",
                "1",
                "--edges",
                "40",
                "--family",
                "graphs",
                "--palette",
                "blue-red",
            ],
            Refused("the exact method takes at most 32"),
        ),
        random(
            &[
                "--random",
                "1",
                "--edges",
                "4096",
                "--family",
                "stalks",
                "--palette",
                "blue-red",
            ],
            Answer("(4096 edges)"),
        ),
        random(
            &[
                "--random",
                "1",
                "--edges",
                "4096",
                "--family",
                "graphs",
                "--palette",
                "green",
            ],
            Answer("(4096 edges)"),
        ),
        random(
            &[
                "--random",
                "3",
                "--edges",
                "20",
                "--family",
                "trees",
                "--palette",
                "all",
            ],
            Answer("(20 edges)"),
        ),
        // The childish rule values every part by the definition.
        case(
            &[
                "solve",
                "hackenbush",
                "--position",
                &"l".repeat(40),
                "--param",
                "childish=true",
            ],
            Refused("under the childish rule"),
        ),
        case(
            &[
                "solve",
                "hackenbush",
                "--position",
                &"l".repeat(12),
                "--param",
                "childish=true",
            ],
            Answer("value 12 "),
        ),
    ];
    run_all(cases, &dir);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// The value reader never panics: it reads a game or says where it cannot (small limits
    /// keep each case quick).
    #[test]
    fn value_expressions_never_panic(
        text in prop_oneof![
            "[-+*^v{}|(),./0-9 ±↑↓⇑⇓<>\\[\\]]{0,60}",
            any::<String>(),
        ]
    ) {
        let limits = Limits { work: 50_000, printed: 20_000, nimber: 512 };
        let _ = analyse_within(&text, limits);
    }

    /// The graph-string reader never panics, and what it reads writes back to its normal form.
    #[test]
    fn graph_strings_never_panic(
        text in prop_oneof![
            "[lre();:.{}A-Ca-c0-9 -]{0,80}",
            any::<String>(),
        ]
    ) {
        if let Ok(g) = Graph::parse(&text) {
            prop_assert_eq!(Graph::parse(&g.to_cgsuite()), Ok(g.normal_form()));
        }
    }
}
