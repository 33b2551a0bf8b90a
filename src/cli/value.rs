//! `solvedgym value`: a combinatorial game typed in CGSuite's notation, evaluated.

use std::io::Write;

use anyhow::Result;

use super::output::Json;

/// Evaluate a combinatorial game typed in CGSuite's notation: its canonical form, who
/// wins, stops, mean and temperature.
#[derive(clap::Args)]
#[command(
    after_help = "Notation: numbers 3, -1/2, 0.375; nimbers *, *2; ups ^, ^^, ^3, v, \
v3, ^[2] (up-sub-2), ^<2> (up-squared); games {L | R} with comma-separated options, more bars \
nesting ({3||2*|1*} = {3 | {2*|1*}}); sums and differences with + and -; juxtaposition adds \
(1*, 3/4v[3]*); ±x = {x | -x}.\n\
Bounds: at most 100,000 characters, nested at most 200 deep (braces, parentheses, ± and levels \
of bars together); nimbers up to *256, ups and uptimal indices up to 64; the work on the game \
at most 10,000,000 steps (comparisons and canonical forms, about 1.5 GB) and its printed \
canonical form at most 1,000,000 characters. Past a bound the expression is refused, saying \
which.\n\
Examples: solvedgym value \"{0|1} + *\"\n          solvedgym value \"{3||2*|1*}\" --json",
    mut_arg("json", |a| a.help("Print the analysis as one JSON object")),
)]
pub struct Args {
    /// The expression, e.g. "{0|1} + *".
    #[arg(allow_hyphen_values = true)]
    expression: String,
    #[command(flatten)]
    output: Json,
}

pub fn exec(args: Args) -> Result<()> {
    let expression = args.expression;
    let a = solvedgym::truth::cgt::analyse(&expression).map_err(|e| {
        let shown = solvedgym::io::text::abbreviated(&expression, 60);
        anyhow::anyhow!("{shown}: {e}")
    })?;
    let mut stdout = std::io::stdout().lock();
    if args.output.json {
        writeln!(stdout, "{}", serde_json::to_string(&a)?)?;
    } else {
        write!(stdout, "{a}")?;
    }
    Ok(())
}
