//! `solvedgym evaluate`: a saved agent evaluated again, exactly, without training.

use std::path::PathBuf;

use anyhow::Result;

use super::output::Output;

/// Evaluate a saved agent again, without training: the figures its run recorded at its end,
/// made again from the agent file alone.
#[derive(clap::Args)]
#[command(after_help = help())]
pub struct Args {
    /// An agent a run saved (`<run folder>/agents/*.parquet`).
    #[arg(value_name = "AGENT")]
    agent: PathBuf,
    #[command(flatten)]
    output: Output,
}

pub fn exec(args: Args) -> Result<()> {
    let evaluation = solvedgym::experiment::evaluate_agent(&args.agent, args.output.progress())?;
    if args.output.json() {
        println!("{}", serde_json::to_string_pretty(&evaluation)?);
        return Ok(());
    }
    let a = &evaluation.agent;
    println!(
        "{} ({}) on {} {}: trained as {}",
        a.label,
        a.kind,
        a.game,
        a.game_params,
        a.seats.join(" and ")
    );
    if let Some(o) = &a.origin {
        println!(
            "  run {}, against {}, seed {}, {} episodes (config hash {})",
            o.run, o.opponent, o.seed, o.episodes, o.config_hash
        );
    }
    let width = evaluation
        .metrics
        .iter()
        .map(|(m, _)| m.len())
        .max()
        .unwrap_or(0);
    for (metric, value) in &evaluation.metrics {
        println!("  {metric:<width$}  {value}");
    }
    Ok(())
}

fn help() -> String {
    "\
The agent keeps its run's config (every default filled in), the condition and the seed: the game is
solved again and the agent evaluated exactly as the run evaluated it at its end, so each figure
equals the run's last row of curves.parquet for that learner, opponent and seed. A frozen-copy
opponent is played by a copy of the agent itself. An agent of another format version, or whose
config reads to another hash, is refused.

Examples:
  solvedgym run tests/data/tiny.toml --out runs
  solvedgym evaluate runs/tiny/agents/her--optimal--seed-0.parquet
  solvedgym evaluate runs/tiny/agents/her--optimal--seed-0.parquet --json
The format and what reads it: docs/agents.md"
        .to_string()
}
