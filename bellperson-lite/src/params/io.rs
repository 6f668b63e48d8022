//! Streaming reader and writer for the bellperson parameter / verifying-key format (layout in
//! the [`super`] module docs), plus the point-decoding helpers that the memory-mapped reader
//! shares.
//!
//! Parameter files run to tens of GB and a checked decode (subgroup check) costs tens of
//! microseconds per point, so the reader pulls each section in chunks of raw bytes and decodes
//! a chunk's points in parallel with rayon; the I/O itself stays sequential.
//!
//! Errors name the section (or the count field, e.g. `h.count`) and the byte offset, counted
//! from the start of the stream, so a bad file can be located with a hex dump.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;

use blstrs::{G1Affine, G2Affine};
use group::prime::PrimeCurveAffine;
use group::UncompressedEncoding;
use rayon::prelude::*;

use super::{Parameters, VerifyingKey, G1_UNCOMPRESSED_BYTES, G2_UNCOMPRESSED_BYTES};
use crate::error::{ParamsError, PointError};

/// Points decoded (or encoded) per chunk: big enough to keep every core busy and to amortise
/// the rayon fork/join, small enough (6 MiB of G1, 12 MiB of G2) to bound the raw buffer.
const CHUNK_POINTS: usize = 1 << 16;

/// The most points reserved before any of them has been read. A count field is untrusted: in a
/// truncated or corrupt file it can claim 4 billion points, which must not turn into a 400 GB
/// allocation before the read finds out the data is not there.
const MAX_PREALLOC_POINTS: usize = 1 << 16;

/// Below this many points a rayon task is not worth splitting further.
const MIN_POINTS_PER_TASK: usize = 64;

/// Buffer of the writers; large sections are written in whole chunks that bypass it.
const WRITE_BUFFER_BYTES: usize = 1 << 16;

/// Buffer of [`read_parameters_file`]; the large chunk reads bypass it, it only gathers the
/// small reads of counts and single verifying-key points.
const READ_BUFFER_BYTES: usize = 1 << 16;

/// A curve point type that appears in the file, with its uncompressed size.
pub(super) trait FilePoint: UncompressedEncoding + PrimeCurveAffine + Send + Sync {
    const SIZE: usize;
}

impl FilePoint for G1Affine {
    const SIZE: usize = G1_UNCOMPRESSED_BYTES;
}

impl FilePoint for G2Affine {
    const SIZE: usize = G2_UNCOMPRESSED_BYTES;
}

/// Decodes one uncompressed point of exactly `P::SIZE` bytes.
///
/// `checked` selects blstrs's `from_uncompressed` (on curve and in the prime-order subgroup)
/// over `from_uncompressed_unchecked` (blst still checks that the point is on the curve). On a
/// checked failure the unchecked decode is tried as well, only to tell the two reasons apart.
/// The point at infinity is returned as such: whether it is allowed depends on the field.
pub(super) fn decode_point<P: FilePoint>(bytes: &[u8], checked: bool) -> Result<P, PointError> {
    let mut repr = P::Uncompressed::default();
    // The callers slice exact `P::SIZE` pieces, so the lengths always agree.
    repr.as_mut().copy_from_slice(bytes);
    if checked {
        if let Some(p) = Option::<P>::from(P::from_uncompressed(&repr)) {
            return Ok(p);
        }
        return match Option::<P>::from(P::from_uncompressed_unchecked(&repr)) {
            Some(_) => Err(PointError::NotInSubgroup),
            None => Err(PointError::NotOnCurve),
        };
    }
    Option::from(P::from_uncompressed_unchecked(&repr)).ok_or(PointError::NotOnCurve)
}

/// Decodes one of the six fixed verifying-key points. Like bellperson, these are always
/// checked (whatever the caller asked for the rest of the file) and may be the point at
/// infinity: bellperson's `VerifyingKey::read` only rejects infinity in `ic`.
pub(super) fn decode_vk_point<P: FilePoint>(
    section: &'static str,
    bytes: &[u8],
    offset: u64,
) -> Result<P, ParamsError> {
    decode_point(bytes, true).map_err(|reason| ParamsError::InvalidPoint {
        section,
        index: 0,
        offset,
        reason,
    })
}

/// Decodes the raw points of (part of) a section into `dst`, in parallel, rejecting the point
/// at infinity. `raw` holds exactly `dst.len()` encoded points; the first of them is point
/// number `first_index` of the section and starts at byte `offset` of the file.
///
/// Should several points be bad, the error names the first one, so that the answer does not
/// depend on thread scheduling.
pub(super) fn decode_points_into<P: FilePoint>(
    section: &'static str,
    raw: &[u8],
    first_index: usize,
    offset: u64,
    checked: bool,
    dst: &mut [P],
) -> Result<(), ParamsError> {
    debug_assert_eq!(raw.len(), dst.len() * P::SIZE);
    let failure = dst
        .par_iter_mut()
        .zip(raw.par_chunks_exact(P::SIZE))
        .enumerate()
        .with_min_len(MIN_POINTS_PER_TASK)
        .find_map_first(|(i, (slot, bytes))| {
            let decoded = decode_point::<P>(bytes, checked).and_then(|p| {
                if bool::from(p.is_identity()) {
                    Err(PointError::Infinity)
                } else {
                    Ok(p)
                }
            });
            match decoded {
                Ok(p) => {
                    *slot = p;
                    None
                }
                Err(reason) => Some((i, reason)),
            }
        });
    match failure {
        None => Ok(()),
        Some((i, reason)) => Err(ParamsError::InvalidPoint {
            section,
            index: first_index + i,
            offset: offset + (i as u64) * (P::SIZE as u64),
            reason,
        }),
    }
}

/// Names of the six fixed verifying-key points, in file order, shared with the mmap reader so
/// both report the same section names.
pub(super) mod names {
    pub const ALPHA_G1: &str = "vk.alpha_g1";
    pub const BETA_G1: &str = "vk.beta_g1";
    pub const BETA_G2: &str = "vk.beta_g2";
    pub const GAMMA_G2: &str = "vk.gamma_g2";
    pub const DELTA_G1: &str = "vk.delta_g1";
    pub const DELTA_G2: &str = "vk.delta_g2";
    pub const IC_COUNT: &str = "vk.ic.count";
    pub const IC: &str = "vk.ic";
    pub const H_COUNT: &str = "h.count";
    pub const H: &str = "h";
    pub const L_COUNT: &str = "l.count";
    pub const L: &str = "l";
    pub const A_COUNT: &str = "a.count";
    pub const A: &str = "a";
    pub const B_G1_COUNT: &str = "b_g1.count";
    pub const B_G1: &str = "b_g1";
    pub const B_G2_COUNT: &str = "b_g2.count";
    pub const B_G2: &str = "b_g2";
}

/// A reader that counts the bytes it has consumed, and knows the total length when it reads a
/// file (then a count that promises more than the file holds fails before any data is read).
struct Stream<R> {
    inner: R,
    offset: u64,
    len: Option<u64>,
}

impl<R: Read> Stream<R> {
    fn new(inner: R, len: Option<u64>) -> Self {
        Self {
            inner,
            offset: 0,
            len,
        }
    }

    /// Fails up front when the length is known and fewer than `needed` bytes are left.
    fn ensure_available(&self, section: &'static str, needed: u64) -> Result<(), ParamsError> {
        if let Some(len) = self.len {
            let available = len.saturating_sub(self.offset);
            if needed > available {
                return Err(ParamsError::Truncated {
                    section,
                    offset: self.offset,
                    needed,
                    available,
                });
            }
        }
        Ok(())
    }

    /// Fills `buf` with the next bytes of `section`, a field that started at `field_start` and
    /// is `field_len` bytes long in all (both used only for the error, so that a truncation is
    /// reported the same way whichever chunk of a section it hits).
    fn fill(
        &mut self,
        buf: &mut [u8],
        section: &'static str,
        field_start: u64,
        field_len: u64,
    ) -> Result<(), ParamsError> {
        let mut got = 0;
        while got < buf.len() {
            match self.inner.read(&mut buf[got..]) {
                Ok(0) => {
                    return Err(ParamsError::Truncated {
                        section,
                        offset: field_start,
                        needed: field_len,
                        available: self.offset - field_start,
                    })
                }
                Ok(n) => {
                    got += n;
                    self.offset += n as u64;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(source) => return Err(ParamsError::Io { section, source }),
            }
        }
        Ok(())
    }

    fn read_count(&mut self, section: &'static str) -> Result<usize, ParamsError> {
        let mut raw = [0u8; 4];
        self.ensure_available(section, 4)?;
        let start = self.offset;
        self.fill(&mut raw, section, start, 4)?;
        // A u32 always fits a usize on the 32- and 64-bit targets this crate builds for.
        Ok(u32::from_be_bytes(raw) as usize)
    }

    fn read_vk_point<P: FilePoint>(&mut self, section: &'static str) -> Result<P, ParamsError> {
        let mut repr = P::Uncompressed::default();
        let raw = repr.as_mut();
        self.ensure_available(section, P::SIZE as u64)?;
        let start = self.offset;
        self.fill(raw, section, start, P::SIZE as u64)?;
        decode_vk_point(section, raw, start)
    }

    /// Reads a count field and the points it announces, chunk by chunk.
    fn read_section<P: FilePoint>(
        &mut self,
        count_section: &'static str,
        section: &'static str,
        checked: bool,
    ) -> Result<Vec<P>, ParamsError> {
        let count = self.read_count(count_section)?;
        let total = count as u64 * P::SIZE as u64;
        self.ensure_available(section, total)?;
        let start = self.offset;

        let mut points: Vec<P> = Vec::with_capacity(count.min(MAX_PREALLOC_POINTS));
        let mut raw = vec![0u8; count.min(CHUNK_POINTS) * P::SIZE];
        while points.len() < count {
            let done = points.len();
            let n = (count - done).min(CHUNK_POINTS);
            let chunk = &mut raw[..n * P::SIZE];
            let chunk_offset = self.offset;
            self.fill(chunk, section, start, total)?;
            points.resize(done + n, P::identity());
            decode_points_into(
                section,
                chunk,
                done,
                chunk_offset,
                checked,
                &mut points[done..],
            )?;
        }
        Ok(points)
    }

    fn read_vk(&mut self) -> Result<VerifyingKey, ParamsError> {
        Ok(VerifyingKey {
            alpha_g1: self.read_vk_point(names::ALPHA_G1)?,
            beta_g1: self.read_vk_point(names::BETA_G1)?,
            beta_g2: self.read_vk_point(names::BETA_G2)?,
            gamma_g2: self.read_vk_point(names::GAMMA_G2)?,
            delta_g1: self.read_vk_point(names::DELTA_G1)?,
            delta_g2: self.read_vk_point(names::DELTA_G2)?,
            // `ic` is checked even when the caller reads the rest unchecked, as bellperson does.
            ic: self.read_section(names::IC_COUNT, names::IC, true)?,
        })
    }

    fn read_params(&mut self, checked: bool) -> Result<Parameters, ParamsError> {
        Ok(Parameters {
            vk: self.read_vk()?,
            h: self.read_section(names::H_COUNT, names::H, checked)?,
            l: self.read_section(names::L_COUNT, names::L, checked)?,
            a: self.read_section(names::A_COUNT, names::A, checked)?,
            b_g1: self.read_section(names::B_G1_COUNT, names::B_G1, checked)?,
            b_g2: self.read_section(names::B_G2_COUNT, names::B_G2, checked)?,
        })
    }
}

/// Reads a verifying key (a `.vk` file, or the head of a parameter file).
///
/// All its points are fully checked, and none of `ic` may be the point at infinity. Bytes after
/// the key are left unread in `r`.
pub fn read_verifying_key<R: Read>(r: R) -> Result<VerifyingKey, ParamsError> {
    Stream::new(r, None).read_vk()
}

/// Reads parameters from any reader.
///
/// `checked` selects the subgroup check for the query sections (`h`, `l`, `a`, `b_g1`,
/// `b_g2`); points are always checked to lie on the curve, and the verifying key is always
/// fully checked. The reader is not buffered here: pass a `BufReader` for unbuffered sources.
///
/// The reader stops after `b_g2`: since its total length is unknown, bytes after the last
/// section are not detected (use [`read_parameters_file`] or
/// [`super::read_parameters_mmap`] for that).
pub fn read_parameters<R: Read>(r: R, checked: bool) -> Result<Parameters, ParamsError> {
    Stream::new(r, None).read_params(checked)
}

/// Reads a parameter file as a stream (see [`read_parameters`]), failing early when a count
/// promises more bytes than the file holds, and with [`ParamsError::TrailingBytes`] when the
/// file goes on after `b_g2`.
pub fn read_parameters_file(path: &Path, checked: bool) -> Result<Parameters, ParamsError> {
    let open_error = |source| ParamsError::Open {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(open_error)?;
    let len = file.metadata().map_err(open_error)?.len();
    let mut stream = Stream::new(BufReader::with_capacity(READ_BUFFER_BYTES, file), Some(len));
    let params = stream.read_params(checked)?;
    if stream.offset < len {
        return Err(ParamsError::TrailingBytes {
            offset: stream.offset,
            count: len - stream.offset,
        });
    }
    Ok(params)
}

/// Writes a section's count and points; the points of each chunk are encoded in parallel.
fn write_section<P: FilePoint, W: Write>(w: &mut W, points: &[P]) -> io::Result<()> {
    write_count(w, points.len())?;
    write_points(w, points)
}

/// A section's count, as the format's big-endian u32.
fn write_count<W: Write>(w: &mut W, count: usize) -> io::Result<()> {
    let count = u32::try_from(count).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{count} points do not fit the format's 32-bit count"),
        )
    })?;
    w.write_all(&count.to_be_bytes())
}

/// Uncompressed points, each chunk encoded in parallel.
fn write_points<P: FilePoint, W: Write>(w: &mut W, points: &[P]) -> io::Result<()> {
    let mut raw = vec![0u8; points.len().min(CHUNK_POINTS) * P::SIZE];
    for chunk in points.chunks(CHUNK_POINTS) {
        let bytes = &mut raw[..chunk.len() * P::SIZE];
        bytes
            .par_chunks_exact_mut(P::SIZE)
            .zip(chunk.par_iter())
            .with_min_len(MIN_POINTS_PER_TASK)
            .for_each(|(dst, p)| dst.copy_from_slice(p.to_uncompressed().as_ref()));
        w.write_all(bytes)?;
    }
    Ok(())
}

/// The query sections in file order, with the group their points are in.
const STREAMED_SECTIONS: [(&str, bool); 5] = [
    ("h", false),
    ("l", false),
    ("a", false),
    ("b_g1", false),
    ("b_g2", true),
];

/// Writes a parameter file as its points are made, so that a file larger than memory (a
/// 32 GiB PoRep's is about 47 GB) never has to be held whole: the verifying key first, then
/// each query section in file order (h, l, a, b_g1, b_g2), announced with its count and then
/// given its points in any number of pieces. The bytes are those [`write_parameters`] writes
/// for the same points; writing out of order, more or fewer points than announced, or
/// finishing early is an `InvalidInput` error, never a malformed file.
pub struct ParametersWriter<W: Write> {
    w: BufWriter<W>,
    /// The index in [`STREAMED_SECTIONS`] of the section being written, if one is begun.
    section: Option<usize>,
    /// Points announced for the current section, and written so far.
    announced: usize,
    written: usize,
}

impl<W: Write> ParametersWriter<W> {
    /// Starts the file with its verifying key.
    pub fn new(vk: &VerifyingKey, w: W) -> io::Result<Self> {
        let mut w = BufWriter::with_capacity(WRITE_BUFFER_BYTES, w);
        write_vk_to(vk, &mut w)?;
        Ok(ParametersWriter {
            w,
            section: None,
            announced: 0,
            written: 0,
        })
    }

    /// Begins the next section, which will hold `count` points.
    pub fn begin_section(&mut self, name: &str, count: usize) -> io::Result<()> {
        self.check_complete()?;
        let next = self.section.map_or(0, |s| s + 1);
        match STREAMED_SECTIONS.get(next) {
            Some((expected, _)) if *expected == name => {}
            Some((expected, _)) => {
                return Err(invalid(format!(
                    "section `{name}` begun where the format has `{expected}`"
                )))
            }
            None => return Err(invalid(format!("section `{name}` begun after b_g2"))),
        }
        write_count(&mut self.w, count)?;
        self.section = Some(next);
        self.announced = count;
        self.written = 0;
        Ok(())
    }

    /// The next points of the current G1 section (h, l, a or b_g1).
    pub fn write_g1(&mut self, points: &[G1Affine]) -> io::Result<()> {
        self.check_room(false, points.len())?;
        write_points(&mut self.w, points)?;
        self.written += points.len();
        Ok(())
    }

    /// The next points of b_g2.
    pub fn write_g2(&mut self, points: &[G2Affine]) -> io::Result<()> {
        self.check_room(true, points.len())?;
        write_points(&mut self.w, points)?;
        self.written += points.len();
        Ok(())
    }

    /// Flushes the file once every section is complete, and gives the writer back.
    pub fn finish(mut self) -> io::Result<W> {
        self.check_complete()?;
        if self.section != Some(STREAMED_SECTIONS.len() - 1) {
            return Err(invalid("the file was finished before b_g2".into()));
        }
        self.w.flush()?;
        self.w.into_inner().map_err(|e| e.into_error())
    }

    fn check_room(&self, g2: bool, more: usize) -> io::Result<()> {
        let Some(section) = self.section else {
            return Err(invalid(
                "points written before any section was begun".into(),
            ));
        };
        let (name, is_g2) = STREAMED_SECTIONS[section];
        if is_g2 != g2 {
            return Err(invalid(format!(
                "{} points written into section `{name}`",
                if g2 { "G2" } else { "G1" }
            )));
        }
        if self.written + more > self.announced {
            return Err(invalid(format!(
                "section `{name}` announced {} points; {} written",
                self.announced,
                self.written + more
            )));
        }
        Ok(())
    }

    fn check_complete(&self) -> io::Result<()> {
        match self.section {
            Some(section) if self.written != self.announced => Err(invalid(format!(
                "section `{}` announced {} points but got {}",
                STREAMED_SECTIONS[section].0, self.announced, self.written
            ))),
            _ => Ok(()),
        }
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, message)
}

fn write_vk_to<W: Write>(vk: &VerifyingKey, w: &mut W) -> io::Result<()> {
    w.write_all(&vk.alpha_g1.to_uncompressed())?;
    w.write_all(&vk.beta_g1.to_uncompressed())?;
    w.write_all(&vk.beta_g2.to_uncompressed())?;
    w.write_all(&vk.gamma_g2.to_uncompressed())?;
    w.write_all(&vk.delta_g1.to_uncompressed())?;
    w.write_all(&vk.delta_g2.to_uncompressed())?;
    write_section(w, &vk.ic)
}

/// Writes a verifying key in bellperson's format. The writer is buffered internally.
///
/// Fails with `InvalidInput` should `ic` hold more than `u32::MAX` points.
pub fn write_verifying_key<W: Write>(vk: &VerifyingKey, w: W) -> io::Result<()> {
    let mut w = BufWriter::with_capacity(WRITE_BUFFER_BYTES, w);
    write_vk_to(vk, &mut w)?;
    w.flush()
}

/// Writes parameters in bellperson's format (byte-identical to bellperson's
/// `Parameters::write`). The writer is buffered internally.
///
/// Fails with `InvalidInput` should a section hold more than `u32::MAX` points.
pub fn write_parameters<W: Write>(p: &Parameters, w: W) -> io::Result<()> {
    let mut w = BufWriter::with_capacity(WRITE_BUFFER_BYTES, w);
    write_vk_to(&p.vk, &mut w)?;
    write_section(&mut w, &p.h)?;
    write_section(&mut w, &p.l)?;
    write_section(&mut w, &p.a)?;
    write_section(&mut w, &p.b_g1)?;
    write_section(&mut w, &p.b_g2)?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use group::Group;

    #[test]
    fn decode_point_classifies_failures() {
        let g = G1Affine::from(blstrs::G1Projective::generator());
        let good = g.to_uncompressed();
        assert_eq!(decode_point::<G1Affine>(&good, true), Ok(g));
        assert_eq!(decode_point::<G1Affine>(&good, false), Ok(g));

        let mut off_curve = good;
        off_curve[95] ^= 1;
        assert_eq!(
            decode_point::<G1Affine>(&off_curve, true),
            Err(PointError::NotOnCurve)
        );
        assert_eq!(
            decode_point::<G1Affine>(&off_curve, false),
            Err(PointError::NotOnCurve)
        );

        // Infinity decodes; rejecting it is the section decoder's job.
        let mut inf = [0u8; 96];
        inf[0] = 0x40;
        let p = decode_point::<G1Affine>(&inf, true).expect("infinity is a valid encoding");
        assert!(bool::from(p.is_identity()));
    }

    #[test]
    fn section_decoder_reports_first_bad_point() {
        let g = G2Affine::from(blstrs::G2Projective::generator());
        let mut raw = Vec::new();
        for _ in 0..300 {
            raw.extend_from_slice(&g.to_uncompressed());
        }
        raw[200 * 192 + 191] ^= 1;
        raw[250 * 192] = 0x40; // not a valid infinity either: the rest is not zero
        let mut dst = vec![G2Affine::identity(); 300];
        let err = decode_points_into("b_g2", &raw, 10, 1000, false, &mut dst).unwrap_err();
        match err {
            ParamsError::InvalidPoint {
                section,
                index,
                offset,
                reason,
            } => {
                assert_eq!(section, "b_g2");
                assert_eq!(index, 210);
                assert_eq!(offset, 1000 + 200 * 192);
                assert_eq!(reason, PointError::NotOnCurve);
            }
            other => panic!("unexpected error {other:?}"),
        }
        assert!(dst[..200].iter().all(|p| *p == g));
    }

    #[test]
    fn the_streaming_writer_writes_the_same_bytes_and_refuses_misuse() {
        let g1 = G1Affine::from(blstrs::G1Projective::generator());
        let g2 = G2Affine::from(blstrs::G2Projective::generator());
        let double = G1Affine::from(blstrs::G1Projective::generator().double());
        let vk = VerifyingKey {
            alpha_g1: g1,
            beta_g1: double,
            beta_g2: g2,
            gamma_g2: g2,
            delta_g1: g1,
            delta_g2: g2,
            ic: vec![g1, double],
        };
        let params = Parameters {
            vk: vk.clone(),
            h: vec![g1, double, g1],
            l: vec![double],
            a: vec![],
            b_g1: vec![g1, g1],
            b_g2: vec![g2, g2],
        };
        let mut whole = Vec::new();
        write_parameters(&params, &mut whole).unwrap();
        let mut w = ParametersWriter::new(&vk, Vec::new()).unwrap();
        w.begin_section("h", 3).unwrap();
        w.write_g1(&params.h[..1]).unwrap();
        w.write_g1(&params.h[1..]).unwrap();
        w.begin_section("l", 1).unwrap();
        w.write_g1(&params.l).unwrap();
        w.begin_section("a", 0).unwrap();
        w.begin_section("b_g1", 2).unwrap();
        w.write_g1(&params.b_g1).unwrap();
        w.begin_section("b_g2", 2).unwrap();
        w.write_g2(&params.b_g2).unwrap();
        assert_eq!(w.finish().unwrap(), whole);

        let started = || {
            let mut w = ParametersWriter::new(&vk, Vec::new()).unwrap();
            w.begin_section("h", 2).unwrap();
            w
        };
        type Misuse<'a> = Box<dyn Fn(&mut ParametersWriter<Vec<u8>>) -> io::Result<()> + 'a>;
        let misuse: [(&str, Misuse); 5] = [
            ("too many", Box::new(|w| w.write_g1(&[g1, g1, g1]))),
            ("wrong group", Box::new(|w| w.write_g2(&[g2]))),
            ("section left short", Box::new(|w| w.begin_section("l", 0))),
            (
                "out of order",
                Box::new(|w| {
                    w.write_g1(&[g1, g1])?;
                    w.begin_section("a", 0)
                }),
            ),
            (
                "unknown section",
                Box::new(|w| {
                    w.write_g1(&[g1, g1])?;
                    w.begin_section("k", 0)
                }),
            ),
        ];
        for (what, wrong) in misuse {
            let err = wrong(&mut started()).unwrap_err();
            assert_eq!(err.kind(), io::ErrorKind::InvalidInput, "{what}: {err}");
        }
        assert!(started().finish().is_err(), "finished before b_g2");
    }

    #[test]
    fn write_section_writes_big_endian_count_then_points() {
        let g = G1Affine::from(blstrs::G1Projective::generator());
        let mut out = Vec::new();
        write_section(&mut out, &[g, g, g]).unwrap();
        assert_eq!(&out[..4], &[0, 0, 0, 3]);
        assert_eq!(out.len(), 4 + 3 * 96);
        assert_eq!(&out[4 + 96..4 + 192], &g.to_uncompressed()[..]);
    }
}
