//! `merge`'s first half: find the runs the shards of a study stored, check that they are runs
//! of one config, each stored once and none missing, and copy them into the output folder,
//! where the study then finishes as a resumed run would.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::config;
use super::plan::{conditions, config_hash, run_id, runs, study_name};
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

/// Finds and checks the stored runs of every study below `dirs`.
pub(super) fn gather(dirs: &[PathBuf]) -> Result<Vec<StudyShards>> {
    if dirs.is_empty() {
        bail!("merge: give the --out folder of each shard");
    }
    // Per study, per game's name: (shard folder, store folder, manifest).
    let mut studies: BTreeMap<String, Vec<(PathBuf, PathBuf, Manifest)>> = BTreeMap::new();
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

    let mut out = Vec::new();
    for (study, found) in studies {
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
        let mut games = Vec::with_capacity(configs.len());
        for (cfg, _) in &configs {
            let hash = config_hash(&cfg.resolved_toml());
            let here: Vec<&(PathBuf, PathBuf, Manifest)> = found
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
            let mut stored: BTreeMap<usize, PathBuf> = BTreeMap::new();
            for (_, store_dir, _) in &here {
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
                            run_id(&conds, &runs, run),
                            other.display(),
                            file.display()
                        );
                    }
                }
            }
            let missing: Vec<usize> = (0..runs.len())
                .filter(|r| !stored.contains_key(r))
                .collect();
            if !missing.is_empty() {
                let shards: BTreeSet<&str> = found
                    .iter()
                    .filter_map(|(_, _, m)| m.shard.as_deref())
                    .collect();
                let mut absent = String::new();
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
                        absent = format!(" (not given: shard {})", lacking.join(", "));
                    }
                }
                let examples: Vec<String> = missing
                    .iter()
                    .take(3)
                    .map(|&r| run_id(&conds, &runs, r).to_string())
                    .collect();
                bail!(
                    "`{}`: {} of its {} runs are missing from the shards given{absent}: {}{}. \
                     Run the missing shards (or resume an interrupted one) and merge again",
                    cfg.name(),
                    missing.len(),
                    runs.len(),
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
            games.push(GameShards {
                manifest,
                runs: stored,
            });
        }
        out.push(StudyShards {
            name: study,
            source_path,
            source,
            games,
        });
    }
    Ok(out)
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
