//! The Groth16 proof and its 192-byte encoding, identical to bellperson's `Proof::write`:
//! A (G1, 48 bytes), B (G2, 96 bytes), C (G1, 48 bytes), each in the standard compressed
//! BLS12-381 form.
//!
//! Decoding matches bellperson's `Proof::read` / `read_many`: every point must decompress, lie
//! in the prime-order subgroup, and not be the point at infinity (an honest prover produces
//! the identity only with negligible probability, so one in a proof means it is malformed).

use std::io::{self, Read, Write};

use blstrs::{G1Affine, G2Affine};
use group::prime::PrimeCurveAffine;
use group::GroupEncoding;
use rayon::prelude::*;

use crate::error::{PointError, VerifyError};

const G1_COMPRESSED_BYTES: usize = 48;
const G2_COMPRESSED_BYTES: usize = 96;

/// A Groth16 proof `(A, B, C)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proof {
    pub a: G1Affine,
    pub b: G2Affine,
    pub c: G1Affine,
}

/// Decodes one compressed point with the full check, telling a point off the curve from one
/// outside the subgroup (by retrying unchecked, only on failure), and rejecting infinity.
fn decode_compressed<P: GroupEncoding + PrimeCurveAffine>(bytes: &[u8]) -> Result<P, PointError> {
    let mut repr = P::Repr::default();
    // The callers pass slices cut to the exact compressed size.
    repr.as_mut().copy_from_slice(bytes);
    let point = match Option::<P>::from(P::from_bytes(&repr)) {
        Some(p) => p,
        None if Option::<P>::from(P::from_bytes_unchecked(&repr)).is_some() => {
            return Err(PointError::NotInSubgroup)
        }
        None => return Err(PointError::NotOnCurve),
    };
    if bool::from(point.is_identity()) {
        return Err(PointError::Infinity);
    }
    Ok(point)
}

impl Proof {
    /// Size of an encoded proof in bytes.
    pub const SIZE: usize = 2 * G1_COMPRESSED_BYTES + G2_COMPRESSED_BYTES;

    /// Encodes the proof as bellperson does.
    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let mut out = [0u8; Self::SIZE];
        let (a, rest) = out.split_at_mut(G1_COMPRESSED_BYTES);
        let (b, c) = rest.split_at_mut(G2_COMPRESSED_BYTES);
        a.copy_from_slice(&self.a.to_compressed());
        b.copy_from_slice(&self.b.to_compressed());
        c.copy_from_slice(&self.c.to_compressed());
        out
    }

    /// Decodes one proof from exactly [`Proof::SIZE`] bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, VerifyError> {
        if bytes.len() != Self::SIZE {
            return Err(VerifyError::MalformedProof(format!(
                "a proof is {} bytes, got {}",
                Self::SIZE,
                bytes.len()
            )));
        }
        Self::decode(bytes).map_err(|(element, reason)| {
            VerifyError::MalformedProof(format!("element {element}: {reason}"))
        })
    }

    /// Decodes a proof of exactly `SIZE` bytes, naming the bad element on failure.
    fn decode(bytes: &[u8]) -> Result<Self, (&'static str, PointError)> {
        let (a, rest) = bytes.split_at(G1_COMPRESSED_BYTES);
        let (b, c) = rest.split_at(G2_COMPRESSED_BYTES);
        Ok(Self {
            a: decode_compressed(a).map_err(|e| ("A", e))?,
            b: decode_compressed(b).map_err(|e| ("B", e))?,
            c: decode_compressed(c).map_err(|e| ("C", e))?,
        })
    }

    /// Writes the 192-byte encoding.
    pub fn write<W: Write>(&self, mut w: W) -> io::Result<()> {
        w.write_all(&self.to_bytes())
    }

    /// Reads one proof (exactly [`Proof::SIZE`] bytes) from `r`.
    pub fn read<R: Read>(mut r: R) -> Result<Self, VerifyError> {
        let mut bytes = [0u8; Self::SIZE];
        r.read_exact(&mut bytes).map_err(|e| {
            VerifyError::MalformedProof(format!(
                "cannot read the {} bytes of a proof: {e}",
                Self::SIZE
            ))
        })?;
        Self::from_bytes(&bytes)
    }

    /// Decodes a concatenation of proofs, in parallel (each takes a few subgroup checks).
    /// On failure the error names the first bad proof.
    pub fn read_many(bytes: &[u8]) -> Result<Vec<Self>, VerifyError> {
        let proofs = bytes.par_chunks_exact(Self::SIZE);
        if !proofs.remainder().is_empty() {
            return Err(VerifyError::MalformedProof(format!(
                "proof data of {} bytes is not a multiple of the {}-byte proof size",
                bytes.len(),
                Self::SIZE
            )));
        }
        let decoded: Vec<_> = proofs.map(Self::decode).collect();
        // Sequential pass so that the reported error does not depend on thread scheduling.
        decoded
            .into_iter()
            .enumerate()
            .map(|(i, r)| {
                r.map_err(|(element, reason)| {
                    VerifyError::MalformedProof(format!("proof {i}, element {element}: {reason}"))
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use group::Group;

    fn generator_proof() -> Proof {
        Proof {
            a: G1Affine::from(blstrs::G1Projective::generator()),
            b: G2Affine::from(blstrs::G2Projective::generator()),
            c: G1Affine::from(blstrs::G1Projective::generator() * blstrs::Scalar::from(7u64)),
        }
    }

    #[test]
    fn round_trip_and_layout() {
        let p = generator_proof();
        let bytes = p.to_bytes();
        assert_eq!(&bytes[..48], &p.a.to_compressed()[..]);
        assert_eq!(&bytes[48..144], &p.b.to_compressed()[..]);
        assert_eq!(&bytes[144..], &p.c.to_compressed()[..]);
        assert_eq!(Proof::from_bytes(&bytes).unwrap(), p);
    }

    #[test]
    fn identity_is_rejected_per_element() {
        let mut bytes = generator_proof().to_bytes();
        // Compressed infinity: compression and infinity flags, then zeros.
        bytes[48] = 0xc0;
        bytes[49..144].fill(0);
        match Proof::from_bytes(&bytes) {
            Err(VerifyError::MalformedProof(msg)) => {
                assert!(msg.contains("element B"), "{msg}");
                assert!(msg.contains("infinity"), "{msg}");
            }
            other => panic!("expected MalformedProof, got {other:?}"),
        }
    }
}
