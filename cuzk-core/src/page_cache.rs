//! How much of a file the kernel holds in its page cache (Linux `mincore`), to tell a WARM
//! parameter file (mapped quickly) from a COLD one (read from disk).

use std::fs::File;
use std::path::Path;

/// The fraction of `path`'s pages resident in the page cache, or `None` when it cannot be
/// told (no such file, or the system call is refused).
pub(crate) fn resident_fraction(path: &Path) -> Option<f64> {
    let file = File::open(path).ok()?;
    let len = usize::try_from(file.metadata().ok()?.len()).ok()?;
    if len == 0 {
        return Some(0.0);
    }
    // SAFETY: a read-only map of a file opened here. Its bytes are never read (only the
    // kernel's residency table is), so a concurrent change to the file cannot be observed
    // through it; the map is dropped before returning.
    let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
    // SAFETY: sysconf has no preconditions.
    let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
        .ok()
        .filter(|p| *p > 0)?;
    let pages = len.div_ceil(page);
    let mut resident = vec![0u8; pages];
    // SAFETY: `map` starts page-aligned (mmap's result) and spans `len` bytes; `resident`
    // holds one byte per page of that range, as mincore writes.
    let rc = unsafe {
        libc::mincore(
            map.as_ptr() as *mut libc::c_void,
            len,
            resident.as_mut_ptr(),
        )
    };
    if rc != 0 {
        return None;
    }
    let in_cache = resident.iter().filter(|b| **b & 1 == 1).count();
    Some(in_cache as f64 / pages as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_just_written_is_in_the_cache() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![7u8; 1 << 20]).unwrap();
        let fraction = resident_fraction(&path).unwrap();
        assert!(fraction > 0.5, "{fraction}");
        assert!(resident_fraction(&dir.path().join("missing")).is_none());
        std::fs::write(&path, []).unwrap();
        assert_eq!(resident_fraction(&path), Some(0.0));
    }
}
