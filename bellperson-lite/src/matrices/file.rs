//! Constraint matrices on disk: written once next to the parameters, memory-mapped on load.
//!
//! Layout (all integers little-endian; every section starts at a multiple of 8 bytes):
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `CUZKR1CS` |
//! | 4, 4 | format version (1), length of the key |
//! | 8 x 7 | inputs, aux variables, constraints, terms of A, B and C, distinct coefficients |
//! | key, padded to 8 | the caller's key (circuit id and version): another key means stale |
//! | per matrix A, B, C | row ends (u64 per constraint), columns (u32 per term), coefficient indexes (u32 per term), each padded to 8 |
//! | 32 per coefficient | the coefficient table, canonical little-endian |
//! | 32 | SHA-256 of everything before |
//!
//! A file that is truncated, corrupt (checksum), of another version or another key is an
//! error naming what is wrong; [`load_or_record_matrices`] then records the matrices again and
//! replaces the file (written to a temporary name and renamed, so a crash never leaves half a
//! file under the real name).

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bellpepper_core::Circuit;
use blstrs::Scalar;
use memmap2::Mmap;
use sha2::{Digest, Sha256};

use super::buffer::Buffer;
use super::{record_matrices, ConstraintMatrices, MatrixError, SparseRows};

const MAGIC: &[u8; 8] = b"CUZKR1CS";
const VERSION: u32 = 1;
const HEADER: usize = 8 + 4 + 4 + 8 * 7;
const CHECKSUM: usize = 32;

/// Why a matrix file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum MatrixFileError {
    #[error("matrix file {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    #[error("matrix file {path} is not a cuzk matrix file (bad magic)")]
    NotAMatrixFile { path: PathBuf },
    #[error("matrix file {path} has format version {found}, this build reads {VERSION}")]
    Version { path: PathBuf, found: u32 },
    #[error("matrix file {path} was recorded for {found:?}, not {expected:?} (stale)")]
    Stale {
        path: PathBuf,
        found: String,
        expected: String,
    },
    #[error("matrix file {path} is truncated or inconsistent: {what}")]
    Truncated { path: PathBuf, what: String },
    #[error("matrix file {path} is corrupt: checksum mismatch")]
    Checksum { path: PathBuf },
    #[error("matrix file {path}: coefficient {index} is not a field element")]
    BadCoefficient { path: PathBuf, index: usize },
    #[error("recording the matrices failed: {0}")]
    Record(#[from] MatrixError),
}

/// Where [`load_or_record_matrices`] got its matrices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MatrixSource {
    /// Loaded from the file.
    Loaded,
    /// Recorded, and saved; the reason the file was not used, if there was one.
    Recorded { reason: Option<String> },
}

fn pad8(n: usize) -> usize {
    n.next_multiple_of(8)
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> MatrixFileError + '_ {
    move |source| MatrixFileError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `m` to `path` under `key` (atomically: a temporary file in the same folder, then a
/// rename).
pub fn save_matrices(
    m: &ConstraintMatrices,
    key: &str,
    path: &Path,
) -> Result<(), MatrixFileError> {
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(key.len() as u32).to_le_bytes());
    for v in [
        m.num_inputs,
        m.num_aux,
        m.num_constraints(),
        m.a.terms(),
        m.b.terms(),
        m.c.terms(),
        m.coeff_table.len(),
    ] {
        out.extend_from_slice(&(v as u64).to_le_bytes());
    }
    out.extend_from_slice(key.as_bytes());
    out.resize(pad8(out.len()), 0);
    for rows in [&m.a, &m.b, &m.c] {
        for e in rows.row_ends.iter() {
            out.extend_from_slice(&e.to_le_bytes());
        }
        for section in [&rows.cols, &rows.coeffs] {
            for v in section.iter() {
                out.extend_from_slice(&v.to_le_bytes());
            }
            out.resize(pad8(out.len()), 0);
        }
    }
    for c in &m.coeff_table {
        out.extend_from_slice(&c.to_bytes_le());
    }
    let digest = Sha256::digest(&out);
    out.extend_from_slice(&digest);

    let tmp = path.with_extension("tmp");
    let write = || -> io::Result<()> {
        let mut f = File::create(&tmp)?;
        f.write_all(&out)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    };
    write().map_err(io_error(path))
}

/// Reads the little-endian u64 at `at`.
fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// Maps the matrices saved at `path` under `key`. The arrays stay in the mapped file.
pub fn load_matrices(path: &Path, key: &str) -> Result<ConstraintMatrices, MatrixFileError> {
    let file = File::open(path).map_err(io_error(path))?;
    // SAFETY: `Mmap::map` is unsafe because the mapped bytes are handed out as `&[u8]` that
    // Rust assumes immutable while the file could change underneath. Matrix files are
    // written once (to a temporary name, then renamed over the old one, which leaves an
    // existing mapping on the old file's contents) and only read after; the checksum below
    // is verified over the whole map before anything is used. Another process truncating
    // the file in place would still fault (SIGBUS): the documented caveat.
    let map = Arc::new(unsafe { Mmap::map(&file) }.map_err(io_error(path))?);
    let bytes: &[u8] = &map;
    let truncated = |what: String| MatrixFileError::Truncated {
        path: path.to_path_buf(),
        what,
    };
    if bytes.len() < HEADER + CHECKSUM {
        return Err(truncated(format!(
            "{} bytes, shorter than the header",
            bytes.len()
        )));
    }
    if &bytes[..8] != MAGIC {
        return Err(MatrixFileError::NotAMatrixFile {
            path: path.to_path_buf(),
        });
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
    if version != VERSION {
        return Err(MatrixFileError::Version {
            path: path.to_path_buf(),
            found: version,
        });
    }
    let (body, digest) = bytes.split_at(bytes.len() - CHECKSUM);
    if Sha256::digest(body).as_slice() != digest {
        return Err(MatrixFileError::Checksum {
            path: path.to_path_buf(),
        });
    }
    let key_len = u32::from_le_bytes(bytes[12..16].try_into().expect("4 bytes")) as usize;
    let counts: Vec<usize> = (0..7).map(|i| u64_at(bytes, 16 + 8 * i) as usize).collect();
    let [num_inputs, num_aux, rows, nnz_a, nnz_b, nnz_c, coeffs] = counts[..] else {
        unreachable!("seven counts")
    };
    let found_key = bytes
        .get(HEADER..HEADER + key_len)
        .ok_or_else(|| truncated("the key runs past the end".into()))?;
    if found_key != key.as_bytes() {
        return Err(MatrixFileError::Stale {
            path: path.to_path_buf(),
            found: String::from_utf8_lossy(found_key).into_owned(),
            expected: key.to_string(),
        });
    }

    let mut at = pad8(HEADER + key_len);
    let mut section = |len: usize, size: usize, what: &str| -> Result<usize, MatrixFileError> {
        let start = at;
        let bytes_len = len
            .checked_mul(size)
            .ok_or_else(|| truncated(format!("{what}: impossible length {len}")))?;
        at = pad8(start + bytes_len);
        if at > body.len() {
            return Err(truncated(format!("{what} runs past the end")));
        }
        Ok(start)
    };
    let mut matrices = Vec::with_capacity(3);
    for (name, nnz) in [("A", nnz_a), ("B", nnz_b), ("C", nnz_c)] {
        let ends = section(rows, 8, &format!("{name} row ends"))?;
        let cols = section(nnz, 4, &format!("{name} columns"))?;
        let idx = section(nnz, 4, &format!("{name} coefficient indexes"))?;
        matrices.push((name, nnz, ends, cols, idx));
    }
    let table_at = section(coeffs, 32, "coefficient table")?;
    if at != body.len() {
        return Err(truncated(format!(
            "{} unexpected bytes before the checksum",
            body.len() - at
        )));
    }

    let mut table = Vec::with_capacity(coeffs);
    for index in 0..coeffs {
        let raw: [u8; 32] = bytes[table_at + 32 * index..table_at + 32 * (index + 1)]
            .try_into()
            .expect("32 bytes");
        let c = Option::<Scalar>::from(Scalar::from_bytes_le(&raw)).ok_or(
            MatrixFileError::BadCoefficient {
                path: path.to_path_buf(),
                index,
            },
        )?;
        table.push(c);
    }
    let columns = num_inputs + num_aux;
    let mut sparse = Vec::with_capacity(3);
    for (name, nnz, ends, cols, idx) in matrices {
        let rows_view = SparseRows {
            row_ends: mapped(&map, ends, rows, path)?,
            cols: mapped(&map, cols, nnz, path)?,
            coeffs: mapped(&map, idx, nnz, path)?,
        };
        // Everything the products index must be in range: a bad index would panic there.
        let mut last = 0u64;
        for &e in rows_view.row_ends.iter() {
            if e < last || e > nnz as u64 {
                return Err(truncated(format!(
                    "{name}: row ends out of order or past {nnz} terms"
                )));
            }
            last = e;
        }
        if rows > 0 && last != nnz as u64 {
            return Err(truncated(format!(
                "{name}: rows end at term {last}, not {nnz}"
            )));
        }
        if rows_view.cols.iter().any(|&c| c as usize >= columns) {
            return Err(truncated(format!(
                "{name}: a column past the {columns} variables"
            )));
        }
        if rows_view.coeffs.iter().any(|&k| k as usize >= coeffs) {
            return Err(truncated(format!(
                "{name}: a coefficient index past the table"
            )));
        }
        sparse.push(rows_view);
    }
    let c = sparse.pop().expect("three matrices");
    let b = sparse.pop().expect("three matrices");
    let a = sparse.pop().expect("three matrices");
    Ok(ConstraintMatrices::from_parts(
        num_inputs, num_aux, a, b, c, table,
    ))
}

/// A section of the map as a buffer: borrowed where the platform's byte order is the file's,
/// copied and converted otherwise.
fn mapped<T: bytemuck::Pod + FromLe>(
    map: &Arc<Mmap>,
    offset: usize,
    len: usize,
    path: &Path,
) -> Result<Buffer<T>, MatrixFileError> {
    let misplaced = || MatrixFileError::Truncated {
        path: path.to_path_buf(),
        what: format!("a section at byte {offset} is outside the file or misaligned"),
    };
    if cfg!(target_endian = "little") {
        return Buffer::mapped(map, offset, len).ok_or_else(misplaced);
    }
    let size = std::mem::size_of::<T>();
    let bytes = map.get(offset..offset + len * size).ok_or_else(misplaced)?;
    Ok(Buffer::Owned(
        bytes.chunks_exact(size).map(T::from_le).collect(),
    ))
}

/// Little-endian decoding of the file's integer types.
trait FromLe: Sized {
    fn from_le(bytes: &[u8]) -> Self;
}

impl FromLe for u32 {
    fn from_le(bytes: &[u8]) -> Self {
        u32::from_le_bytes(bytes.try_into().expect("4 bytes"))
    }
}

impl FromLe for u64 {
    fn from_le(bytes: &[u8]) -> Self {
        u64::from_le_bytes(bytes.try_into().expect("8 bytes"))
    }
}

/// The matrices of `circuit`'s shape: mapped from `path` if it holds them under `key`,
/// otherwise recorded from `circuit`, saved there (replacing a stale or damaged file) and
/// mapped back from it. Mapped, they are file-backed pages the host can reclaim under memory
/// pressure, instead of a heap copy as large as the file for as long as the caller keeps them.
/// (The file is replaced by renaming, never rewritten in place, so a mapping stays valid.)
pub fn load_or_record_matrices<C: Circuit<Scalar>>(
    path: &Path,
    key: &str,
    circuit: C,
) -> Result<(ConstraintMatrices, MatrixSource), MatrixFileError> {
    let reason = match load_matrices(path, key) {
        Ok(m) => return Ok((m, MatrixSource::Loaded)),
        Err(MatrixFileError::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => None,
        Err(e) => Some(e.to_string()),
    };
    let recorded = record_matrices(circuit)?;
    save_matrices(&recorded, key, path)?;
    // Should the file just written not load back, the recorded copy serves as well.
    let m = load_matrices(path, key).unwrap_or(recorded);
    Ok((m, MatrixSource::Recorded { reason }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::circuits::{MixCircuit, ShaCircuit};
    use crate::matrices::synthesize_witness;

    #[test]
    fn round_trip_maps_the_same_matrices() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sha10.r1cs");
        let m = record_matrices(ShaCircuit::new(10, 1)).unwrap();
        save_matrices(&m, "sha-10 v1", &path).unwrap();
        let loaded = load_matrices(&path, "sha-10 v1").unwrap();
        assert!(matches!(loaded.a.cols, Buffer::Mapped { .. }) || cfg!(target_endian = "big"));
        assert_eq!(loaded, m);
        // And they serve a witness like the recorded ones.
        let c = ShaCircuit::new(10, 7);
        let w = synthesize_witness(c.clone()).unwrap();
        assert_eq!(
            loaded.assignment(w.clone()).unwrap(),
            m.assignment(w).unwrap()
        );
    }

    #[test]
    fn damage_is_detected_and_repaired() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mix.r1cs");
        let circuit = MixCircuit::new(8, 0.5, 3);
        let key = "mix-8";
        let m = record_matrices(circuit.clone()).unwrap();
        let (saved, source) = load_or_record_matrices(&path, key, circuit.clone()).unwrap();
        assert_eq!(source, MatrixSource::Recorded { reason: None });
        assert_eq!(saved, m);
        // Recorded, saved, and held as the mapped file, not as a heap copy.
        assert!(matches!(saved.a.cols, Buffer::Mapped { .. }) || cfg!(target_endian = "big"));
        let (again, source) = load_or_record_matrices(&path, key, circuit.clone()).unwrap();
        assert_eq!((source, &again), (MatrixSource::Loaded, &m));
        // Before the file is damaged in place below (a test's doing: saving renames).
        drop((saved, again));
        let good = fs::read(&path).unwrap();

        // Every truncation is an error, never a panic.
        for len in [0, 7, 20, HEADER, good.len() / 2, good.len() - 1] {
            fs::write(&path, &good[..len]).unwrap();
            let err = load_matrices(&path, key).unwrap_err();
            assert!(
                matches!(
                    err,
                    MatrixFileError::Truncated { .. } | MatrixFileError::Checksum { .. }
                ),
                "length {len}: {err}"
            );
        }
        // A flipped byte anywhere is caught by the checksum (or the magic / version).
        for at in [0, 9, HEADER + 1, good.len() / 3, good.len() - 40] {
            let mut bad = good.clone();
            bad[at] ^= 0x40;
            fs::write(&path, &bad).unwrap();
            assert!(load_matrices(&path, key).is_err(), "flip at {at}");
        }
        // Another key is stale.
        fs::write(&path, &good).unwrap();
        assert!(matches!(
            load_matrices(&path, "mix-8 other").unwrap_err(),
            MatrixFileError::Stale { .. }
        ));

        // load_or_record repairs a damaged file and says why.
        let mut bad = good.clone();
        let mid = bad.len() / 2;
        bad[mid] ^= 1;
        fs::write(&path, &bad).unwrap();
        let (repaired, source) = load_or_record_matrices(&path, key, circuit).unwrap();
        assert_eq!(repaired, m);
        drop(repaired);
        match source {
            MatrixSource::Recorded { reason: Some(r) } => assert!(r.contains("checksum"), "{r}"),
            other => panic!("expected a re-recording, got {other:?}"),
        }
        assert_eq!(fs::read(&path).unwrap(), good);
    }
}
