//! The `solvedgym` command line: solve games exactly, run experiments from TOML configs, play
//! against the solver. This file parses and dispatches; each command is a module of [`cli`].

mod cli;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "solvedgym",
    version,
    about = "Reinforcement learning on small board games that are solved exactly",
    long_about = "Learners play games; an exact solver knows the truth; the toolkit shows how \
close learning gets.\n\nStart with:\n  solvedgym solve hexapawn            \
# every position of Gardner's Hexapawn, solved\n  solvedgym run experiments/her-gardner.toml  \
# Gardner's matchbox learner, many machines\n  solvedgym play tictactoe --as o     # play against perfect play"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// The most memory a command's work may take, e.g. 12G, 500M or 1.5GiB (default: what the
    /// machine has available, within `ulimit -v`); work that needs more is refused with the
    /// numbers before it allocates
    #[arg(long, global = true, value_name = "SIZE", value_parser = solvedgym::io::memory::parse_size)]
    max_memory: Option<u64>,
}

/// The commands in the order `solvedgym --help` lists them; each one's help is its `Args`.
#[derive(Subcommand)]
enum Command {
    Solve(cli::solve::Args),
    Run(cli::run::Args),
    Merge(cli::merge::Args),
    Evaluate(cli::evaluate::Args),
    Play(cli::play::Args),
    Moves(cli::moves::Args),
    Stats(cli::stats::Args),
    Tournament(cli::tournament::Args),
    Tune(cli::tune::Args),
    Fuzz(cli::fuzz::Args),
    Bench(cli::bench::Args),
    Value(cli::value::Args),
    Rate(cli::rate::Args),
    /// List the games and their parameters.
    Games,
}

fn main() {
    let parsed = negative_numbers(Cli::command())
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches));
    let command = match parsed {
        Ok(cli) => {
            if let Some(bytes) = cli.max_memory {
                solvedgym::io::memory::set_limit(bytes);
            }
            cli.command
        }
        Err(e) => match cli::parse::refusal(&e) {
            Some(refused) => fail(anyhow::anyhow!("{refused}")),
            None => e.exit(),
        },
    };
    // The commands run on a thread with a large stack: the exact methods recurse over games
    // (canonical forms, comparisons, values), as deep as their bounds allow.
    let worker = std::thread::Builder::new()
        .name("solvedgym".into())
        .stack_size(STACK)
        .spawn(move || run(command));
    let result = match worker {
        Ok(handle) => handle
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        Err(e) => Err(anyhow::Error::from(e).context("starting the worker thread")),
    };
    if let Err(e) = result {
        fail(e);
    }
}

/// Lets every command take a negative number as an option's value (`--fuzz -0.5` is refused
/// as a probability out of range, not read as a flag `-0`).
fn negative_numbers(command: clap::Command) -> clap::Command {
    command
        .allow_negative_numbers(true)
        .mut_subcommands(negative_numbers)
}

/// The stack of the thread the commands run on (reserved, not used, unless recursion is deep).
const STACK: usize = 256 << 20;

fn run(command: Command) -> anyhow::Result<()> {
    match command {
        Command::Solve(args) => cli::solve::exec(args),
        Command::Run(args) => cli::run::exec(args),
        Command::Merge(args) => cli::merge::exec(args),
        Command::Evaluate(args) => cli::evaluate::exec(args),
        Command::Play(args) => cli::play::exec(args),
        Command::Moves(args) => cli::moves::exec(args),
        Command::Stats(args) => cli::stats::exec(args),
        Command::Tournament(args) => cli::tournament::exec(args),
        Command::Tune(args) => cli::tune::exec(args),
        Command::Fuzz(args) => cli::fuzz::exec(args),
        Command::Bench(args) => cli::bench::exec(args),
        Command::Value(args) => cli::value::exec(args),
        Command::Rate(args) => cli::rate::exec(args),
        Command::Games => cli::games::exec(),
    }
}

/// Reports `e` on stderr and exits with code 1; quietly with 0 where the reader of our output
/// has gone (`solvedgym ... | head`).
fn fail(e: anyhow::Error) -> ! {
    if e.downcast_ref::<std::io::Error>()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    {
        std::process::exit(0);
    }
    eprintln!("error: {e:#}");
    std::process::exit(1);
}
