//! Sectors sealed by filecoin-proofs on the CPU, for tests and benchmarks: a small sector
//! (2 KiB) sealed from random data, with its commit-phase-1 output, and the PoSt and
//! SnapDeals vanilla proofs made from it, as node software would send them to cuzk.
//!
//! filecoin-proofs reads `FIL_PROOFS_PARAMETER_CACHE` and `FIL_PROOFS_PARENT_CACHE` once per
//! process: set them before the first call.

use std::fs::{self, OpenOptions};
use std::path::{Path, PathBuf};

use filecoin_proofs_api::seal::{
    add_piece, seal_commit_phase1, seal_pre_commit_phase1, seal_pre_commit_phase2, verify_seal,
    SealCommitPhase1Output,
};
use filecoin_proofs_api::update::{empty_sector_update_encode_into, generate_partition_proofs};
use filecoin_proofs_api::{
    post, Commitment, PieceInfo, PrivateReplicaInfo, RegisteredPoStProof, RegisteredSealProof,
    RegisteredUpdateProof, SectorId, UnpaddedBytesAmount,
};
use rand::{Rng, RngCore};

use super::error::FilecoinError;
use super::registry::prover_id;

fn failed(step: &'static str) -> impl Fn(anyhow::Error) -> FilecoinError {
    move |e| FilecoinError::Sealing {
        step,
        reason: format!("{e:#}"),
    }
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> FilecoinError + '_ {
    move |source| FilecoinError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A sealed sector in a temporary folder (removed on drop).
pub struct SealedSector {
    dir: tempfile::TempDir,
    pub proof: RegisteredSealProof,
    pub miner_id: u64,
    pub sector_number: u64,
    pub ticket: [u8; 32],
    pub seed: [u8; 32],
    pub comm_r: Commitment,
    pub comm_d: Commitment,
    /// What `seal_commit_phase2` takes (and cuzk's POREP_SEAL_COMMIT, as JSON).
    pub commit_phase1: SealCommitPhase1Output,
}

/// A SnapDeals update of a sealed sector: the vanilla proofs and commitments.
pub struct SectorUpdate {
    /// One bincode `PartitionProof` per partition.
    pub vanilla_proofs: Vec<Vec<u8>>,
    pub comm_r_old: Commitment,
    pub comm_r_new: Commitment,
    pub comm_d_new: Commitment,
}

impl SealedSector {
    /// Seals a sector of `proof`'s size filled with random data (pre-commit 1 and 2, commit
    /// phase 1).
    pub fn seal(
        proof: RegisteredSealProof,
        miner_id: u64,
        sector_number: u64,
        rng: &mut impl RngCore,
    ) -> Result<SealedSector, FilecoinError> {
        let dir = tempfile::tempdir().map_err(io(Path::new("a temporary folder")))?;
        let (cache, replica) = (dir.path().join("cache"), dir.path().join("sealed"));
        fs::create_dir_all(&cache).map_err(io(&cache))?;
        fs::File::create(&replica).map_err(io(&replica))?;
        let staged = dir.path().join("staged");
        let piece = staged_piece(proof, &staged, rng)?;
        let (ticket, seed): ([u8; 32], [u8; 32]) = (rng.gen(), rng.gen());
        let (prover, sector) = (prover_id(miner_id), SectorId::from(sector_number));
        let pieces = [piece];
        let p1 = seal_pre_commit_phase1(
            proof, &cache, &staged, &replica, prover, sector, ticket, &pieces,
        )
        .map_err(failed("pre-commit phase 1"))?;
        let p2 =
            seal_pre_commit_phase2(p1, &cache, &replica).map_err(failed("pre-commit phase 2"))?;
        let (comm_r, comm_d) = (p2.comm_r, p2.comm_d);
        let commit_phase1 =
            seal_commit_phase1(&cache, &replica, prover, sector, ticket, seed, p2, &pieces)
                .map_err(failed("commit phase 1"))?;
        Ok(SealedSector {
            dir,
            proof,
            miner_id,
            sector_number,
            ticket,
            seed,
            comm_r,
            comm_d,
            commit_phase1,
        })
    }

    fn cache(&self) -> PathBuf {
        self.dir.path().join("cache")
    }

    fn replica(&self) -> PathBuf {
        self.dir.path().join("sealed")
    }

    /// Whether filecoin-proofs' `verify_seal` accepts `proof` as this sector's PoRep proof
    /// (a proof it cannot even read is not accepted).
    pub fn verify_seal(&self, proof: &[u8]) -> bool {
        verify_seal(
            self.proof,
            self.comm_r,
            self.comm_d,
            prover_id(self.miner_id),
            SectorId::from(self.sector_number),
            self.ticket,
            self.seed,
            proof,
        )
        .unwrap_or(false)
    }

    /// The commit-phase-1 output as the JSON a POREP_SEAL_COMMIT request carries.
    pub fn commit_phase1_json(&self) -> Vec<u8> {
        serde_json::to_vec(&self.commit_phase1).expect("the commit-phase-1 output serializes")
    }

    /// The sector's vanilla proof (bincode `FallbackPoStSectorProof`) for a PoSt of type
    /// `proof` with this randomness.
    pub fn post_vanilla_proof(
        &self,
        proof: RegisteredPoStProof,
        randomness: &[u8; 32],
    ) -> Result<Vec<u8>, FilecoinError> {
        let sector = SectorId::from(self.sector_number);
        let prover = prover_id(self.miner_id);
        let challenges =
            post::generate_fallback_sector_challenges(proof, randomness, &[sector], prover)
                .map_err(failed("PoSt challenges"))?;
        let replica = PrivateReplicaInfo::new(proof, self.comm_r, self.cache(), self.replica());
        let sector_challenges = challenges.get(&sector).ok_or(FilecoinError::Sealing {
            step: "PoSt challenges",
            reason: "none for the sector".into(),
        })?;
        post::generate_single_vanilla_proof(proof, sector, &replica, sector_challenges)
            .map_err(failed("PoSt vanilla proof"))
    }

    /// Encodes new random data into the sector (SnapDeals) and makes the update's vanilla
    /// proofs.
    pub fn update(
        &self,
        proof: RegisteredUpdateProof,
        rng: &mut impl RngCore,
    ) -> Result<SectorUpdate, FilecoinError> {
        let dir = self.dir.path();
        let (cache, replica) = (dir.join("update-cache"), dir.join("update"));
        fs::create_dir_all(&cache).map_err(io(&cache))?;
        // The encoder writes into a replica file of the sector's size.
        fs::File::create(&replica)
            .and_then(|f| f.set_len(u64::from(proof.sector_size())))
            .map_err(io(&replica))?;
        let staged = dir.join("update-staged");
        let piece = staged_piece(self.proof, &staged, rng)?;
        let encoded = empty_sector_update_encode_into(
            proof,
            &replica,
            &cache,
            self.replica(),
            self.cache(),
            &staged,
            &[piece],
        )
        .map_err(failed("update encoding"))?;
        let vanilla = generate_partition_proofs(
            proof,
            self.comm_r,
            encoded.comm_r_new,
            encoded.comm_d_new,
            self.replica(),
            self.cache(),
            &replica,
            &cache,
        )
        .map_err(failed("update vanilla proofs"))?;
        Ok(SectorUpdate {
            vanilla_proofs: vanilla.into_iter().map(|p| p.0).collect(),
            comm_r_old: self.comm_r,
            comm_r_new: encoded.comm_r_new,
            comm_d_new: encoded.comm_d_new,
        })
    }
}

/// One piece of random data filling a sector of `proof`'s size, written at `path`.
fn staged_piece(
    proof: RegisteredSealProof,
    path: &Path,
    rng: &mut impl RngCore,
) -> Result<PieceInfo, FilecoinError> {
    let unpadded = u64::from(proof.sector_size()) / 128 * 127;
    let mut data = vec![0u8; unpadded as usize];
    rng.fill_bytes(&mut data);
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
        .map_err(io(path))?;
    let (piece, _) = add_piece(
        proof,
        &data[..],
        &mut file,
        UnpaddedBytesAmount(unpadded),
        &[],
    )
    .map_err(failed("add piece"))?;
    Ok(piece)
}

/// Randomness as node software passes it to PoSt: a field element (top two bits cleared).
pub fn post_randomness(rng: &mut impl RngCore) -> [u8; 32] {
    let mut r: [u8; 32] = rng.gen();
    r[31] &= 0x3f;
    r
}
