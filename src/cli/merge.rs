//! `solvedgym merge`: the shards of `run --shard K/N` combined into the study's outputs.

use std::path::PathBuf;

use anyhow::Result;

use super::output::{Output, print_summaries};

/// Combine the folders of `run FILE --shard K/N` (all N of them) into the study's outputs,
/// the same bytes as one uninterrupted run on one machine.
#[derive(clap::Args)]
#[command(
    after_help = help(),
    mut_arg("quiet", |a| a.help(
        "Print nothing on stderr (it solves each game again, for the summaries)"
    )),
    mut_arg("json", |a| a.help(
        "Print the summary (the same as summary.json) as JSON instead of a table"
    )),
)]
pub struct Args {
    /// Each shard's output folder (what its `run --shard K/N` got as --out).
    #[arg(required = true, value_name = "DIR")]
    shards: Vec<PathBuf>,
    /// Folder for the results (default: notebooks-data/), as for `run`.
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    output: Output,
    /// Also write curves.csv, as `run --csv` does.
    #[arg(long)]
    csv: bool,
}

pub fn exec(args: Args) -> Result<()> {
    let out = args.out.unwrap_or_else(|| PathBuf::from("notebooks-data"));
    let options = solvedgym::experiment::RunOptions {
        progress: args.output.progress(),
        csv: args.csv,
        ..Default::default()
    };
    let summaries = solvedgym::experiment::merge(&args.shards, &out, &options)?;
    print_summaries(&summaries, args.output.json())
}

fn help() -> String {
    "\
Each shard stores its runs in <its --out>/<name>/runs/; merge checks that the folders hold runs of
one config (the same config hash), each run once and none missing, copies them into
<out>/<name>/runs/ and writes the outputs as `run` does, then removes that copy. Shard folders are
left as they are. Gather them first onto one machine (a shared file system, or rsync).

Examples:
  solvedgym run experiments/her-gardner.toml --shard 1/2 --out shards/1   # machine A
  solvedgym run experiments/her-gardner.toml --shard 2/2 --out shards/2   # machine B
  solvedgym merge shards/1 shards/2 --out notebooks-data
The full walk-through, with a Slurm job array and GNU parallel: docs/cluster.md"
        .to_string()
}
