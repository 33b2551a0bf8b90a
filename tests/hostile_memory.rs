//! The layered chase solver's memory, as the hostile campaign met it (issue 38, item 5): a board
//! too big for the budget is refused before its memory is taken, with the numbers (needed and
//! available), and the solver's estimate of its peak is an upper bound of the peak measured.
//!
//! A peak is measured in a process of its own: the test binary runs itself again with
//! [`CHILD`] set, and that process solves one board and reads its high-water mark of resident
//! memory (`VmHWM` in `/proc/self/status`, reset first through `/proc/self/clear_refs`).

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::solvedgym;
use solvedgym::games::chase::fast::{FastOptions, FastSolution};
use solvedgym::games::{Chase, Escape, FoxHoundsParams};

/// Set in the child process: which board it solves (see [`child_solves_one_board`]).
const CHILD: &str = "SOLVEDGYM_MEMORY_CHILD";

/// A figure of `/proc/self/status` in bytes (`VmRSS`, `VmHWM`).
fn status_bytes(key: &str) -> u64 {
    let text = std::fs::read_to_string("/proc/self/status").expect("Linux");
    let line = text
        .lines()
        .find(|l| l.starts_with(key))
        .unwrap_or_else(|| panic!("no {key}"));
    let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb * 1024
}

fn board(size: usize) -> Chase {
    Chase::fox_hounds(FoxHoundsParams {
        size,
        escape: Escape::Area,
    })
    .unwrap()
}

/// What the child process reports.
#[derive(Debug)]
struct Measured {
    /// The solver's estimate of its peak (`None`: refused).
    estimate: Option<u64>,
    /// The refusal's message.
    refusal: Option<String>,
    /// Resident memory the solve added at its peak.
    peak: u64,
}

/// Runs only in a child process: solves the board `SIZE,counts|no-counts,tables|no-tables[,LIMIT]`
/// (FoxBox tables with the tables, as `solve` computes them) under the memory limit LIMIT
/// (bytes; the limit `--max-memory` sets) and prints what it took.
#[test]
fn child_solves_one_board() {
    let Ok(case) = std::env::var(CHILD) else {
        return;
    };
    let parts: Vec<&str> = case.split(',').collect();
    let size: usize = parts[0].parse().unwrap();
    let options = FastOptions {
        foxbox: parts[2] == "tables",
        no_counts: parts[1] == "no-counts",
        no_tables: parts[2] == "no-tables",
    };
    // The thread pool and the allocator's arenas start before the measurement.
    FastSolution::solve(&board(4), FastOptions::default(), None).unwrap();
    if let Some(limit) = parts.get(3) {
        solvedgym::io::memory::set_limit(limit.parse().unwrap());
    }
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let before = status_bytes("VmRSS");
    let solved = FastSolution::solve(&board(size), options, None);
    let peak = status_bytes("VmHWM").saturating_sub(before);
    match solved {
        Ok(s) => println!("MEASURED estimate={} peak={peak}", s.memory_estimate()),
        Err(e) => println!("MEASURED refused={e} peak={peak}"),
    }
}

/// Solves `case` in a child process (see [`child_solves_one_board`]).
fn measure(case: &str) -> Measured {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child_solves_one_board", "--nocapture"])
        .env(CHILD, case)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{case}: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("MEASURED "))
        .unwrap_or_else(|| panic!("{case}: no measurement in {text}"));
    let (head, peak) = line.rsplit_once(" peak=").unwrap();
    Measured {
        estimate: head.strip_prefix("estimate=").map(|e| e.parse().unwrap()),
        refusal: head.strip_prefix("refused=").map(str::to_string),
        peak: peak.parse().unwrap(),
    }
}

#[test]
fn the_estimate_bounds_the_measured_peak() {
    for case in [
        "6,counts,tables",
        "6,no-counts,no-tables",
        "8,counts,tables",
        "8,counts,no-tables",
        "8,no-counts,no-tables",
        "10,no-counts,no-tables",
        "10,no-counts,tables",
    ] {
        let m = measure(case);
        let estimate = m.estimate.unwrap_or_else(|| panic!("{case}: {m:?}"));
        println!("{case}: estimate {estimate}, peak {}", m.peak);
        assert!(estimate >= m.peak, "{case}: {m:?}");
    }
}

/// 12x12 under a 3 GB limit: its index alone needs more, and the refusal comes at once, before
/// the index is allocated.
#[test]
fn a_big_board_is_refused_before_it_allocates() {
    let m = measure("12,no-counts,no-tables,3000000000");
    let refusal = m.refusal.as_deref().unwrap_or_else(|| panic!("{m:?}"));
    assert!(
        refusal.contains("Fox & Hounds 12x12's index of positions and reachability bitsets")
            && refusal.contains("needs about")
            && refusal.contains("the limit set by --max-memory is 3.0 GB"),
        "{refusal}"
    );
    assert!(m.peak < 50_000_000, "{m:?}");

    let started = Instant::now();
    let out = solvedgym(&[
        "solve",
        "fox-hounds",
        "--size",
        "12",
        "--no-counts",
        "--no-tables",
        "--max-memory",
        "3G",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(started.elapsed() < Duration::from_secs(10), "{err}");
    let needs = err
        .split("needs about ")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .unwrap_or_else(|| panic!("{err}"));
    let gb: f64 = needs.strip_suffix(" GB").unwrap().parse().unwrap();
    // The index (12 bytes a pawn set), two bitsets of a bit a position and their directories:
    // 156,238,908 sets of 6 hounds on 72 squares.
    let sets = 156_238_908f64;
    let bits = sets * 72.0 / 8.0;
    let least = (sets * 12.0 + 2.0 * bits * 1.25) / 1e9;
    assert!(gb >= least - 0.05 && gb < least + 1.0, "{gb} GB: {err}");
    assert!(
        err.contains("the limit set by --max-memory is 3.0 GB"),
        "{err}"
    );
}

/// 10x10 with its tables under 300 MB: the index fits, the tables do not. The refusal comes
/// once the reachable positions are counted, before the tables and the layers are allocated,
/// with the whole peak and its parts.
#[test]
fn tables_beyond_the_budget_are_refused_before_they_are_allocated() {
    let m = measure("10,counts,tables,300000000");
    let refusal = m.refusal.as_deref().unwrap_or_else(|| panic!("{m:?}"));
    for needle in [
        "solving Fox & Hounds 10x10 (69,575,678 reachable positions",
        "tables 348 MB",
        "needs about",
        "the limit set by --max-memory is 300 MB",
        "--no-tables (and --no-counts) solve with less",
    ] {
        assert!(refusal.contains(needle), "no {needle:?} in {refusal}");
    }
    assert!(m.peak < 300_000_000, "{m:?}");
}
