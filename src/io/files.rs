//! Files written so that a reader never sees half of one: write to a temporary file beside the
//! target, sync, rename.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, ensure};

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
    let file = AtomicFile::create(path)?;
    write(file.temporary())?;
    file.commit()
}

/// A file written in pieces that appears whole or not at all: a hidden temporary file beside
/// `path`, filled through [`AtomicFile::writer`], synced and renamed by [`AtomicFile::commit`],
/// and removed if it is dropped uncommitted (an error on the way leaves `path` as it was).
#[derive(Debug)]
pub struct AtomicFile {
    path: PathBuf,
    dir: PathBuf,
    tmp: tempfile::NamedTempFile,
}

impl AtomicFile {
    /// The temporary file for `path`, in `path`'s folder (which must exist). Its name ends
    /// with `path`'s file name, so that extension-based format detection still works.
    pub fn create(path: &Path) -> Result<AtomicFile> {
        let name = path
            .file_name()
            .with_context(|| format!("writing {}: path has no file name", path.display()))?;
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        // It gets the mode a plain create gives (0666 less the umask: 0644 under umask 022),
        // not the 0600 of a private temporary file, so that colleagues can read the results.
        let mut builder = tempfile::Builder::new();
        builder.prefix(".tmp-").suffix(name);
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let tmp = builder
            .tempfile_in(dir)
            .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            dir: dir.to_path_buf(),
            tmp,
        })
    }

    /// The temporary file's path.
    pub fn temporary(&self) -> &Path {
        self.tmp.path()
    }

    /// A handle that writes the temporary file from its start (unbuffered: wrap it in a
    /// `BufWriter` for small writes).
    pub fn writer(&self) -> Result<File> {
        self.tmp
            .reopen()
            .with_context(|| format!("opening {}", self.tmp.path().display()))
    }

    /// Syncs the temporary file and renames it to its path.
    pub fn commit(self) -> Result<()> {
        // Flush to disk before the rename, otherwise a crash could leave the final name
        // pointing at an empty or partial file.
        File::open(self.tmp.path())
            .and_then(|f| f.sync_all())
            .with_context(|| format!("syncing {}", self.tmp.path().display()))?;
        self.tmp
            .persist(&self.path)
            .with_context(|| format!("writing {}", self.path.display()))?;
        // Makes the rename itself durable on Unix; opening a directory is not supported
        // everywhere (Windows), and the data is already in place.
        let _ = File::open(&self.dir).and_then(|d| d.sync_all());
        Ok(())
    }
}

/// Refuses `path` if it is a symbolic link, or something other than a folder (`folder`) or
/// a regular file: solvedgym writes and deletes inside its output folders only what it made
/// there, never through a link to somewhere else, and never into a pipe or a device. A path
/// that does not exist is fine (it will be made).
pub fn refuse_link(path: &Path, folder: bool) -> Result<()> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let kind = meta.file_type();
    if kind.is_symlink() {
        anyhow::bail!(
            "{} is a symbolic link: solvedgym never writes or deletes through a link inside an \
             output folder; remove the link, or give --out another folder",
            path.display()
        );
    }
    match (folder, kind.is_dir(), kind.is_file()) {
        (true, true, _) | (false, _, true) => Ok(()),
        (true, false, _) => anyhow::bail!(
            "{} is not a folder: solvedgym needs a folder there; move it away, or give --out \
             another folder",
            path.display()
        ),
        (false, ..) => anyhow::bail!(
            "{} is not a regular file (a folder, a pipe or a device): solvedgym writes a file \
             there; move it away, or give --out another folder",
            path.display()
        ),
    }
}

/// The most bytes a config file may hold (64 MiB: the largest study config is a few KiB).
pub const CONFIG_LIMIT: u64 = 64 << 20;

/// Opens `path` for reading if it is a regular file (a link to one is fine): a named pipe or a
/// device given where a file is read would block for ever or never end, so it is refused with
/// its path.
pub fn open_regular(path: &Path) -> Result<File> {
    let meta = std::fs::metadata(path).with_context(|| format!("opening {}", path.display()))?;
    if !meta.is_file() {
        anyhow::bail!(
            "{} is not a regular file ({}): give the path of a file",
            path.display(),
            if meta.is_dir() {
                "a folder"
            } else {
                "a pipe, a socket or a device"
            }
        );
    }
    File::open(path).with_context(|| format!("opening {}", path.display()))
}

/// The text of the regular file at `path` (see [`open_regular`]), refused beyond `limit` bytes
/// with both sizes named: a config or a list is small, and a file of gigabytes given by mistake
/// is not read into memory.
pub fn read_text(path: &Path, limit: u64) -> Result<String> {
    use std::io::Read;
    let file = open_regular(path)?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    if size > limit {
        anyhow::bail!(
            "{} holds {} bytes; a file read here holds at most {limit} bytes",
            path.display(),
            size
        );
    }
    let mut text = String::with_capacity(size as usize);
    file.take(limit + 1)
        .read_to_string(&mut text)
        .with_context(|| format!("reading {}", path.display()))?;
    ensure!(
        text.len() as u64 <= limit,
        "{} holds over {limit} bytes; a file read here holds at most that",
        path.display()
    );
    Ok(text)
}

/// A writer's claim on an output folder, so that two runs never write one folder at once: an
/// advisory lock on `.solvedgym.lock` in it, which the system releases when the process ends
/// however it ends (a killed run leaves no stale claim). The lock file is removed on drop, and
/// the folder too when the claim created it and it is still empty.
#[derive(Debug)]
pub struct FolderLock {
    path: std::path::PathBuf,
    created: Option<std::path::PathBuf>,
    _file: File,
}

/// The lock file's name in the folder it claims.
pub const LOCK_FILE: &str = ".solvedgym.lock";

impl FolderLock {
    /// Claims `dir` (created if missing), or refuses while another process holds it.
    pub fn acquire(dir: &Path) -> Result<FolderLock> {
        let created = (!dir.exists()).then(|| dir.to_path_buf());
        if let Some(file) = dir.ancestors().find(|a| a.is_file()) {
            anyhow::bail!(
                "the output folder {} cannot be made: {} is a file (give --out a folder)",
                dir.display(),
                file.display()
            );
        }
        refuse_link(dir, true)?;
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        let path = dir.join(LOCK_FILE);
        loop {
            // A link in its place would have the process id written into the file it names.
            refuse_link(&path, false)?;
            let mut file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .read(true)
                .write(true)
                .open(&path)
                .with_context(|| format!("opening {}", path.display()))?;
            match file.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => {
                    let holder = std::fs::read_to_string(&path).unwrap_or_default();
                    let holder = holder.trim();
                    anyhow::bail!(
                        "{} is being written by another solvedgym{}: wait for it to finish, or \
                         give another --out",
                        dir.display(),
                        if holder.is_empty() {
                            String::new()
                        } else {
                            format!(" (process {holder})")
                        }
                    );
                }
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(e).with_context(|| format!("locking {}", path.display()));
                }
            }
            // The holder before us removes the file as it lets go: if it did so between our
            // open and our lock, the file we hold is no longer the one in the folder (nor is
            // it if a link took its place since the check).
            if !same_file(&file, &path) {
                continue;
            }
            file.set_len(0)
                .and_then(|()| write!(file, "{}", std::process::id()))
                .with_context(|| format!("writing {}", path.display()))?;
            return Ok(FolderLock {
                path,
                created,
                _file: file,
            });
        }
    }
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        // Removed while still held; the lock goes with the file handle, after this.
        let _ = std::fs::remove_file(&self.path);
        if let Some(dir) = &self.created {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// Whether the open `file` is the file now at `path`.
fn same_file(file: &File, path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), std::fs::symlink_metadata(path)) {
            (Ok(a), Ok(b)) => (a.dev(), a.ino()) == (b.dev(), b.ino()),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        path.exists()
    }
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

        // The mode a plain create gives, whatever the umask.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let plain = dir.join("plain");
            fs::write(&plain, b"x").unwrap();
            let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&path), mode(&plain));
            fs::remove_file(&plain).unwrap();
        }

        let missing = dir.join("no-such-dir").join("y.txt");
        let err = format!("{:#}", write_atomic(&missing, b"x").unwrap_err());
        assert!(err.contains("no-such-dir"), "{err}");
    }

    #[test]
    fn a_folder_has_one_writer_at_a_time() {
        let scratch = tempfile::tempdir().unwrap();
        let dir = scratch.path().join("out").join("study");
        let lock = FolderLock::acquire(&dir).unwrap();
        assert!(dir.join(LOCK_FILE).is_file());
        let e = format!("{:#}", FolderLock::acquire(&dir).unwrap_err());
        assert!(
            e.contains("being written by another solvedgym")
                && e.contains(&format!("process {}", std::process::id())),
            "{e}"
        );
        drop(lock);
        // Let go: the lock file is gone, and the folder it created, being empty.
        assert!(!dir.exists());
        let again = FolderLock::acquire(&dir).unwrap();
        fs::write(dir.join("result"), b"x").unwrap();
        drop(again);
        assert!(dir.join("result").is_file() && !dir.join(LOCK_FILE).exists());
    }
}
