//! The parameter / verifying-key file format and the proof encoding, checked against
//! bellperson 0.27 as the reference: files go both ways byte for byte, and truncated or
//! corrupt files give the typed error that names the right section and offset, from the
//! streaming, file and memory-mapped readers alike.
//!
//! The parameters come from bellperson's own generator on a small circuit defined here, so that
//! these tests do not depend on this crate's generator.

use std::collections::BTreeSet;
use std::io::Write;
use std::sync::OnceLock;

use bellpepper_core::{Circuit, ConstraintSystem, SynthesisError};
use bellperson::groth16 as bp;
use bellperson_lite::error::PointError;
use bellperson_lite::params::{
    read_parameters, read_parameters_file, read_parameters_mmap, read_verifying_key,
    write_parameters, write_verifying_key,
};
use bellperson_lite::{
    Bls12, G1Affine, G2Affine, Parameters, ParamsError, Proof, Scalar, VerifyError, VerifyingKey,
};
use blstrs::Fp;
use ff::Field;
use group::prime::PrimeCurveAffine;
use proptest::prelude::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Knows `x` with `x^3 + x + 5 = out` and `x * out = y`; `out` and `y` are public. Every
/// section of its parameters is non-empty: two public inputs plus the constant one in `ic`,
/// auxiliary variables in `l`, `a`, `b_g1` / `b_g2`, and four constraints (plus the input
/// constraints) for `h`.
#[derive(Clone, Copy)]
struct Cubic {
    x: Option<Scalar>,
}

impl Cubic {
    fn public_inputs(x: Scalar) -> [Scalar; 2] {
        let out = x * x * x + x + Scalar::from(5u64);
        [out, x * out]
    }
}

impl Circuit<Scalar> for Cubic {
    fn synthesize<CS: ConstraintSystem<Scalar>>(self, cs: &mut CS) -> Result<(), SynthesisError> {
        let value =
            |f: fn(Scalar) -> Scalar| self.x.map(f).ok_or(SynthesisError::AssignmentMissing);
        let x = cs.alloc(|| "x", || value(|x| x))?;
        let x2 = cs.alloc(|| "x^2", || value(|x| x * x))?;
        let x3 = cs.alloc(|| "x^3", || value(|x| x * x * x))?;
        let out = cs.alloc_input(|| "out", || value(|x| Cubic::public_inputs(x)[0]))?;
        let y = cs.alloc_input(|| "y", || value(|x| Cubic::public_inputs(x)[1]))?;
        cs.enforce(|| "x*x", |lc| lc + x, |lc| lc + x, |lc| lc + x2);
        cs.enforce(|| "x2*x", |lc| lc + x2, |lc| lc + x, |lc| lc + x3);
        cs.enforce(
            || "out",
            |lc| lc + x3 + x + (Scalar::from(5u64), CS::one()),
            |lc| lc + CS::one(),
            |lc| lc + out,
        );
        cs.enforce(|| "y", |lc| lc + x, |lc| lc + out, |lc| lc + y);
        Ok(())
    }
}

/// bellperson's parameters for [`Cubic`] and the bytes bellperson writes for them.
struct Fixture {
    params: bp::Parameters<Bls12>,
    bytes: Vec<u8>,
    vk_bytes: Vec<u8>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let mut rng = ChaCha8Rng::seed_from_u64(0x5eed);
        let params = bp::generate_random_parameters::<Bls12, _, _>(Cubic { x: None }, &mut rng)
            .expect("bellperson generates parameters");
        let mut bytes = Vec::new();
        params.write(&mut bytes).expect("write to Vec");
        let mut vk_bytes = Vec::new();
        params.vk.write(&mut vk_bytes).expect("write to Vec");
        Fixture {
            params,
            bytes,
            vk_bytes,
        }
    })
}

// ---------------------------------------------------------------------------------------------
// Helpers

const G1: usize = 96;
const G2: usize = 192;

/// One field of a parameter file as the errors name it, with its byte range.
#[derive(Clone, Copy, Debug)]
struct FieldRange {
    name: &'static str,
    start: usize,
    end: usize,
    /// Size of one point, or 0 for a count field.
    point_size: usize,
}

/// The fields of a parameter file, worked out independently of the code under test.
fn layout(bytes: &[u8]) -> Vec<FieldRange> {
    let mut fields = Vec::new();
    let mut pos = 0;
    for (name, size) in [
        ("vk.alpha_g1", G1),
        ("vk.beta_g1", G1),
        ("vk.beta_g2", G2),
        ("vk.gamma_g2", G2),
        ("vk.delta_g1", G1),
        ("vk.delta_g2", G2),
    ] {
        fields.push(FieldRange {
            name,
            start: pos,
            end: pos + size,
            point_size: size,
        });
        pos += size;
    }
    for (count_name, name, size) in [
        ("vk.ic.count", "vk.ic", G1),
        ("h.count", "h", G1),
        ("l.count", "l", G1),
        ("a.count", "a", G1),
        ("b_g1.count", "b_g1", G1),
        ("b_g2.count", "b_g2", G2),
    ] {
        let count = u32::from_be_bytes(bytes[pos..pos + 4].try_into().unwrap()) as usize;
        fields.push(FieldRange {
            name: count_name,
            start: pos,
            end: pos + 4,
            point_size: 0,
        });
        pos += 4;
        fields.push(FieldRange {
            name,
            start: pos,
            end: pos + count * size,
            point_size: size,
        });
        pos += count * size;
    }
    assert_eq!(pos, bytes.len(), "layout must cover the whole file");
    fields
}

fn field<'a>(fields: &'a [FieldRange], name: &str) -> &'a FieldRange {
    fields.iter().find(|f| f.name == name).unwrap()
}

/// The three ways of reading a parameter file.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Reader {
    /// `read_parameters` over a byte slice: no length known, no trailing-bytes check.
    Stream,
    File,
    Mmap,
}

const READERS: [Reader; 3] = [Reader::Stream, Reader::File, Reader::Mmap];

fn read_with(reader: Reader, bytes: &[u8], checked: bool) -> Result<Parameters, ParamsError> {
    match reader {
        Reader::Stream => read_parameters(bytes, checked),
        Reader::File | Reader::Mmap => {
            let mut file = tempfile::NamedTempFile::new().expect("temp file");
            file.write_all(bytes).expect("write temp file");
            file.flush().expect("flush temp file");
            if reader == Reader::File {
                read_parameters_file(file.path(), checked)
            } else {
                read_parameters_mmap(file.path(), checked)
            }
        }
    }
}

fn g1_bytes(points: &[G1Affine]) -> Vec<Vec<u8>> {
    points
        .iter()
        .map(|p| p.to_uncompressed().to_vec())
        .collect()
}

fn g2_bytes(points: &[G2Affine]) -> Vec<Vec<u8>> {
    points
        .iter()
        .map(|p| p.to_uncompressed().to_vec())
        .collect()
}

fn assert_vk_matches(ours: &VerifyingKey, theirs: &bp::VerifyingKey<Bls12>) {
    let g1 = |p: &G1Affine| p.to_uncompressed().to_vec();
    let g2 = |p: &G2Affine| p.to_uncompressed().to_vec();
    assert_eq!(g1(&ours.alpha_g1), g1(&theirs.alpha_g1));
    assert_eq!(g1(&ours.beta_g1), g1(&theirs.beta_g1));
    assert_eq!(g2(&ours.beta_g2), g2(&theirs.beta_g2));
    assert_eq!(g2(&ours.gamma_g2), g2(&theirs.gamma_g2));
    assert_eq!(g1(&ours.delta_g1), g1(&theirs.delta_g1));
    assert_eq!(g2(&ours.delta_g2), g2(&theirs.delta_g2));
    assert_eq!(g1_bytes(&ours.ic), g1_bytes(&theirs.ic));
}

fn assert_params_match(ours: &Parameters, theirs: &bp::Parameters<Bls12>) {
    assert_vk_matches(&ours.vk, &theirs.vk);
    assert_eq!(g1_bytes(&ours.h), g1_bytes(&theirs.h));
    assert_eq!(g1_bytes(&ours.l), g1_bytes(&theirs.l));
    assert_eq!(g1_bytes(&ours.a), g1_bytes(&theirs.a));
    assert_eq!(g1_bytes(&ours.b_g1), g1_bytes(&theirs.b_g1));
    assert_eq!(g2_bytes(&ours.b_g2), g2_bytes(&theirs.b_g2));
}

/// Asserts `result` is `InvalidPoint` with exactly these fields.
fn assert_invalid_point(
    result: Result<Parameters, ParamsError>,
    what: &str,
    section: &str,
    index: usize,
    offset: usize,
    reason: PointError,
) {
    match result {
        Err(ParamsError::InvalidPoint {
            section: s,
            index: i,
            offset: o,
            reason: r,
        }) => assert_eq!(
            (s, i, o, r),
            (section, index, offset as u64, reason),
            "{what}"
        ),
        other => panic!("{what}: expected InvalidPoint in {section}, got {other:?}"),
    }
}

/// An uncompressed G1 encoding of a point on the curve but outside the prime-order subgroup.
/// Almost every point of E(Fp) is outside it (the cofactor is about 2^126), so the first `x`
/// with `x^3 + 4` a square serves.
fn g1_outside_subgroup() -> [u8; 96] {
    for x in 1u64..1000 {
        let x = Fp::from(x);
        let rhs = x.square() * x + Fp::from(4u64);
        if let Some(y) = Option::<Fp>::from(rhs.sqrt()) {
            let mut bytes = [0u8; 96];
            bytes[..48].copy_from_slice(&x.to_bytes_be());
            bytes[48..].copy_from_slice(&y.to_bytes_be());
            let checked = Option::<G1Affine>::from(G1Affine::from_uncompressed(&bytes));
            let unchecked = Option::<G1Affine>::from(G1Affine::from_uncompressed_unchecked(&bytes));
            if checked.is_none() && unchecked.is_some() {
                return bytes;
            }
        }
    }
    panic!("no small x gives a point outside the subgroup");
}

// ---------------------------------------------------------------------------------------------
// (a) bellperson writes, we read

#[test]
fn fixture_has_every_section_non_empty() {
    let p = &fixture().params;
    assert_eq!(p.vk.ic.len(), 3, "one + two public inputs");
    for (name, len) in [
        ("h", p.h.len()),
        ("l", p.l.len()),
        ("a", p.a.len()),
        ("b_g1", p.b_g1.len()),
        ("b_g2", p.b_g2.len()),
    ] {
        assert!(
            len > 0,
            "section {name} is empty: the tests would not cover it"
        );
    }
}

#[test]
fn bellperson_file_reads_identically_with_every_reader() {
    let fx = fixture();
    for reader in READERS {
        for checked in [true, false] {
            let ours = read_with(reader, &fx.bytes, checked)
                .unwrap_or_else(|e| panic!("{reader:?} checked={checked}: {e}"));
            assert_params_match(&ours, &fx.params);
        }
    }
}

#[test]
fn bellperson_vk_reads_identically() {
    let fx = fixture();
    let vk = read_verifying_key(&fx.vk_bytes[..]).expect("vk reads");
    assert_vk_matches(&vk, &fx.params.vk);
    // A parameter file starts with its verifying key; the rest is left unread.
    let head = read_verifying_key(&fx.bytes[..]).expect("vk head reads");
    assert_eq!(head, vk);
    assert_eq!(&fx.bytes[..fx.vk_bytes.len()], &fx.vk_bytes[..]);
}

// ---------------------------------------------------------------------------------------------
// (b) we write, bellperson reads; byte-for-byte both ways

#[test]
fn our_parameter_file_is_bellpersons_byte_for_byte() {
    let fx = fixture();
    let ours = read_parameters(&fx.bytes[..], true).unwrap();
    let mut written = Vec::new();
    write_parameters(&ours, &mut written).unwrap();
    assert_eq!(written.len(), fx.bytes.len());
    assert!(
        written == fx.bytes,
        "written parameters differ from bellperson's"
    );

    let theirs = bp::Parameters::<Bls12>::read(&written[..], true).expect("bellperson reads ours");
    assert!(theirs == fx.params);

    // Built from bellperson's values directly (not from our reader), the output is the same.
    let direct = Parameters {
        vk: VerifyingKey {
            alpha_g1: fx.params.vk.alpha_g1,
            beta_g1: fx.params.vk.beta_g1,
            beta_g2: fx.params.vk.beta_g2,
            gamma_g2: fx.params.vk.gamma_g2,
            delta_g1: fx.params.vk.delta_g1,
            delta_g2: fx.params.vk.delta_g2,
            ic: fx.params.vk.ic.clone(),
        },
        h: fx.params.h.to_vec(),
        l: fx.params.l.to_vec(),
        a: fx.params.a.to_vec(),
        b_g1: fx.params.b_g1.to_vec(),
        b_g2: fx.params.b_g2.to_vec(),
    };
    let mut direct_bytes = Vec::new();
    write_parameters(&direct, &mut direct_bytes).unwrap();
    assert!(direct_bytes == fx.bytes);
}

#[test]
fn our_vk_file_is_bellpersons_byte_for_byte() {
    let fx = fixture();
    let vk = read_verifying_key(&fx.vk_bytes[..]).unwrap();
    let mut written = Vec::new();
    write_verifying_key(&vk, &mut written).unwrap();
    assert_eq!(written, fx.vk_bytes);
    let theirs = bp::VerifyingKey::<Bls12>::read(&written[..]).expect("bellperson reads our vk");
    assert!(theirs == fx.params.vk);
}

#[test]
fn missing_file_is_an_open_error_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no-such.params");
    for result in [
        read_parameters_file(&path, true),
        read_parameters_mmap(&path, true),
    ] {
        match result {
            Err(ParamsError::Open { path: p, .. }) => assert_eq!(p, path),
            other => panic!("expected Open, got {other:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// (c) truncation

/// Every offset a few bytes around each field boundary, and every 97th offset.
fn cut_points(fields: &[FieldRange], len: usize) -> BTreeSet<usize> {
    let mut cuts: BTreeSet<usize> = (0..len).step_by(97).collect();
    for f in fields {
        for b in [f.start, f.end] {
            for d in -3i64..=3 {
                let c = b as i64 + d;
                if c >= 0 && (c as usize) < len {
                    cuts.insert(c as usize);
                }
            }
        }
    }
    cuts
}

fn assert_truncated(
    result: Result<impl std::fmt::Debug, ParamsError>,
    fields: &[FieldRange],
    cut: usize,
    what: &str,
) {
    // The field being read when the data runs out is the one containing the cut.
    let f = fields
        .iter()
        .find(|f| f.start <= cut && cut < f.end)
        .unwrap_or_else(|| panic!("{what}: no field contains offset {cut}"));
    match result {
        Err(ParamsError::Truncated {
            section,
            offset,
            needed,
            available,
        }) => assert_eq!(
            (section, offset, needed, available),
            (
                f.name,
                f.start as u64,
                (f.end - f.start) as u64,
                (cut - f.start) as u64
            ),
            "{what}: cut at {cut}"
        ),
        other => panic!(
            "{what}: cut at {cut}: expected Truncated in {}, got {other:?}",
            f.name
        ),
    }
}

#[test]
fn truncated_parameters_name_section_and_offset() {
    let fx = fixture();
    let fields = layout(&fx.bytes);
    let cuts = cut_points(&fields, fx.bytes.len());
    assert!(cuts.len() > 100);
    for &cut in &cuts {
        for reader in READERS {
            let what = format!("{reader:?}");
            assert_truncated(
                read_with(reader, &fx.bytes[..cut], true),
                &fields,
                cut,
                &what,
            );
        }
    }
    // And the untruncated file is fine (so the last cut really was the last missing byte).
    for reader in READERS {
        assert!(read_with(reader, &fx.bytes, false).is_ok());
    }
}

#[test]
fn truncated_vk_names_section_and_offset() {
    let fx = fixture();
    let fields: Vec<FieldRange> = layout(&fx.bytes)
        .into_iter()
        .filter(|f| f.name.starts_with("vk."))
        .collect();
    for cut in 0..fx.vk_bytes.len() {
        assert_truncated(
            read_verifying_key(&fx.vk_bytes[..cut]),
            &fields,
            cut,
            "read_verifying_key",
        );
    }
}

#[test]
fn huge_count_in_truncated_file_fails_without_allocating_it() {
    let fx = fixture();
    let fields = layout(&fx.bytes);
    let h = field(&fields, "h");
    // The verifying key, then `h` claiming u32::MAX points (~412 GB) of which 10 bytes exist.
    let mut bytes = fx.bytes[..h.start - 4].to_vec();
    bytes.extend_from_slice(&u32::MAX.to_be_bytes());
    bytes.extend_from_slice(&fx.bytes[h.start..h.start + 10]);
    for reader in READERS {
        match read_with(reader, &bytes, true) {
            Err(ParamsError::Truncated {
                section,
                offset,
                needed,
                available,
            }) => assert_eq!(
                (section, offset, needed, available),
                ("h", h.start as u64, u64::from(u32::MAX) * 96, 10),
                "{reader:?}"
            ),
            other => panic!("{reader:?}: expected Truncated, got {other:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// (d) corrupt points

#[test]
fn corrupt_point_is_reported_with_its_section_index_and_offset() {
    let fx = fixture();
    let fields = layout(&fx.bytes);
    for f in fields.iter().filter(|f| f.point_size > 0) {
        // The last point of the section, so that the index is not trivially 0.
        let index = (f.end - f.start) / f.point_size - 1;
        let offset = f.start + index * f.point_size;
        let mut bytes = fx.bytes.clone();
        // Lowest bit of y: the point leaves the curve.
        bytes[offset + f.point_size - 1] ^= 1;
        for reader in READERS {
            for checked in [true, false] {
                let what = format!("{reader:?} checked={checked}");
                assert_invalid_point(
                    read_with(reader, &bytes, checked),
                    &what,
                    f.name,
                    index,
                    offset,
                    PointError::NotOnCurve,
                );
            }
        }
        assert!(
            bp::Parameters::<Bls12>::read(&bytes[..], false).is_err(),
            "bellperson accepts a corrupt {}",
            f.name
        );
    }
}

/// The uncompressed encoding of the point at infinity.
fn infinity(size: usize) -> Vec<u8> {
    let mut v = vec![0u8; size];
    v[0] = 0x40;
    v
}

#[test]
fn infinity_is_rejected_in_ic_and_every_query_section() {
    let fx = fixture();
    let fields = layout(&fx.bytes);
    for name in ["vk.ic", "h", "l", "a", "b_g1", "b_g2"] {
        let f = field(&fields, name);
        let mut bytes = fx.bytes.clone();
        bytes[f.start..f.start + f.point_size].copy_from_slice(&infinity(f.point_size));
        for reader in READERS {
            for checked in [true, false] {
                let what = format!("{reader:?} checked={checked}");
                assert_invalid_point(
                    read_with(reader, &bytes, checked),
                    &what,
                    name,
                    0,
                    f.start,
                    PointError::Infinity,
                );
            }
        }
        assert!(bp::Parameters::<Bls12>::read(&bytes[..], false).is_err());
    }
}

#[test]
fn infinity_is_accepted_in_the_fixed_vk_points_like_bellperson() {
    let fx = fixture();
    let fields = layout(&fx.bytes);
    let f = field(&fields, "vk.delta_g1");
    let mut bytes = fx.bytes.clone();
    bytes[f.start..f.end].copy_from_slice(&infinity(G1));
    let theirs = bp::Parameters::<Bls12>::read(&bytes[..], true).expect("bellperson accepts it");
    assert!(bool::from(theirs.vk.delta_g1.is_identity()));
    for reader in READERS {
        let ours = read_with(reader, &bytes, true).expect("accepted, as bellperson does");
        assert!(bool::from(ours.vk.delta_g1.is_identity()));
        assert_params_match(&ours, &theirs);
    }
}

#[test]
fn point_outside_subgroup_is_rejected_only_when_checked() {
    let fx = fixture();
    let fields = layout(&fx.bytes);
    let rogue = g1_outside_subgroup();

    let h = field(&fields, "h");
    let mut bytes = fx.bytes.clone();
    bytes[h.start..h.start + G1].copy_from_slice(&rogue);
    assert!(bp::Parameters::<Bls12>::read(&bytes[..], true).is_err());
    for reader in READERS {
        let what = format!("{reader:?}");
        assert_invalid_point(
            read_with(reader, &bytes, true),
            &what,
            "h",
            0,
            h.start,
            PointError::NotInSubgroup,
        );
        let unchecked = read_with(reader, &bytes, false).expect("unchecked skips the subgroup");
        assert_eq!(unchecked.h[0].to_uncompressed(), rogue);
    }

    // The verifying key is always checked, as bellperson's `VerifyingKey::read` is.
    let ic = field(&fields, "vk.ic");
    let mut bytes = fx.bytes.clone();
    bytes[ic.start + G1..ic.start + 2 * G1].copy_from_slice(&rogue);
    for reader in READERS {
        let what = format!("{reader:?}");
        assert_invalid_point(
            read_with(reader, &bytes, false),
            &what,
            "vk.ic",
            1,
            ic.start + G1,
            PointError::NotInSubgroup,
        );
    }
}

// ---------------------------------------------------------------------------------------------
// (e) trailing bytes

#[test]
fn trailing_bytes_are_rejected_by_file_readers() {
    let fx = fixture();
    let mut bytes = fx.bytes.clone();
    bytes.extend_from_slice(&[0u8; 5]);
    for reader in [Reader::File, Reader::Mmap] {
        match read_with(reader, &bytes, true) {
            Err(ParamsError::TrailingBytes { offset, count }) => {
                assert_eq!((offset, count), (fx.bytes.len() as u64, 5), "{reader:?}")
            }
            other => panic!("{reader:?}: expected TrailingBytes, got {other:?}"),
        }
    }
    // The generic reader cannot know where its input ends and stops after `b_g2`.
    let ours = read_with(Reader::Stream, &bytes, true).expect("stream reader ignores the tail");
    assert_params_match(&ours, &fx.params);
}

// ---------------------------------------------------------------------------------------------
// Robustness: random damage never panics, and the file and mmap readers agree.

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_damage_gives_an_error_or_the_same_parameters(
        at in any::<prop::sample::Index>(),
        xor in 1u8..=255,
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let fx = fixture();
        let mut bytes = fx.bytes.clone();
        let at = at.index(bytes.len());
        bytes[at] ^= xor;
        if truncate {
            bytes.truncate(cut.index(bytes.len()));
        }
        let streamed = read_with(Reader::File, &bytes, false);
        let mapped = read_with(Reader::Mmap, &bytes, false);
        match (&streamed, &mapped) {
            (Ok(s), Ok(m)) => prop_assert_eq!(s, m),
            (Err(_), Err(_)) => {}
            _ => prop_assert!(false, "readers disagree: {:?} vs {:?}", streamed.err(), mapped.err()),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// (f) proofs

/// Three bellperson proofs for the fixture, with their public inputs.
fn bellperson_proofs() -> Vec<(bp::Proof<Bls12>, [Scalar; 2])> {
    let fx = fixture();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let pvk = bp::prepare_verifying_key(&fx.params.vk);
    (3u64..6)
        .map(|x| {
            let x = Scalar::from(x);
            let proof = bp::create_random_proof(Cubic { x: Some(x) }, &fx.params, &mut rng)
                .expect("bellperson proves");
            let inputs = Cubic::public_inputs(x);
            // The fixture circuit really is satisfied, so these are meaningful proofs.
            assert!(bp::verify_proof(&pvk, &proof, &inputs).unwrap());
            (proof, inputs)
        })
        .collect()
}

fn bp_bytes(p: &bp::Proof<Bls12>) -> Vec<u8> {
    let mut v = Vec::new();
    p.write(&mut v).unwrap();
    v
}

#[test]
fn proof_encoding_matches_bellperson() {
    let proofs = bellperson_proofs();
    let mut concat = Vec::new();
    let mut ours_all = Vec::new();
    for (theirs, _) in &proofs {
        let expected = bp_bytes(theirs);
        assert_eq!(expected.len(), Proof::SIZE);
        let ours = Proof {
            a: theirs.a,
            b: theirs.b,
            c: theirs.c,
        };
        assert_eq!(ours.to_bytes().to_vec(), expected);
        let mut written = Vec::new();
        ours.write(&mut written).unwrap();
        assert_eq!(written, expected);
        assert_eq!(Proof::from_bytes(&expected).unwrap(), ours);
        assert_eq!(Proof::read(&expected[..]).unwrap(), ours);
        concat.extend_from_slice(&expected);
        ours_all.push(ours);
    }
    assert_eq!(Proof::read_many(&concat).unwrap(), ours_all);
    assert_eq!(Proof::read_many(&[]).unwrap(), Vec::<Proof>::new());
    let theirs_many = bp::Proof::<Bls12>::read_many(&concat, 3).unwrap();
    let theirs_bytes: Vec<Vec<u8>> = theirs_many.iter().map(bp_bytes).collect();
    let ours_bytes: Vec<Vec<u8>> = ours_all.iter().map(|p| p.to_bytes().to_vec()).collect();
    assert_eq!(ours_bytes, theirs_bytes);
}

fn malformed_message(result: Result<impl std::fmt::Debug, VerifyError>) -> String {
    match result {
        Err(VerifyError::MalformedProof(msg)) => msg,
        other => panic!("expected MalformedProof, got {other:?}"),
    }
}

#[test]
fn proof_lengths_are_enforced() {
    let proofs = bellperson_proofs();
    let mut concat = Vec::new();
    for (p, _) in &proofs {
        concat.extend_from_slice(&bp_bytes(p));
    }
    for len in [1, 191, 193, 383, 385, 575] {
        let msg = malformed_message(Proof::read_many(&concat[..len]));
        assert!(msg.contains(&len.to_string()), "{len}: {msg}");
    }
    for len in [0, 191, 193] {
        let msg = malformed_message(Proof::from_bytes(&concat[..len]));
        assert!(msg.contains(&len.to_string()), "{len}: {msg}");
    }
    // A reader that runs dry.
    malformed_message(Proof::read(&concat[..100]));
}

#[test]
fn corrupt_proofs_are_rejected_like_bellperson() {
    let proofs = bellperson_proofs();
    let good = bp_bytes(&proofs[0].0);
    for (element, range) in [("A", 0..48), ("B", 48..144), ("C", 144..192)] {
        // The identity (compressed infinity: flags 0b11, then zeros). bellperson rejects it.
        let mut bytes = good.clone();
        bytes[range.clone()].fill(0);
        bytes[range.start] = 0xc0;
        assert!(bp::Proof::<Bls12>::read(&bytes[..]).is_err());
        let msg = malformed_message(Proof::from_bytes(&bytes));
        assert!(msg.contains(&format!("element {element}")), "{msg}");
        assert!(msg.contains("infinity"), "{msg}");

        // A changed x coordinate: off the curve or (almost surely) outside the subgroup.
        let mut bytes = good.clone();
        bytes[range.end - 1] ^= 1;
        assert!(bp::Proof::<Bls12>::read(&bytes[..]).is_err());
        let msg = malformed_message(Proof::from_bytes(&bytes));
        assert!(msg.contains(&format!("element {element}")), "{msg}");

        // The compression flag cleared: not a compressed encoding at all.
        let mut bytes = good.clone();
        bytes[range.start] &= 0x7f;
        let msg = malformed_message(Proof::from_bytes(&bytes));
        assert!(msg.contains(&format!("element {element}")), "{msg}");
        assert!(msg.contains(&PointError::NotOnCurve.to_string()), "{msg}");

        // In a batch, the error names the proof.
        let mut batch = good.clone();
        batch.extend_from_slice(&bytes);
        let msg = malformed_message(Proof::read_many(&batch));
        assert!(msg.contains("proof 1"), "{msg}");
    }
}
