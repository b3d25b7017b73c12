//! A result folder owned by one run at a time: a lock, a hidden partial directory, and the
//! replacement of the earlier result **by file name** when the run completes.
//!
//! A run into `DIR` takes an exclusive lock on `DIR/.lagrangian.lock` (an advisory `flock`,
//! released by the operating system when the process ends, however it ends; the file is
//! removed when the run lets the folder go), so a second run
//! into the same folder — from another process or another thread — is refused at once with a
//! message instead of mixing its files with the first one's. Under the lock it removes any
//! `.partial-*` directories an earlier, killed run left, and writes its own files into
//! `DIR/.partial-<pid>/`. [`RunFolder::place`] then moves them into `DIR` one by one, under
//! the names the toolkit writes: `trajectory.csv`, `trajectory.parquet`, `scene.json`,
//! `sensitivity.csv`, and in
//! `npy/` the files that `npy/columns.json` lists. Files of an earlier run that this one does
//! not write are removed by those names; nothing else in `DIR` or in `DIR/npy` is touched (a
//! user's `npy/measurements.txt` stays). Every destination is checked before the first file
//! moves, so a destination that cannot be replaced (a `summary.json` that is a folder) fails
//! the run with the earlier result intact.
//!
//! ```
//! use lagrangian::output::folder::RunFolder;
//! let dir = std::env::temp_dir().join(format!("lagrangian-doc-folder-{}", std::process::id()));
//! let run = RunFolder::open(&dir)?;
//! // a second run into the same folder is refused while the first holds it
//! assert!(RunFolder::open(&dir).is_err());
//! std::fs::write(run.partial().join("summary.json"), "{}\n")?;
//! run.place(&dir, "summary.json", &[])?;
//! assert!(dir.join("summary.json").is_file());
//! assert!(RunFolder::open(&dir).is_ok()); // released when placed
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fs::{self, File, TryLockError};
use std::io;
use std::path::{Path, PathBuf};

/// The lock file in a result folder.
pub const LOCK_FILE: &str = ".lagrangian.lock";

/// The files of a result the toolkit writes beside its summary; an earlier run's file of one
/// of these names that the new run does not write is removed, so every file belongs to the new
/// summary.
pub const RESULT_FILES: [&str; 4] = [
    crate::output::csv::FILE,
    crate::output::sink::PARQUET_FILE,
    "scene.json",
    "sensitivity.csv",
];

/// The summaries a result may have, one per kind of result (a run, an equilibrium, a mode's
/// motion). Placing a result removes the others: they described files that are gone.
pub const SUMMARY_FILES: [&str; 3] = ["summary.json", "equilibrium.json", "mode.json"];

use crate::output::npy::{FOLDER as NPY, INDEX as NPY_INDEX};

/// A result folder held by this run: the lock and the partial directory.
#[derive(Debug)]
pub struct RunFolder {
    dir: PathBuf,
    partial: PathBuf,
    /// Files written by [`RunFolder::write_file`], placed with the result files.
    extra: Vec<String>,
    /// Held until the run has placed or abandoned its files.
    _lock: File,
}

fn refuse(path: &Path, what: &str) -> io::Error {
    io::Error::other(format!("{} {what}", path.display()))
}

/// Files a command writes into its output folder besides [`RESULT_FILES`] and
/// [`SUMMARY_FILES`]: `fit`'s, `modes`', `linearize`'s and `sweep`'s own.
pub const COMMAND_FILES: [&str; 5] = [
    "fit.json",
    "modes.json",
    "state_space.json",
    "sweep.csv",
    "columns.json",
];

/// `Err` naming the first of `inputs` that a command writing its results into `out` would
/// replace — a run's `trajectory.csv` given as `fit --target` with `--out` the same folder —
/// so measured data is never overwritten by the fitted run. Every file of the toolkit's own
/// names in `out` (and every `.npy` file in `out/npy`, and in `out` itself: `A.npy` …) counts;
/// other files in `out` are never touched by a run and may be read.
///
/// ```
/// use lagrangian::output::folder::refuse_inputs_among_results;
/// use std::path::Path;
/// let dir = std::env::temp_dir().join(format!("lagrangian-doc-inputs-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// std::fs::write(dir.join("trajectory.csv"), "t,x\n0,1\n")?;
/// std::fs::write(dir.join("measured.csv"), "t,x\n0,1\n")?;
/// let e = refuse_inputs_among_results(&dir, &[&dir.join("./trajectory.csv")]).unwrap_err();
/// assert!(e.to_string().contains("trajectory.csv"));
/// assert!(refuse_inputs_among_results(&dir, &[&dir.join("measured.csv")]).is_ok());
/// # std::fs::remove_dir_all(&dir).ok();
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn refuse_inputs_among_results(out: &Path, inputs: &[&Path]) -> io::Result<()> {
    let Ok(out) = fs::canonicalize(out) else {
        return Ok(()); // a folder that does not exist yet holds no input
    };
    for input in inputs {
        let Ok(file) = fs::canonicalize(input) else {
            continue;
        };
        let (Some(parent), Some(name)) = (file.parent(), file.file_name()) else {
            continue;
        };
        let name = name.to_string_lossy();
        let npy = name.ends_with(".npy");
        let ours = RESULT_FILES.contains(&name.as_ref())
            || SUMMARY_FILES.contains(&name.as_ref())
            || COMMAND_FILES.contains(&name.as_ref());
        if (parent == out && (ours || npy)) || (parent == out.join(NPY) && npy) {
            return Err(refuse(
                input,
                &format!(
                    "is read by this command and is one of the files it writes into {}: copy it \
                     elsewhere or choose another output folder (--out)",
                    out.display()
                ),
            ));
        }
    }
    Ok(())
}

/// `Err` when `path` exists and is not a regular file (a folder, a socket, …): it cannot be
/// replaced by a result file.
fn replaceable_file(path: &Path) -> io::Result<()> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => Err(refuse(
            path,
            "is a folder, where the result file of that name goes: move it away",
        )),
        Ok(m) if !m.is_file() && !m.file_type().is_symlink() => Err(refuse(
            path,
            "is not a regular file, where the result file of that name goes: move it away",
        )),
        _ => Ok(()),
    }
}

/// `Err` when `path` exists and is not a folder.
fn usable_folder(path: &Path) -> io::Result<()> {
    match fs::metadata(path) {
        Ok(m) if !m.is_dir() => Err(refuse(
            path,
            "is a file, where the results need a folder: choose another output folder or move \
             the file away",
        )),
        _ => Ok(()),
    }
}

/// The `.npy` files `npy/columns.json` in `npy` names (with `columns.json` itself); empty when
/// there is no such index or it is not one the toolkit wrote.
fn npy_files(npy: &Path) -> Vec<String> {
    let Ok(text) = fs::read_to_string(npy.join(NPY_INDEX)) else {
        return Vec::new();
    };
    let Ok(serde_json::Value::Object(groups)) = serde_json::from_str(&text) else {
        return Vec::new();
    };
    let names = groups.keys().filter(|g| is_plain_name(g));
    let mut files: Vec<String> = names.map(|g| format!("{g}.npy")).collect();
    files.push(NPY_INDEX.to_string());
    files
}

/// A file name without a path in it.
fn is_plain_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(['/', '\\']) && name != "." && name != ".."
}

/// Open and lock `dir/LOCK_FILE`. The holder removes the file when it lets go, so a lock
/// taken on a file that has meanwhile been removed (or replaced) is taken again on the file
/// now at that path.
fn lock_folder(dir: &Path) -> io::Result<File> {
    let path = dir.join(LOCK_FILE);
    loop {
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(io::Error::new(
                    io::ErrorKind::WouldBlock,
                    format!(
                        "another run is writing into {}: wait for it to end or choose another \
                         output folder",
                        dir.display()
                    ),
                ));
            }
            Err(TryLockError::Error(e)) => return Err(e),
        }
        if same_file(&lock, &path) {
            return Ok(lock);
        }
    }
}

/// Whether the open `file` is the file at `path` now.
#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_: &File, _: &Path) -> bool {
    true
}

impl RunFolder {
    /// Take `dir` for a run: create it if needed, lock it, remove partial directories of
    /// killed runs, and create this run's partial directory. Refused when another run holds
    /// the folder, or when `dir` is a file.
    pub fn open(dir: &Path) -> io::Result<Self> {
        usable_folder(dir)?;
        fs::create_dir_all(dir)?;
        let lock = lock_folder(dir)?;
        // Under the lock no other run writes here: every partial directory is left over.
        for e in fs::read_dir(dir)?.flatten() {
            let name = e.file_name();
            let stale = name.to_str().is_some_and(|n| n.starts_with(".partial-"));
            if stale && e.file_type().is_ok_and(|t| t.is_dir()) {
                let _ = fs::remove_dir_all(e.path());
            }
        }
        let partial = dir.join(format!(".partial-{}", std::process::id()));
        fs::create_dir_all(&partial)?;
        Ok(RunFolder {
            dir: dir.to_path_buf(),
            partial,
            extra: Vec::new(),
            _lock: lock,
        })
    }

    /// `Err` when `sub`, a folder a result may go into (`interrupted`), exists as a file:
    /// checked before a run starts, so it cannot fail at its end.
    pub fn check_folder(&self, sub: &str) -> io::Result<()> {
        usable_folder(&self.dir.join(sub))
    }

    /// The folder the run was opened on.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The partial directory the run writes its files into.
    pub fn partial(&self) -> &Path {
        &self.partial
    }

    /// Write the further file `name` of the run now into the partial directory (`scene.json`,
    /// `sensitivity.csv`); it is placed with the others.
    pub fn write_file(&mut self, name: &str, text: &str) -> io::Result<()> {
        fs::write(self.partial.join(name), text)?;
        self.extra.push(name.to_string());
        Ok(())
    }

    /// Finish the run into `dir`: `summary` written as the JSON file `name` (`summary.json`,
    /// `equilibrium.json`, …), then every file placed ([`RunFolder::place`]). `dir` is the
    /// folder the run was opened on, or another (an interrupted run's `interrupted/`).
    pub fn finish<S: serde::Serialize>(
        self,
        summary: &S,
        dir: &Path,
        name: &str,
    ) -> io::Result<()> {
        let text = serde_json::to_string_pretty(summary).map_err(io::Error::other)?;
        fs::write(self.partial.join(name), text + "\n")?;
        let extra = self.extra.clone();
        self.place(dir, name, &extra)
    }

    /// Check that the run's files could be placed into `dir` (see [`RunFolder::place`]) without
    /// moving anything.
    pub fn check(&self, dir: &Path, summary: &str, extra: &[String]) -> io::Result<()> {
        usable_folder(dir)?;
        let names = RESULT_FILES.iter().copied().chain([summary]);
        for name in names.chain(extra.iter().map(String::as_str)) {
            replaceable_file(&dir.join(name))?;
        }
        let npy = dir.join(NPY);
        usable_folder(&npy)?;
        let new = self.partial.join(NPY);
        if new.is_dir() {
            for e in fs::read_dir(&new)?.flatten() {
                replaceable_file(&npy.join(e.file_name()))?;
            }
        }
        Ok(())
    }

    /// Move the run's files from the partial directory into `dir` (created if needed): first
    /// the old `summary` is removed, then the result files are replaced by name (an earlier
    /// run's result files that this run did not write are removed), `summary` last; the lock
    /// is released. Every destination is checked first ([`RunFolder::check`]).
    pub fn place(self, dir: &Path, summary: &str, extra: &[String]) -> io::Result<()> {
        self.check(dir, summary, extra)?;
        fs::create_dir_all(dir)?;
        let old_summary = dir.join(summary);
        for name in SUMMARY_FILES.iter().copied().chain([summary]) {
            if dir.join(name).is_file() {
                fs::remove_file(dir.join(name))?;
            }
        }
        let extra = extra.iter().map(String::as_str);
        let mut names: Vec<&str> = RESULT_FILES.iter().copied().chain(extra).collect();
        names.sort_unstable();
        names.dedup();
        for name in names.into_iter().filter(|n| *n != summary) {
            self.replace(dir, name)?;
        }
        self.place_npy(dir)?;
        fs::rename(self.partial.join(summary), &old_summary)?;
        fs::remove_dir_all(&self.partial)
    }

    /// Move the one file `name` of the partial directory into the folder, replacing a file of
    /// that name and nothing else (`modes.json` beside a mode's motion).
    pub fn place_one(self, name: &str) -> io::Result<()> {
        let to = self.dir.join(name);
        replaceable_file(&to)?;
        fs::rename(self.partial.join(name), &to)
    }

    /// `dir/name` becomes the partial directory's `name`, or is removed when the run wrote no
    /// such file.
    fn replace(&self, dir: &Path, name: &str) -> io::Result<()> {
        let (new, old) = (self.partial.join(name), dir.join(name));
        match new.is_file() {
            true => fs::rename(&new, &old),
            false if fs::symlink_metadata(&old).is_ok_and(|m| !m.is_dir()) => fs::remove_file(&old),
            false => Ok(()),
        }
    }

    /// The `.npy` files by name: the earlier index's files removed, the new ones moved in;
    /// `dir/npy` removed only when nothing else is left in it.
    fn place_npy(&self, dir: &Path) -> io::Result<()> {
        let (new, old) = (self.partial.join(NPY), dir.join(NPY));
        let written: Vec<String> = match new.is_dir() {
            true => fs::read_dir(&new)?
                .flatten()
                .filter_map(|e| e.file_name().into_string().ok())
                .collect(),
            false => Vec::new(),
        };
        for name in npy_files(&old) {
            if !written.contains(&name) && old.join(&name).is_file() {
                fs::remove_file(old.join(&name))?;
            }
        }
        if written.is_empty() {
            if old.is_dir() {
                let _ = fs::remove_dir(&old); // only when empty: a user's files stay
            }
            return Ok(());
        }
        fs::create_dir_all(&old)?;
        // the index last, so it never names a file that is not there yet
        let (index, files): (Vec<&String>, Vec<&String>) =
            written.iter().partition(|n| *n == NPY_INDEX);
        for name in files.into_iter().chain(index) {
            fs::rename(new.join(name), old.join(name))?;
        }
        fs::remove_dir(&new)
    }

    /// Abandon the run: remove the partial files, release the lock (as dropping it does).
    pub fn abandon(self) {}
}

impl Drop for RunFolder {
    /// A run that ends without placing its files (an error, a panic, an abandoned run) leaves
    /// no partial directory behind.
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.partial);
        // removed while still held (see `lock_folder`); where files cannot be removed while
        // open, it stays
        if cfg!(unix) {
            let _ = fs::remove_file(self.dir.join(LOCK_FILE));
        }
    }
}
