//! `cuzk synth`: valid inputs for Filecoin's circuits at any sector size, without sealing
//! (see `cuzk_core::filecoin::synthetic`), written where `cuzk prove` and filecoin-proofs
//! can read them.
//!
//! - PoRep: the commit-phase-1 output JSON (`seal_commit_phase2`'s input, and
//!   `cuzk prove --kind porep --vanilla-proof FILE`).
//! - WinningPoSt, WindowPoSt, SnapDeals: a request file ([`RequestFile`]) holding every field of the
//!   request, the vanilla proofs among them (`cuzk prove --request FILE`): a 32 GiB WindowPoSt
//!   partition has 2349 of them.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use base64::Engine as _;
use cuzk_core::filecoin::synthetic::{self, SynthOptions};
use cuzk_core::filecoin::{parse_sector_size, CircuitKind};
use serde::{Deserialize, Serialize};

use crate::proto;

/// A request's fields in a file: what `cuzk synth` writes for the PoSt kinds and
/// `cuzk submit --request` / `cuzk prove --request` send.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestFile {
    /// porep, snap, wpost or winning (as `--kind`).
    pub kind: String,
    pub registered_proof: u64,
    #[serde(default)]
    pub sector_size: u64,
    #[serde(default)]
    pub miner_id: u64,
    #[serde(default)]
    pub sector_number: u64,
    #[serde(default)]
    pub partition_index: u32,
    /// PoSt: the challenge seed, 64 hex digits.
    #[serde(default)]
    pub randomness: String,
    /// PoSt and SnapDeals: the vanilla proofs, base64 (standard alphabet, padded).
    #[serde(default)]
    pub vanilla_proofs: Vec<String>,
    /// PoSt: each sector's number and comm_r (64 hex digits). Not sent: what a verifier of
    /// the proof is given.
    #[serde(default)]
    pub sectors: Vec<SectorCommitment>,
    /// SnapDeals: the commitments, 64 hex digits each.
    #[serde(default)]
    pub comm_r_old: String,
    #[serde(default)]
    pub comm_r_new: String,
    #[serde(default)]
    pub comm_d_new: String,
}

/// A PoSt sector as its verifier knows it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SectorCommitment {
    pub sector_number: u64,
    pub comm_r: String,
}

impl RequestFile {
    pub fn read(path: &Path) -> Result<RequestFile> {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        serde_json::from_slice(&bytes)
            .with_context(|| format!("{} is not a cuzk request file", path.display()))
    }

    /// The wire request (priority and request id are the caller's).
    pub fn to_request(&self) -> Result<proto::SubmitProofRequest> {
        let kind = crate::client::kind_from_name(&self.kind)?;
        if kind == proto::ProofKind::PorepSealCommit {
            bail!(
                "a request file carries PoSt or SnapDeals requests; a PoRep's input is its \
                 commit-phase-1 output (cuzk prove --kind porep --vanilla-proof FILE)"
            );
        }
        let hex = |value: &str, what: &str| -> Result<Vec<u8>> {
            if value.is_empty() {
                return Ok(Vec::new());
            }
            crate::client::decode_hex(value)
                .with_context(|| format!("the request file's {what} must be 64 hex digits"))
        };
        let vanilla_proofs = self
            .vanilla_proofs
            .iter()
            .enumerate()
            .map(|(i, text)| {
                base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .with_context(|| format!("the request file's vanilla proof {i} is not base64"))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(proto::SubmitProofRequest {
            proof_kind: kind as i32,
            registered_proof: self.registered_proof,
            sector_size: self.sector_size,
            miner_id: self.miner_id,
            sector_number: self.sector_number,
            partition_index: self.partition_index,
            randomness: hex(&self.randomness, "randomness")?,
            vanilla_proofs,
            comm_r_old: hex(&self.comm_r_old, "comm_r_old")?,
            comm_r_new: hex(&self.comm_r_new, "comm_r_new")?,
            comm_d_new: hex(&self.comm_d_new, "comm_d_new")?,
            ..Default::default()
        })
    }
}

/// A kind as `cuzk synth` and `cuzk bench` take it: porep, winning-post (or winning),
/// window-post (or wpost), snap.
pub fn parse_kind(name: &str) -> Result<CircuitKind> {
    Ok(match name {
        "porep" | "porep-c2" => CircuitKind::PoRep,
        "winning-post" | "winning" => CircuitKind::WinningPost,
        "window-post" | "wpost" => CircuitKind::WindowPost,
        "snap" | "snapdeals" => CircuitKind::SnapDeals,
        other => bail!("unknown kind `{other}` (porep, winning-post, window-post or snap)"),
    })
}

/// What `cuzk synth` was asked for.
#[derive(clap::Args)]
pub struct SynthArgs {
    /// porep (a commit-phase-1 output), winning-post, window-post or snap (a request file
    /// for `cuzk prove --request`).
    pub kind: String,
    /// 2KiB, 8MiB, 512MiB, 32GiB or 64GiB.
    #[arg(long)]
    pub sector_size: String,
    #[arg(long)]
    pub out: PathBuf,
    /// Seeds every random value: the same seed writes the same file.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[arg(long, default_value_t = 1000)]
    pub miner_id: u64,
    /// The sector's number (window-post: the first sector's).
    #[arg(long, default_value_t = 1)]
    pub sector_number: u64,
    /// window-post: how many sectors (default: a full partition, 2349 at 32GiB).
    #[arg(long)]
    pub sectors: Option<usize>,
}

impl SynthArgs {
    fn options(&self) -> SynthOptions {
        SynthOptions {
            seed: self.seed,
            miner_id: self.miner_id,
            sector_number: self.sector_number,
        }
    }
}

/// `cuzk synth`.
pub fn run(args: &SynthArgs) -> Result<()> {
    let sector_size = parse_sector_size(&args.sector_size)?;
    let started = Instant::now();
    match parse_kind(&args.kind)? {
        CircuitKind::PoRep => {
            if args.sectors.is_some() {
                bail!("--sectors is for window-post (a PoRep is one sector)");
            }
            let made = synthetic::porep_of_size(sector_size, &args.options())?;
            let json = made.commit_phase1_json()?;
            write(&args.out, &json)?;
            println!(
                "{}: commit-phase-1 output of a synthetic {} sector ({} bytes, {} challenged \
                 nodes, {} columns, {:.1} s)",
                args.out.display(),
                args.sector_size,
                json.len(),
                made.challenged_nodes,
                made.columns,
                started.elapsed().as_secs_f64()
            );
            println!(
                "prove it: cuzk prove --kind porep --registered-proof {} --vanilla-proof {} \
                 --miner-id {} --sector-number {}",
                made.registered_proof_number(),
                args.out.display(),
                made.miner_id,
                made.sector_number
            );
        }
        kind @ (CircuitKind::WinningPost | CircuitKind::WindowPost) => {
            let made = synthetic::post_of_size(kind, sector_size, args.sectors, &args.options())?;
            let file = RequestFile {
                kind: if kind == CircuitKind::WinningPost {
                    "winning"
                } else {
                    "wpost"
                }
                .into(),
                registered_proof: made.registered_proof_number(),
                sector_size,
                miner_id: made.miner_id,
                sector_number: 0,
                partition_index: 0,
                randomness: hex(&made.randomness),
                vanilla_proofs: base64_all(&made.vanilla_proofs),
                sectors: made
                    .sectors
                    .iter()
                    .map(|(number, comm_r)| SectorCommitment {
                        sector_number: *number,
                        comm_r: hex(comm_r),
                    })
                    .collect(),
                ..RequestFile::default()
            };
            let json = serde_json::to_vec(&file)?;
            write(&args.out, &json)?;
            println!(
                "{}: {} request for {} synthetic {} sector(s) ({} bytes, {:.1} s)",
                args.out.display(),
                args.kind,
                made.vanilla_proofs.len(),
                args.sector_size,
                json.len(),
                started.elapsed().as_secs_f64()
            );
            println!("prove it: cuzk prove --request {}", args.out.display());
        }
        CircuitKind::SnapDeals => {
            if args.sectors.is_some() {
                bail!("--sectors is for window-post (an update is one sector)");
            }
            let made = synthetic::snap_of_size(sector_size, &args.options())?;
            let file = RequestFile {
                kind: "snap".into(),
                registered_proof: made.registered_proof_number(),
                sector_size,
                vanilla_proofs: base64_all(&made.vanilla_proofs),
                comm_r_old: hex(&made.comm_r_old),
                comm_r_new: hex(&made.comm_r_new),
                comm_d_new: hex(&made.comm_d_new),
                ..RequestFile::default()
            };
            let json = serde_json::to_vec(&file)?;
            write(&args.out, &json)?;
            println!(
                "{}: SnapDeals request for a synthetic {} sector update ({} partitions, {} \
                 bytes, {:.1} s)",
                args.out.display(),
                args.sector_size,
                made.vanilla_proofs.len(),
                json.len(),
                started.elapsed().as_secs_f64()
            );
            println!("prove it: cuzk prove --request {}", args.out.display());
        }
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn base64_all(blobs: &[Vec<u8>]) -> Vec<String> {
    blobs
        .iter()
        .map(|p| base64::engine::general_purpose::STANDARD.encode(p))
        .collect()
}

/// Writes `bytes` to `path` through a temporary file beside it, so a reader never sees half
/// a file.
fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    let name = path
        .file_name()
        .with_context(|| format!("--out {} names no file", path.display()))?;
    let tmp = path.with_file_name(format!(".{}.partial", name.to_string_lossy()));
    std::fs::write(&tmp, bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_file_becomes_the_wire_request() {
        let file = RequestFile {
            kind: "wpost".into(),
            registered_proof: 10,
            sector_size: 2048,
            miner_id: 7,
            randomness: "11".repeat(32),
            vanilla_proofs: base64_all(&[vec![1, 2, 3]]),
            ..RequestFile::default()
        };
        let json = serde_json::to_vec(&file).unwrap();
        let read: RequestFile = serde_json::from_slice(&json).unwrap();
        let request = read.to_request().unwrap();
        assert_eq!(
            request.proof_kind,
            proto::ProofKind::WindowPostPartition as i32
        );
        assert_eq!((request.registered_proof, request.miner_id), (10, 7));
        assert_eq!(request.randomness, [0x11; 32]);
        assert_eq!(request.vanilla_proofs, [vec![1, 2, 3]]);
        assert!(request.comm_r_old.is_empty());
    }

    #[test]
    fn bad_request_files_are_refused_with_the_field() {
        let refused = |json: &str| -> String {
            match serde_json::from_str::<RequestFile>(json) {
                Err(e) => e.to_string(),
                Ok(file) => format!("{:#}", file.to_request().unwrap_err()),
            }
        };
        for (json, expected) in [
            (
                r#"{"kind":"wpost","registered_proof":10,"extra":1}"#,
                "unknown field",
            ),
            (
                r#"{"kind":"tpost","registered_proof":10}"#,
                "unknown proof kind",
            ),
            (
                r#"{"kind":"porep","registered_proof":5}"#,
                "commit-phase-1 output",
            ),
            (
                r#"{"kind":"wpost","registered_proof":10,"randomness":"zz"}"#,
                "randomness",
            ),
            (
                r#"{"kind":"snap","registered_proof":0,"comm_r_new":"1"}"#,
                "comm_r_new",
            ),
            (
                r#"{"kind":"wpost","registered_proof":10,"vanilla_proofs":["%%"]}"#,
                "vanilla proof 0",
            ),
        ] {
            let message = refused(json);
            assert!(message.contains(expected), "{json}: {message}");
        }
    }

    #[test]
    fn kinds_have_their_aliases() {
        assert_eq!(parse_kind("wpost").unwrap(), CircuitKind::WindowPost);
        assert_eq!(parse_kind("window-post").unwrap(), CircuitKind::WindowPost);
        assert_eq!(parse_kind("winning").unwrap(), CircuitKind::WinningPost);
        assert_eq!(parse_kind("snap").unwrap(), CircuitKind::SnapDeals);
        assert!(parse_kind("test").is_err());
    }
}
