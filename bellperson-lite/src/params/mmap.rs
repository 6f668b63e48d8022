//! Memory-mapped reader of a parameter file.
//!
//! The file is mapped once; a first pass walks the count fields and checks every section's
//! length against the file size (so a truncated file fails at once, before any point is
//! decoded), then each section's points are decoded in parallel straight from the mapped pages.
//! No copy of the raw file is made: the only large allocations are the decoded sections.

use std::fs::File;
use std::path::Path;

use memmap2::Mmap;

use super::io::{decode_points_into, decode_vk_point, names, FilePoint};
use super::{Parameters, VerifyingKey};
use crate::error::ParamsError;

/// One field of the file: where it starts and its bytes.
struct Field<'a> {
    offset: u64,
    bytes: &'a [u8],
}

/// A section's points, still encoded.
struct RawSection<'a> {
    name: &'static str,
    field: Field<'a>,
}

/// Walks the file front to back, handing out fields after checking they fit.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, section: &'static str, needed: u64) -> Result<Field<'a>, ParamsError> {
        let rest = &self.bytes[self.pos..];
        let available = rest.len() as u64;
        if needed > available {
            return Err(ParamsError::Truncated {
                section,
                offset: self.pos as u64,
                needed,
                available,
            });
        }
        // `needed` is at most `rest.len()`, so it fits a usize.
        let (field, _) = rest.split_at(needed as usize);
        let offset = self.pos as u64;
        self.pos += field.len();
        Ok(Field {
            offset,
            bytes: field,
        })
    }

    fn count(&mut self, section: &'static str) -> Result<u64, ParamsError> {
        let field = self.take(section, 4)?;
        let mut raw = [0u8; 4];
        raw.copy_from_slice(field.bytes);
        Ok(u64::from(u32::from_be_bytes(raw)))
    }

    fn section<P: FilePoint>(
        &mut self,
        count_section: &'static str,
        name: &'static str,
    ) -> Result<RawSection<'a>, ParamsError> {
        let count = self.count(count_section)?;
        let field = self.take(name, count * P::SIZE as u64)?;
        Ok(RawSection { name, field })
    }
}

impl RawSection<'_> {
    fn decode<P: FilePoint>(&self, checked: bool) -> Result<Vec<P>, ParamsError> {
        let mut points = vec![P::identity(); self.field.bytes.len() / P::SIZE];
        decode_points_into(
            self.name,
            self.field.bytes,
            0,
            self.field.offset,
            checked,
            &mut points,
        )?;
        Ok(points)
    }
}

/// Parses a whole parameter file held in memory (the mapped file).
fn parse(bytes: &[u8], checked: bool) -> Result<Parameters, ParamsError> {
    use blstrs::{G1Affine, G2Affine};

    let mut cur = Cursor { bytes, pos: 0 };
    // Pass 1: the layout. Every length is checked before anything is decoded.
    let alpha_g1 = cur.take(names::ALPHA_G1, G1Affine::SIZE as u64)?;
    let beta_g1 = cur.take(names::BETA_G1, G1Affine::SIZE as u64)?;
    let beta_g2 = cur.take(names::BETA_G2, G2Affine::SIZE as u64)?;
    let gamma_g2 = cur.take(names::GAMMA_G2, G2Affine::SIZE as u64)?;
    let delta_g1 = cur.take(names::DELTA_G1, G1Affine::SIZE as u64)?;
    let delta_g2 = cur.take(names::DELTA_G2, G2Affine::SIZE as u64)?;
    let ic = cur.section::<G1Affine>(names::IC_COUNT, names::IC)?;
    let h = cur.section::<G1Affine>(names::H_COUNT, names::H)?;
    let l = cur.section::<G1Affine>(names::L_COUNT, names::L)?;
    let a = cur.section::<G1Affine>(names::A_COUNT, names::A)?;
    let b_g1 = cur.section::<G1Affine>(names::B_G1_COUNT, names::B_G1)?;
    let b_g2 = cur.section::<G2Affine>(names::B_G2_COUNT, names::B_G2)?;
    if cur.pos < bytes.len() {
        return Err(ParamsError::TrailingBytes {
            offset: cur.pos as u64,
            count: (bytes.len() - cur.pos) as u64,
        });
    }

    // Pass 2: the points, in file order so that the first bad one is the one reported.
    let vk_point_g1 =
        |name: &'static str, f: &Field<'_>| decode_vk_point::<G1Affine>(name, f.bytes, f.offset);
    let vk_point_g2 =
        |name: &'static str, f: &Field<'_>| decode_vk_point::<G2Affine>(name, f.bytes, f.offset);
    let vk = VerifyingKey {
        alpha_g1: vk_point_g1(names::ALPHA_G1, &alpha_g1)?,
        beta_g1: vk_point_g1(names::BETA_G1, &beta_g1)?,
        beta_g2: vk_point_g2(names::BETA_G2, &beta_g2)?,
        gamma_g2: vk_point_g2(names::GAMMA_G2, &gamma_g2)?,
        delta_g1: vk_point_g1(names::DELTA_G1, &delta_g1)?,
        delta_g2: vk_point_g2(names::DELTA_G2, &delta_g2)?,
        // Always checked, as in the streaming reader and in bellperson.
        ic: ic.decode(true)?,
    };
    Ok(Parameters {
        vk,
        h: h.decode(checked)?,
        l: l.decode(checked)?,
        a: a.decode(checked)?,
        b_g1: b_g1.decode(checked)?,
        b_g2: b_g2.decode(checked)?,
    })
}

/// Reads a parameter file through a memory map, decoding its points in parallel.
///
/// Same checks and errors as [`super::read_parameters_file`] (including
/// [`ParamsError::TrailingBytes`]), except that a truncated file is reported before any point
/// is decoded.
///
/// Caveat: should another process truncate the file while it is being read, the process gets
/// `SIGBUS`; parameter files are written once and then only read, so this is not guarded.
pub fn read_parameters_mmap(path: &Path, checked: bool) -> Result<Parameters, ParamsError> {
    let open_error = |source| ParamsError::Open {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(open_error)?;
    read_parameters_mmap_file(&file, path, checked)
}

/// [`read_parameters_mmap`] of a file the caller opened, so that it chooses how (the engine
/// opens parameter files without following a final symlink, after checking where they are);
/// `path` names the file in errors.
pub fn read_parameters_mmap_file(
    file: &File,
    path: &Path,
    checked: bool,
) -> Result<Parameters, ParamsError> {
    let open_error = |source| ParamsError::Open {
        path: path.to_path_buf(),
        source,
    };
    // SAFETY: `Mmap::map` is unsafe because the mapped bytes are handed out as a `&[u8]` that
    // Rust assumes immutable, while the file underneath could change. Here the file is opened
    // read-only, the map is only read and is dropped before returning (no reference into it
    // escapes), and parameter files are written once and then only read. The remaining risk,
    // another process modifying or truncating the file during the read (the latter raising
    // SIGBUS), is the documented caveat of this function.
    let map = unsafe { Mmap::map(file) }.map_err(open_error)?;
    parse(&map, checked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_reports_the_field_that_does_not_fit() {
        let bytes = [0u8, 0, 0, 2, 1, 2, 3];
        let mut cur = Cursor {
            bytes: &bytes,
            pos: 0,
        };
        assert_eq!(cur.count("x.count").unwrap(), 2);
        match cur.take("x", 2 * 96) {
            Err(ParamsError::Truncated {
                section,
                offset,
                needed,
                available,
            }) => {
                assert_eq!((section, offset, needed, available), ("x", 4, 192, 3));
            }
            _ => panic!("expected Truncated"),
        }
    }

    #[test]
    fn empty_input_is_truncated_at_alpha() {
        match parse(&[], true) {
            Err(ParamsError::Truncated {
                section, offset, ..
            }) => assert_eq!((section, offset), ("vk.alpha_g1", 0)),
            other => panic!("expected Truncated, got {other:?}"),
        }
    }
}
