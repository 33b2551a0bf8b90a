//! Files written so that a reader never sees half of one: write to a temporary file beside the
//! target, sync, rename. And FNV-1a, the hash of fingerprints and seeds that must not move.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};

/// The starting state of FNV-1a (64 bits).
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a (64 bits) of `bytes` continued from state `h` (start from [`FNV_OFFSET`]): a hash that
/// is the same on every platform and release, for fingerprints and seeds that must not move.
pub fn fnv1a(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// Writes `bytes` to `path` through a temporary file in the same directory and
/// a rename, so `path` either keeps its old content or has all of the new one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, |tmp| {
        let mut file = OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(tmp)
            .with_context(|| format!("opening {}", tmp.display()))?;
        file.write_all(bytes)
            .with_context(|| format!("writing {}", tmp.display()))?;
        Ok(())
    })
}

/// Like [`write_atomic`], for writers that insist on opening the file
/// themselves (e.g. plotters' bitmap backend): `write` must create and fill
/// the temporary path it is given, which ends with the file name of `path`
/// so that extension-based format detection still works.
pub fn write_atomic_with<F>(path: &Path, write: F) -> Result<()>
where
    F: FnOnce(&Path) -> Result<()>,
{
    let name = path
        .file_name()
        .with_context(|| format!("writing {}: path has no file name", path.display()))?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // A hidden temporary file beside `path`, removed if anything fails before the rename.
    let tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .suffix(name)
        .tempfile_in(dir)
        .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
    write(tmp.path())?;
    // Flush to disk before the rename, otherwise a crash could leave the final name pointing
    // at an empty or partial file.
    File::open(tmp.path())
        .and_then(|f| f.sync_all())
        .with_context(|| format!("syncing {}", tmp.path().display()))?;
    tmp.persist(path)
        .with_context(|| format!("writing {}", path.display()))?;
    // Makes the rename itself durable on Unix; opening a directory is not supported
    // everywhere (Windows), and the data is already in place.
    let _ = File::open(dir).and_then(|d| d.sync_all());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use anyhow::bail;
    use std::fs;

    #[test]
    fn write_atomic_replaces_and_cleans_up() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path().to_path_buf();
        let path = dir.join("x.json");
        write_atomic(&path, b"old").unwrap();
        write_atomic(&path, b"new content").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new content");

        let err = write_atomic_with(&path, |tmp| {
            fs::write(tmp, b"partial").unwrap();
            bail!("simulated failure")
        });
        assert!(err.is_err());
        assert_eq!(fs::read(&path).unwrap(), b"new content");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);

        let missing = dir.join("no-such-dir").join("y.txt");
        let err = format!("{:#}", write_atomic(&missing, b"x").unwrap_err());
        assert!(err.contains("no-such-dir"), "{err}");
    }
}
