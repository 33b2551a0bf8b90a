//! Finished runs on disk, so that a study survives an interruption and can be split across
//! machines. Each run (one learner × opponent × seed of one game) is written to
//! `<run folder>/runs/run-NNNN.json` the moment it ends, through a temporary file and a rename,
//! beside a `manifest.json` that names the config (its hash, and the experiment file's text,
//! from which `merge` finishes a study). A later `run` of the same config reads the stored runs
//! instead of training them again. Values are stored as their IEEE 754 bits, so a reloaded run
//! is exactly the run that was stored and the outputs come out the same bytes.
//!
//! The folder is removed once the run's outputs are written: a finished run folder holds the
//! same files with or without this module.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use super::output::Curves;
use crate::io::files::write_atomic;

/// The folder of stored runs inside a run's output folder.
pub const RUNS_DIR: &str = "runs";
pub const MANIFEST: &str = "manifest.json";
/// The version of the files' layout; a store of another version is refused, not misread.
const FORMAT: u32 = 1;

/// What a store holds runs of.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Manifest {
    pub format: u32,
    /// The run's name, its folder below the output root (`study/label` for a game of a study).
    pub name: String,
    /// The fingerprint of the resolved config; runs of another one are never mixed in.
    pub config_hash: String,
    /// How many runs the config has (learners × opponents × seeds).
    pub runs: usize,
    /// The study's name: its folder below the output root (the run's own for one game).
    pub study: String,
    /// This game's place among the experiment file's games.
    pub game_index: usize,
    /// The experiment file as given on the command line, and its text (what `merge` runs).
    pub source_path: String,
    pub source: String,
    /// The shard that stored runs here last (`K/N`), if it was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
}

impl Manifest {
    pub fn new(
        name: &str,
        config_hash: &str,
        runs: usize,
        study: &str,
        game_index: usize,
        source_path: &Path,
        source: &str,
    ) -> Manifest {
        Manifest {
            format: FORMAT,
            name: name.to_string(),
            config_hash: config_hash.to_string(),
            runs,
            study: study.to_string(),
            game_index,
            source_path: source_path.display().to_string(),
            source: source.to_string(),
            shard: None,
        }
    }
}

/// One finished run as stored.
#[derive(Debug, Serialize, Deserialize)]
struct Record {
    format: u32,
    config_hash: String,
    run: usize,
    learner: String,
    opponent: String,
    seed: u64,
    losses: u64,
    last_loss: u64,
    perfect: bool,
    reached: [Option<u64>; 2],
    /// Every metric at the last evaluation: its name and the bits of its value.
    final_metrics: Vec<(String, u64)>,
    /// The names of the metrics in `rows`.
    metrics: Vec<String>,
    /// The curve rows in order: episode, index into `metrics`, bits of the value.
    rows: Vec<(u64, u32, u64)>,
}

/// What a trained (or reloaded) learner left behind: the unit this store saves and loads, so
/// it is defined beside the store (training makes one, the store keeps it bit for bit).
pub(super) struct RunResult {
    /// The first evaluation at which the greedy policy kept the value in 95% / 99% of the
    /// positions of optimal play.
    pub(super) reached: [Option<u64>; 2],
    pub(super) curves: Curves,
    pub(super) losses: u64,
    pub(super) last_loss: u64,
    pub(super) perfect: bool,
    pub(super) final_metrics: Vec<(String, f64)>,
}

/// What the summary reads of a run: everything but its curves, and its final metrics' values
/// without their names (a few hundred bytes, however long the run).
#[derive(Clone, Debug)]
pub(super) struct Outcome {
    pub(super) reached: [Option<u64>; 2],
    pub(super) losses: u64,
    pub(super) last_loss: u64,
    pub(super) perfect: bool,
    /// The values of [`RunResult::final_metrics`], in its order.
    pub(super) final_values: Vec<f64>,
}

impl RunResult {
    /// The run's outcome, and the names of its final metrics.
    pub(super) fn into_outcome(self) -> (Outcome, Vec<String>) {
        let (names, final_values) = self.final_metrics.into_iter().unzip();
        let outcome = Outcome {
            reached: self.reached,
            losses: self.losses,
            last_loss: self.last_loss,
            perfect: self.perfect,
            final_values,
        };
        (outcome, names)
    }
}

/// Who a run is: its learner's label, its opponent's name and its seed.
#[derive(Clone, Copy, Debug)]
pub struct RunId<'a> {
    pub run: usize,
    pub learner: &'a str,
    pub opponent: &'a str,
    pub seed: u64,
}

impl std::fmt::Display for RunId<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "run {} ({} vs {}, seed {})",
            self.run, self.learner, self.opponent, self.seed
        )
    }
}

/// The file of run `run`.
pub fn run_file(runs_dir: &Path, run: usize) -> PathBuf {
    runs_dir.join(format!("run-{run:04}.json"))
}

/// The folder of the stored runs' saved agents, inside the store.
pub const AGENTS_DIR: &str = "agents";

/// The saved agent of run `run` in the store `runs_dir` (written before the run is stored, so
/// a stored run has its agent).
pub fn agent_file(runs_dir: &Path, run: usize) -> PathBuf {
    runs_dir
        .join(AGENTS_DIR)
        .join(format!("run-{run:04}.parquet"))
}

/// The runs stored in `runs_dir`, by their file names.
pub fn stored_runs(runs_dir: &Path) -> Result<BTreeSet<usize>> {
    let mut runs = BTreeSet::new();
    let entries = match fs::read_dir(runs_dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(runs),
        Err(e) => return Err(e).with_context(|| format!("reading {}", runs_dir.display())),
    };
    for entry in entries {
        let entry = entry.with_context(|| format!("reading {}", runs_dir.display()))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some(n) = name
            .strip_prefix("run-")
            .and_then(|n| n.strip_suffix(".json"))
            .and_then(|n| n.parse().ok())
        {
            runs.insert(n);
        }
    }
    Ok(runs)
}

/// The manifest of the store in `runs_dir`, if there is one.
pub fn read_manifest(runs_dir: &Path) -> Result<Option<Manifest>> {
    let path = runs_dir.join(MANIFEST);
    let text = match fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let manifest: Manifest = serde_json::from_str(&text).with_context(|| {
        format!(
            "{}: not a manifest of stored runs (remove the folder to start over)",
            path.display()
        )
    })?;
    if manifest.format != FORMAT {
        bail!(
            "{}: stored runs of layout {} (this solvedgym reads {FORMAT}): rerun with --fresh",
            path.display(),
            manifest.format
        );
    }
    Ok(Some(manifest))
}

/// Stale temporary files of a killed writer (`.tmp-*` beside their targets), removed.
fn remove_temporaries(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(".tmp-")
            && entry.file_type().is_ok_and(|t| t.is_file())
        {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The stored runs of one run folder.
pub struct Store {
    dir: PathBuf,
    config_hash: String,
    manifest: String,
}

impl Store {
    /// Opens the store of the run folder `run_dir` for `manifest`'s config and returns it with
    /// the runs it already holds (nothing is written until [`Store::create`]). A store of
    /// another config is refused, unless `fresh`, which discards it.
    pub fn open(
        run_dir: &Path,
        manifest: &Manifest,
        fresh: bool,
    ) -> Result<(Store, BTreeSet<usize>)> {
        let dir = run_dir.join(RUNS_DIR);
        // What the store deletes and writes, checked before anything is: a link there would
        // have the final cleanup empty the folder it names.
        for folder in [
            run_dir,
            &dir,
            &dir.join(AGENTS_DIR),
            &run_dir.join(AGENTS_DIR),
        ] {
            crate::io::files::refuse_link(folder, true)?;
        }
        if fresh && dir.exists() {
            fs::remove_dir_all(&dir)
                .with_context(|| format!("--fresh: removing the stored runs {}", dir.display()))?;
        }
        let stored = match read_manifest(&dir)? {
            Some(old) if old.config_hash != manifest.config_hash => bail!(
                "{} holds finished runs of another config (hash {}, from {}); this config's hash \
                 is {}. Rerun with --fresh to discard them and start over, or give another --out",
                run_dir.display(),
                old.config_hash,
                old.source_path,
                manifest.config_hash
            ),
            Some(_) => stored_runs(&dir)?,
            None => {
                let stray = stored_runs(&dir)?;
                if !stray.is_empty() {
                    bail!(
                        "{} holds {} stored runs but no {MANIFEST} telling their config: remove \
                         the folder or rerun with --fresh",
                        dir.display(),
                        stray.len()
                    );
                }
                stray
            }
        };
        if let Some(&past) = stored.iter().find(|&&r| r >= manifest.runs) {
            bail!(
                "{}: run {past} is stored, but the config has {} runs (numbered from 0): the \
                 store is damaged; rerun with --fresh",
                dir.display(),
                manifest.runs
            );
        }
        remove_temporaries(&dir);
        remove_temporaries(run_dir);
        Ok((
            Store {
                dir,
                config_hash: manifest.config_hash.clone(),
                manifest: serde_json::to_string_pretty(manifest)? + "\n",
            },
            stored,
        ))
    }

    /// Creates the folder and writes the manifest, before the first run is stored: a config
    /// refused before training leaves nothing behind.
    pub fn create(&self) -> Result<()> {
        fs::create_dir_all(&self.dir)
            .with_context(|| format!("creating {}", self.dir.display()))?;
        write_atomic(&self.dir.join(MANIFEST), self.manifest.as_bytes())
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Removes the store once the outputs it served are written: the runs first and the
    /// manifest last, so that a kill on the way leaves a store a rerun resumes (it redoes the
    /// runs already removed), never runs without their manifest.
    pub fn remove(self) -> Result<()> {
        let context = || format!("removing the stored runs {}", self.dir.display());
        crate::io::files::refuse_link(&self.dir, true)?;
        let not_found = |e: &std::io::Error| e.kind() == std::io::ErrorKind::NotFound;
        let entries = match fs::read_dir(&self.dir) {
            Err(e) if not_found(&e) => return Ok(()),
            entries => entries.with_context(context)?,
        };
        for entry in entries {
            let entry = entry.with_context(context)?;
            if entry.file_name() == MANIFEST {
                continue;
            }
            let removed = if entry.file_type().is_ok_and(|t| t.is_dir()) {
                fs::remove_dir_all(entry.path())
            } else {
                fs::remove_file(entry.path())
            };
            match removed {
                Err(e) if !not_found(&e) => return Err(e).with_context(context),
                _ => {}
            }
        }
        match fs::remove_dir_all(&self.dir) {
            Err(e) if !not_found(&e) => Err(e).with_context(context),
            _ => Ok(()),
        }
    }

    /// Stores a finished run (atomically: a reader sees all of it or none).
    pub(super) fn save(&self, id: RunId, result: &RunResult) -> Result<()> {
        let mut metrics: Vec<String> = Vec::new();
        let mut rows = Vec::with_capacity(result.curves.len());
        for row in result.curves.rows() {
            let (episode, metric, value) = (row.episode, row.metric, row.value);
            let index = match metrics.iter().position(|m| m == metric) {
                Some(i) => i,
                None => {
                    metrics.push(metric.to_string());
                    metrics.len() - 1
                }
            };
            rows.push((episode, index as u32, value.to_bits()));
        }
        let record = Record {
            format: FORMAT,
            config_hash: self.config_hash.clone(),
            run: id.run,
            learner: id.learner.to_string(),
            opponent: id.opponent.to_string(),
            seed: id.seed,
            losses: result.losses,
            last_loss: result.last_loss,
            perfect: result.perfect,
            reached: result.reached,
            final_metrics: result
                .final_metrics
                .iter()
                .map(|(m, v)| (m.clone(), v.to_bits()))
                .collect(),
            metrics,
            rows,
        };
        let text = serde_json::to_string(&record)? + "\n";
        write_atomic(&run_file(&self.dir, id.run), text.as_bytes())
    }

    /// Reads back a stored run, checking it is the run `id` of this config.
    pub(super) fn load(&self, id: RunId) -> Result<RunResult> {
        load_run(&run_file(&self.dir, id.run), &self.config_hash, id)
    }
}

/// Reads the stored run at `path`, which must be run `id` of the config hashed `config_hash`.
pub(super) fn load_run(path: &Path, config_hash: &str, id: RunId) -> Result<RunResult> {
    let text = fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let damaged =
        |why: String| anyhow::anyhow!("{}: {why}; delete the file to run it again", path.display());
    let r: Record =
        serde_json::from_str(&text).map_err(|e| damaged(format!("not a stored run ({e})")))?;
    if r.format != FORMAT {
        return Err(damaged(format!("stored in layout {}", r.format)));
    }
    if r.config_hash != config_hash {
        return Err(damaged(format!(
            "a run of another config (hash {}, expected {config_hash})",
            r.config_hash
        )));
    }
    if (r.run, r.learner.as_str(), r.opponent.as_str(), r.seed)
        != (id.run, id.learner, id.opponent, id.seed)
    {
        return Err(damaged(format!(
            "holds run {} ({} vs {}, seed {}), expected {id}",
            r.run, r.learner, r.opponent, r.seed
        )));
    }
    let mut curves = Curves::default();
    for &(episode, metric, bits) in &r.rows {
        let metric = r
            .metrics
            .get(metric as usize)
            .ok_or_else(|| damaged(format!("a row names metric {metric}")))?;
        curves.push(
            id.learner,
            id.opponent,
            id.seed,
            episode,
            metric,
            f64::from_bits(bits),
        );
    }
    Ok(RunResult {
        reached: r.reached,
        curves,
        losses: r.losses,
        last_loss: r.last_loss,
        perfect: r.perfect,
        final_metrics: r
            .final_metrics
            .into_iter()
            .map(|(m, bits)| (m, f64::from_bits(bits)))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_run() -> RunResult {
        let mut curves = Curves::default();
        let odd = [
            0.1 + 0.2,
            f64::NAN,
            -0.0,
            f64::INFINITY,
            1e-310,
            f64::MIN_POSITIVE,
        ];
        for (i, v) in odd.iter().enumerate() {
            curves.push("Q", "self-play", 7, i as u64 * 10, "m", *v);
            curves.push("Q", "self-play", 7, i as u64 * 10, "n", -v);
        }
        RunResult {
            reached: [Some(20), None],
            curves,
            losses: 3,
            last_loss: 17,
            perfect: true,
            final_metrics: vec![("m".into(), f64::NAN), ("n".into(), 1.0 / 3.0)],
        }
    }

    fn bits(j: &RunResult) -> (Vec<u64>, Vec<u64>) {
        (
            j.curves.values().iter().map(|v| v.to_bits()).collect(),
            j.final_metrics.iter().map(|(_, v)| v.to_bits()).collect(),
        )
    }

    #[test]
    fn a_stored_run_reads_back_bit_for_bit() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = Manifest::new("t", "abc", 2, "t", 0, Path::new("t.toml"), "name = 't'");
        let (store, stored) = Store::open(dir.path(), &manifest, false).unwrap();
        assert!(stored.is_empty());
        assert!(
            !dir.path().join(RUNS_DIR).exists(),
            "nothing written before create"
        );
        store.create().unwrap();
        let id = RunId {
            run: 1,
            learner: "Q",
            opponent: "self-play",
            seed: 7,
        };
        let j = sample_run();
        store.save(id, &j).unwrap();
        let back = store.load(id).unwrap();
        assert_eq!(bits(&back), bits(&j));
        let fields = |c: &Curves| -> Vec<(String, String, u64, u64, String)> {
            c.rows()
                .map(|r| {
                    let (l, o, m) = (r.learner.into(), r.opponent.into(), r.metric.into());
                    (l, o, r.seed, r.episode, m)
                })
                .collect()
        };
        assert_eq!(fields(&back.curves), fields(&j.curves));
        assert_eq!((back.losses, back.last_loss, back.perfect), (3, 17, true));
        assert_eq!(back.reached, j.reached);

        // Reopened: the run is found; another seed under its number is refused.
        let (store, stored) = Store::open(dir.path(), &manifest, false).unwrap();
        assert_eq!(stored.into_iter().collect::<Vec<_>>(), [1]);
        let e = store
            .load(RunId { seed: 8, ..id })
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("expected run 1 (Q vs self-play, seed 8)"), "{e}");

        // Another config is refused with both hashes, unless fresh.
        let other = Manifest {
            config_hash: "def".into(),
            ..manifest.clone()
        };
        let e = Store::open(dir.path(), &other, false)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("hash abc") && e.contains("hash is def") && e.contains("--fresh"));
        let (_, stored) = Store::open(dir.path(), &other, true).unwrap();
        assert!(stored.is_empty());
    }

    #[test]
    fn a_store_is_removed_runs_first_and_a_half_removed_store_resumes() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = Manifest::new("t", "abc", 3, "t", 0, Path::new("t.toml"), "name = 't'");
        let (store, _) = Store::open(dir.path(), &manifest, false).unwrap();
        store.create().unwrap();
        for (run, seed) in [(0, 1), (2, 3)] {
            let id = RunId {
                run,
                learner: "Q",
                opponent: "self-play",
                seed,
            };
            store.save(id, &sample_run()).unwrap();
        }
        // What a kill during the removal leaves: the manifest and some of the runs.
        std::fs::remove_file(run_file(store.dir(), 0)).unwrap();
        let (store, stored) = Store::open(dir.path(), &manifest, false).unwrap();
        assert_eq!(stored.into_iter().collect::<Vec<_>>(), [2]);
        let runs = store.dir().to_path_buf();
        store.remove().unwrap();
        assert!(!runs.exists());
        // Removing a store that is gone already is no error.
        let (store, _) = Store::open(dir.path(), &manifest, false).unwrap();
        store.remove().unwrap();
    }
}
