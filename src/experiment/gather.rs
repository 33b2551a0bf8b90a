//! `merge`'s first half: find the runs the shards of a study stored, check that they are runs
//! of one config, each stored once and none missing, and copy them into the output folder,
//! where the study then finishes as a resumed run would.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::config::{self, ExperimentConfig};
use super::plan::{Condition, conditions, config_hash, run_id, runs, study_name};
use super::store::{self, MANIFEST, Manifest, RUNS_DIR, Store};
use crate::io::files::write_atomic;

/// A study as the shards stored it.
pub(super) struct StudyShards {
    name: String,
    pub source_path: PathBuf,
    pub source: String,
    games: Vec<GameShards>,
}

/// One game of a study: its manifest (as the first shard wrote it) and every stored run.
struct GameShards {
    manifest: Manifest,
    runs: BTreeMap<usize, PathBuf>,
}

/// Stores found below `dir` (a shard's `--out`): the folders holding `runs/manifest.json`. A
/// `runs/` folder with stored runs but no manifest is a damaged store, named as such.
fn find_stores(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> Result<()> {
    let runs_dir = dir.join(RUNS_DIR);
    if runs_dir.join(MANIFEST).is_file() {
        out.push(dir.to_path_buf());
    } else if runs_dir.is_dir() {
        let stray = store::stored_runs(&runs_dir)?;
        if !stray.is_empty() {
            bail!(
                "{} holds {} stored runs but no {MANIFEST} telling their config, so they cannot \
                 be merged: rerun that shard with --fresh (same config, --shard and --out), then \
                 merge again",
                runs_dir.display(),
                stray.len()
            );
        }
    }
    if depth == 0 {
        return Ok(());
    }
    let entries = fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
    let mut subdirs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()) && e.file_name() != RUNS_DIR)
        .map(|e| e.path())
        .collect();
    subdirs.sort();
    for sub in subdirs {
        find_stores(&sub, depth - 1, out)?;
    }
    Ok(())
}

/// A store found below a shard's folder: the shard's folder (as given), the store's folder and
/// its manifest.
type Found = (PathBuf, PathBuf, Manifest);

/// Finds and checks the stored runs of every study below `dirs`.
pub(super) fn gather(dirs: &[PathBuf]) -> Result<Vec<StudyShards>> {
    find_studies(dirs)?
        .into_iter()
        .map(|(study, found)| study_shards(study, &found))
        .collect()
}

/// The stores below `dirs` (each a shard's `--out`), by study: refused where a folder is given
/// twice or holds no stored runs.
fn find_studies(dirs: &[PathBuf]) -> Result<BTreeMap<String, Vec<Found>>> {
    if dirs.is_empty() {
        bail!("merge: give the --out folder of each shard");
    }
    let mut studies: BTreeMap<String, Vec<Found>> = BTreeMap::new();
    let mut seen = BTreeSet::new();
    for dir in dirs {
        let canonical = dir.canonicalize().with_context(|| {
            format!(
                "{}: no such folder (give each shard's --out)",
                dir.display()
            )
        })?;
        if !seen.insert(canonical) {
            bail!(
                "{} is given twice: give each shard's folder once",
                dir.display()
            );
        }
        let mut stores = Vec::new();
        // Runs sit at <out>/<name>/runs, names nesting a few folders deep at most.
        find_stores(dir, 8, &mut stores)?;
        if stores.is_empty() {
            bail!(
                "{} holds no stored runs (no {RUNS_DIR}/{MANIFEST} below it): give the --out \
                 folder of each `solvedgym run FILE --shard K/N`",
                dir.display()
            );
        }
        for store_dir in stores {
            let manifest = store::read_manifest(&store_dir.join(RUNS_DIR))?
                .expect("find_stores saw the manifest");
            studies.entry(manifest.study.clone()).or_default().push((
                dir.clone(),
                store_dir,
                manifest,
            ));
        }
    }
    Ok(studies)
}

/// The study `study` as its shards stored it (`found`: its stores): its config read from the
/// first store's manifest, and every game's runs, checked against it.
fn study_shards(study: String, found: &[Found]) -> Result<StudyShards> {
    let (_, first_dir, first) = &found[0];
    let first_dir = first_dir.join(RUNS_DIR);
    let source_path = PathBuf::from(&first.source_path);
    let source = first.source.clone();
    let configs = config::parse(&source_path, &source)
        .with_context(|| format!("reading the config the shards of {study} stored"))?;
    if study_name(&configs) != study {
        bail!(
            "the stored config of {study} names the study {}",
            study_name(&configs)
        );
    }
    if let Some((_, store_dir, m)) = found
        .iter()
        .find(|(_, _, m)| !configs.iter().any(|(c, _)| c.name() == m.name))
    {
        bail!(
            "shards of different configs: {} holds runs of `{}`, a game the config stored in \
             {} does not have; merge the shards of one config",
            store_dir.display(),
            m.name,
            first_dir.display()
        );
    }
    let games = configs
        .iter()
        .map(|(cfg, _)| game_shards(cfg, found, &first_dir))
        .collect::<Result<_>>()?;
    Ok(StudyShards {
        name: study,
        source_path,
        source,
        games,
    })
}

/// The runs of the game `cfg` in the stores `found` (`first_dir`: where the config was read):
/// each of the config, stored once, none missing, each readable.
fn game_shards(cfg: &ExperimentConfig, found: &[Found], first_dir: &Path) -> Result<GameShards> {
    let hash = config_hash(&cfg.resolved_toml());
    let here: Vec<&Found> = found
        .iter()
        .filter(|(_, _, m)| m.name == cfg.name())
        .collect();
    for (_, store_dir, m) in &here {
        if m.config_hash != hash {
            bail!(
                "shards of different configs: {} holds runs of `{}` with config hash {}, \
                 but the config stored in {} gives it hash {hash}; merge the shards of \
                 one config",
                store_dir.display(),
                cfg.name(),
                m.config_hash,
                first_dir.display(),
            );
        }
    }
    let conds = conditions(cfg);
    let runs = runs(cfg, conds.len());
    let stored = stored_once(cfg, &conds, &runs, &here)?;
    let missing: Vec<usize> = (0..runs.len())
        .filter(|r| !stored.contains_key(r))
        .collect();
    if !missing.is_empty() {
        let examples: Vec<String> = missing
            .iter()
            .take(3)
            .map(|&r| run_id(&conds, &runs, r).to_string())
            .collect();
        bail!(
            "`{}`: {} of its {} runs are missing from the shards given{}: {}{}. \
             Run the missing shards (or resume an interrupted one) and merge again",
            cfg.name(),
            missing.len(),
            runs.len(),
            shards_not_given(found),
            examples.join(", "),
            if missing.len() > 3 { ", ..." } else { "" }
        );
    }
    // Each run read as the finished study will read it, so that a damaged one is named
    // where it lies, in its shard, not in merge's copy.
    for (&run, file) in &stored {
        store::load_run(file, &hash, run_id(&conds, &runs, run)).map_err(|e| {
            anyhow::anyhow!(
                "{e:#}, then resume that shard (its `solvedgym run FILE --shard K/N --out \
                 DIR` again) and merge again"
            )
        })?;
    }
    let mut manifest = here[0].2.clone();
    manifest.shard = None;
    Ok(GameShards {
        manifest,
        runs: stored,
    })
}

/// The file of every run of `cfg` stored in the stores `here` (`runs`: the game's runs in
/// order); refused where a run is stored twice or past the config's runs.
fn stored_once(
    cfg: &ExperimentConfig,
    conds: &[Condition],
    runs: &[(usize, u64)],
    here: &[&Found],
) -> Result<BTreeMap<usize, PathBuf>> {
    let mut stored: BTreeMap<usize, PathBuf> = BTreeMap::new();
    for (_, store_dir, _) in here {
        let runs_dir = store_dir.join(RUNS_DIR);
        for run in store::stored_runs(&runs_dir)? {
            if run >= runs.len() {
                bail!(
                    "{}: run {run} is stored, but `{}` has {} runs",
                    runs_dir.display(),
                    cfg.name(),
                    runs.len()
                );
            }
            let file = store::run_file(&runs_dir, run);
            if let Some(other) = stored.insert(run, file.clone()) {
                bail!(
                    "{} is stored twice, in {} and {}: give each shard's folder once \
                     (the same shard run into two folders?)",
                    run_id(conds, runs, run),
                    other.display(),
                    file.display()
                );
            }
        }
    }
    Ok(stored)
}

/// Where the stores `found` all name shards of one count N: the shards of N that none of them
/// is (" (not given: shard 2/4)"); else nothing.
fn shards_not_given(found: &[Found]) -> String {
    let shards: BTreeSet<&str> = found
        .iter()
        .filter_map(|(_, _, m)| m.shard.as_deref())
        .collect();
    let counts: BTreeSet<&str> = shards
        .iter()
        .filter_map(|s| s.split_once('/').map(|p| p.1))
        .collect();
    if let [n] = counts.iter().collect::<Vec<_>>()[..]
        && let Ok(n) = n.parse::<usize>()
    {
        let lacking: Vec<String> = (1..=n)
            .map(|k| format!("{k}/{n}"))
            .filter(|k| !shards.contains(k.as_str()))
            .collect();
        if !lacking.is_empty() {
            return format!(" (not given: shard {})", lacking.join(", "));
        }
    }
    String::new()
}

impl StudyShards {
    /// The study's name: its folder under merge's `--out`.
    pub(super) fn name(&self) -> &str {
        &self.name
    }

    /// Copies every stored run into the store of its game's folder under `out_root` (refused
    /// where that folder holds runs of another config).
    pub(super) fn copy_into(&self, out_root: &Path) -> Result<()> {
        for game in &self.games {
            let dir = out_root.join(&game.manifest.name);
            let (store, _) = Store::open(&dir, &game.manifest, false)?;
            store.create()?;
            for (&run, file) in &game.runs {
                let bytes =
                    fs::read(file).with_context(|| format!("reading {}", file.display()))?;
                // Its saved agent, beside it in the shard's store, first.
                if let Some(agent) = file
                    .parent()
                    .map(|d| store::agent_file(d, run))
                    .filter(|a| a.is_file())
                {
                    let to = store::agent_file(store.dir(), run);
                    let parent = to.parent().expect("inside the store");
                    fs::create_dir_all(parent)
                        .with_context(|| format!("creating {}", parent.display()))?;
                    crate::io::files::refuse_link(&to, false)?;
                    fs::copy(&agent, &to).with_context(|| {
                        format!("copying {} to {}", agent.display(), to.display())
                    })?;
                }
                write_atomic(&store::run_file(store.dir(), run), &bytes)?;
            }
        }
        Ok(())
    }
}
