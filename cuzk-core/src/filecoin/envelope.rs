//! The two forms of a PoRep C2 request's `vanilla_proof`.
//!
//! - Bare: the commit-phase-1 output JSON, as filecoin-proofs-api's `seal_commit_phase1`
//!   returns it (`cuzk prove --kind porep` sends this).
//! - Curio's envelope: `{"SectorNum": n, "Phase1Out": "<base64>", "SectorSize": n}`, the JSON
//!   Curio's Go client marshals (`lib/ffi/cuzk_funcs.go`), where `Phase1Out` is the bare
//!   form in standard base64 (how Go's encoding/json writes a `[]byte`).
//!
//! The form is told by the first key of the top-level object: the envelope's keys
//! (`SectorNum`, `Phase1Out`, `SectorSize`) are never keys of the commit-phase-1 output, whose
//! keys are snake_case. Looking at the first key costs nothing, where trying one parse and then
//! the other would parse a 50 MB input twice. Each layer that can be wrong (the envelope's
//! JSON, its base64, the JSON inside) has its own message.

use std::borrow::Cow;

use base64::Engine as _;
use serde::Deserialize;

use super::error::FilecoinError;

/// The envelope's keys, as Curio writes them.
const ENVELOPE_KEYS: [&str; 3] = ["SectorNum", "Phase1Out", "SectorSize"];

/// What the envelope says besides the commit-phase-1 output (checked against the request).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnvelopeFields {
    pub sector_num: u64,
    pub sector_size: u64,
}

/// `vanilla_proof` unwrapped: the commit-phase-1 output JSON, and the envelope's fields when
/// it came in one.
#[derive(Debug)]
pub struct CommitPhase1Json<'a> {
    pub json: Cow<'a, [u8]>,
    pub envelope: Option<EnvelopeFields>,
}

impl CommitPhase1Json<'_> {
    /// How the JSON is named in a message about it.
    pub fn what(&self) -> &'static str {
        match self.envelope {
            None => {
                "vanilla_proof (the commit-phase-1 output JSON, or Curio's envelope \
                 {SectorNum, Phase1Out, SectorSize})"
            }
            Some(_) => {
                "vanilla_proof's Phase1Out, base64-decoded (the commit-phase-1 output JSON \
                 inside Curio's envelope)"
            }
        }
    }
}

#[derive(Deserialize)]
struct Envelope {
    #[serde(rename = "SectorNum")]
    sector_num: u64,
    #[serde(rename = "Phase1Out")]
    phase1_out: String,
    #[serde(rename = "SectorSize")]
    sector_size: u64,
}

/// Takes `vanilla_proof` apart (see the module doc).
pub fn unwrap(vanilla_proof: &[u8]) -> Result<CommitPhase1Json<'_>, FilecoinError> {
    if !first_key(vanilla_proof).is_some_and(|k| ENVELOPE_KEYS.contains(&k)) {
        return Ok(CommitPhase1Json {
            json: Cow::Borrowed(vanilla_proof),
            envelope: None,
        });
    }
    let envelope: Envelope = serde_json::from_slice(vanilla_proof).map_err(|e| {
        FilecoinError::malformed(
            "vanilla_proof (Curio's envelope {SectorNum, Phase1Out, SectorSize})",
            vanilla_proof,
            e,
        )
    })?;
    if envelope.phase1_out.is_empty() {
        return Err(FilecoinError::invalid(
            "vanilla_proof",
            "Curio's envelope has an empty Phase1Out (it must carry the commit-phase-1 output)",
        ));
    }
    let json = base64::engine::general_purpose::STANDARD
        .decode(envelope.phase1_out.as_bytes())
        .map_err(|e| {
            FilecoinError::malformed(
                "vanilla_proof's Phase1Out (standard base64 of the commit-phase-1 output JSON, \
                 inside Curio's envelope)",
                envelope.phase1_out.as_bytes(),
                e,
            )
        })?;
    Ok(CommitPhase1Json {
        json: Cow::Owned(json),
        envelope: Some(EnvelopeFields {
            sector_num: envelope.sector_num,
            sector_size: envelope.sector_size,
        }),
    })
}

/// Curio's envelope around a commit-phase-1 output, as Curio's client writes it (for
/// `cuzk prove --curio-envelope` and tests).
pub fn wrap(sector_num: u64, sector_size: u64, c1_json: &[u8]) -> Vec<u8> {
    let phase1_out = base64::engine::general_purpose::STANDARD.encode(c1_json);
    // Written by hand, in Curio's key order; serde_json escapes nothing in base64.
    format!(
        "{{\"SectorNum\":{sector_num},\"Phase1Out\":\"{phase1_out}\",\"SectorSize\":{sector_size}}}"
    )
    .into_bytes()
}

/// The first key of a top-level JSON object, if `bytes` start like one with a plain key.
fn first_key(bytes: &[u8]) -> Option<&str> {
    let rest = trim_start(bytes).strip_prefix(b"{")?;
    let rest = trim_start(rest).strip_prefix(b"\"")?;
    let end = rest
        .iter()
        .take(64)
        .position(|&b| b == b'"' || b == b'\\')?;
    std::str::from_utf8(&rest[..end]).ok()
}

fn trim_start(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(bytes.len());
    &bytes[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    const C1: &[u8] = br#"{"registered_proof":"StackedDrg2KiBV1_1","comm_r":[1]}"#;

    #[test]
    fn bare_json_passes_through_and_envelopes_open() {
        let bare = unwrap(C1).unwrap();
        assert_eq!((&*bare.json, bare.envelope), (C1, None));
        let wrapped = wrap(7, 2048, C1);
        let opened = unwrap(&wrapped).unwrap();
        assert_eq!(&*opened.json, C1);
        assert_eq!(
            opened.envelope,
            Some(EnvelopeFields {
                sector_num: 7,
                sector_size: 2048
            })
        );
        // Keys in another order, whitespace, a key Curio may add one day.
        let b64 = base64::engine::general_purpose::STANDARD.encode(C1);
        let text = format!(
            " \n{{ \"SectorSize\": 2048, \"Extra\": true, \"Phase1Out\": \"{b64}\", \"SectorNum\": 7 }}"
        );
        let opened = unwrap(text.as_bytes()).unwrap();
        assert_eq!(
            (&*opened.json, opened.envelope),
            (
                C1,
                Some(EnvelopeFields {
                    sector_num: 7,
                    sector_size: 2048
                })
            )
        );
        // Anything else is left to the commit-phase-1 parser, which names both forms.
        for other in [&b""[..], b"garbage", b"[1,2]", b"{}", b"{\"comm_d\":1}"] {
            let r = unwrap(other).unwrap();
            assert!(r.envelope.is_none() && r.what().contains("Curio's envelope"));
        }
    }

    #[test]
    fn each_layer_of_a_bad_envelope_is_named() {
        let b64 = base64::engine::general_purpose::STANDARD.encode(C1);
        for (text, says) in [
            (
                r#"{"SectorNum": 1, "Phase1Out": "#.to_string(),
                "Curio's envelope {SectorNum, Phase1Out, SectorSize}) is malformed",
            ),
            (
                format!(r#"{{"SectorNum": 1, "Phase1Out": "{b64}"}}"#),
                "missing field `SectorSize`",
            ),
            (
                format!(r#"{{"SectorNum": -1, "Phase1Out": "{b64}", "SectorSize": 2048}}"#),
                "invalid value: integer `-1`",
            ),
            (
                r#"{"SectorNum": 1, "Phase1Out": null, "SectorSize": 2048}"#.to_string(),
                "invalid type: null",
            ),
            (
                r#"{"SectorNum": 1, "Phase1Out": "", "SectorSize": 2048}"#.to_string(),
                "empty Phase1Out",
            ),
            (
                r#"{"SectorNum": 1, "Phase1Out": "not base64!", "SectorSize": 2048}"#.to_string(),
                "Phase1Out (standard base64",
            ),
            (
                // URL-safe base64 is not what Go writes.
                r#"{"SectorNum": 1, "Phase1Out": "-_-_", "SectorSize": 2048}"#.to_string(),
                "Phase1Out (standard base64",
            ),
        ] {
            let err = unwrap(text.as_bytes()).unwrap_err().to_string();
            assert!(err.contains(says), "{text}: {err}");
        }
        // Valid base64 of something that is not a commit-phase-1 output: the envelope opens,
        // and the caller's parse names the inner layer.
        let wrapped = wrap(1, 2048, b"not json");
        let opened = unwrap(&wrapped).unwrap();
        assert!(opened
            .what()
            .starts_with("vanilla_proof's Phase1Out, base64-decoded"));
    }
}
