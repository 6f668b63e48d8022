//! Where a parameter file is, and opening it, without leaving the parameter folder.
//!
//! A file's name comes from the manager's table; the name joined to the folder is followed
//! one symlink at a time. Before a path is examined, the folder it is in is resolved (as the
//! kernel will resolve it, symlinks and `..` included) and must be the parameter folder or
//! inside it, so a link that leads out is refused without its target being opened or even
//! looked at. The file found is then opened without following a final symlink, so one swapped
//! for a link in between is refused rather than followed.

use std::fs::File;
use std::io;
use std::path::{Component, Path, PathBuf};

/// How many symlinks a parameter file may go through (as the kernel's own limit).
const MAX_LINKS: usize = 40;

/// Why a file could not be found inside the folder (the manager adds the id and the path).
#[derive(Debug)]
pub(super) enum PathError {
    Missing,
    /// Where the path led, outside the (canonical) folder.
    Outside(PathBuf),
    Unreadable(io::Error),
}

impl From<io::Error> for PathError {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::NotFound {
            PathError::Missing
        } else {
            PathError::Unreadable(e)
        }
    }
}

/// The folder with every symlink and `..` resolved: the reference every file is checked
/// against. Resolve it once for several files.
pub(super) fn canonical_folder(folder: &Path) -> Result<PathBuf, PathError> {
    Ok(std::fs::canonicalize(folder)?)
}

/// The regular file that `name` leads to from `folder` (canonical), inside it.
pub(super) fn resolve(folder: &Path, name: &str) -> Result<PathBuf, PathError> {
    let mut candidate = folder.join(name);
    for _ in 0..MAX_LINKS {
        let candidate_path = lexically_normal(&candidate);
        let (Some(parent), Some(file)) = (candidate_path.parent(), candidate_path.file_name())
        else {
            return Err(PathError::Outside(candidate_path));
        };
        let parent = std::fs::canonicalize(parent)?;
        let current = parent.join(file);
        if !parent.starts_with(folder) {
            return Err(PathError::Outside(current));
        }
        let meta = std::fs::symlink_metadata(&current)?;
        if !meta.file_type().is_symlink() {
            if !meta.is_file() {
                return Err(PathError::Unreadable(io::Error::other(
                    "not a regular file",
                )));
            }
            return Ok(current);
        }
        // Relative to the link's own (resolved) folder; an absolute target replaces it.
        candidate = parent.join(std::fs::read_link(&current)?);
    }
    Err(PathError::Unreadable(io::Error::other(format!(
        "more than {MAX_LINKS} symlinks"
    ))))
}

/// Opens a file [`resolve`] returned, read-only, refusing a final symlink (ELOOP).
pub(super) fn open_resolved(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

/// `path` with its `.` and `..` components folded away, without looking at the filesystem
/// (sound here because every prefix it is applied to is already resolved).
fn lexically_normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
