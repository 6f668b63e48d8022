//! Filecoin's registered proof numbers, sector sizes, circuit ids and parameter file names.
//!
//! The wire carries `registered_proof` as the number node software uses (the position in
//! filecoin-proofs-api's append-only enums, which the Go side numbers the same way). A proof
//! kind and sector size select one circuit, named here by a short circuit id ("porep-32g")
//! for status and preloading, and stored in the parameter cache under the name
//! filecoin-proofs gives it (`v28-<cache identifier>.params`, with `.vk` and `.meta` beside
//! it), so that one cache serves both.

use std::collections::BTreeMap;

use filecoin_proofs::constants::DefaultPieceHasher;
use filecoin_proofs::constants::{
    SECTOR_SIZE_2_KIB, SECTOR_SIZE_32_GIB, SECTOR_SIZE_512_MIB, SECTOR_SIZE_64_GIB,
    SECTOR_SIZE_8_MIB,
};
use filecoin_proofs::parameters::{
    public_params, window_post_public_params, winning_post_public_params,
};
use filecoin_proofs::{MerkleTreeTrait, TreeRHasher};
use filecoin_proofs_api::{RegisteredPoStProof, RegisteredSealProof, RegisteredUpdateProof};
use storage_proofs_core::parameter_cache::{
    metadata_id, parameter_id, verifying_key_id, CacheableParameters,
};
use storage_proofs_porep::stacked::{StackedCircuit, StackedCompound};
use storage_proofs_post::fallback::{FallbackPoStCircuit, FallbackPoStCompound};
use storage_proofs_update::{
    EmptySectorUpdateCircuit, EmptySectorUpdateCompound, PublicParams as UpdatePublicParams,
};

use super::error::FilecoinError;

/// The sector sizes of Filecoin's registered proofs, smallest first, with the suffix of
/// their circuit ids.
pub const SECTOR_SIZES: [(u64, &str); 5] = [
    (SECTOR_SIZE_2_KIB, "2k"),
    (SECTOR_SIZE_8_MIB, "8m"),
    (SECTOR_SIZE_512_MIB, "512m"),
    (SECTOR_SIZE_32_GIB, "32g"),
    (SECTOR_SIZE_64_GIB, "64g"),
];

/// Sizes real networks use, whose parameters come from the published ceremony.
pub fn is_production_size(sector_size: u64) -> bool {
    sector_size >= SECTOR_SIZE_32_GIB
}

/// The four circuits Filecoin proves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CircuitKind {
    /// PoRep commit phase 2 (stacked DRG).
    PoRep,
    /// WinningPoSt (fallback PoSt, one sector).
    WinningPost,
    /// One WindowPoSt partition (fallback PoSt).
    WindowPost,
    /// SnapDeals sector update.
    SnapDeals,
}

impl CircuitKind {
    pub const ALL: [CircuitKind; 4] = [
        CircuitKind::PoRep,
        CircuitKind::WinningPost,
        CircuitKind::WindowPost,
        CircuitKind::SnapDeals,
    ];

    /// The prefix of its circuit ids, also the name `cuzk params generate --kinds` takes.
    pub fn prefix(self) -> &'static str {
        match self {
            CircuitKind::PoRep => "porep",
            CircuitKind::WinningPost => "winning",
            CircuitKind::WindowPost => "wpost",
            CircuitKind::SnapDeals => "snap",
        }
    }

    /// The kind named `name` (a prefix above).
    pub fn from_name(name: &str) -> Option<CircuitKind> {
        CircuitKind::ALL.into_iter().find(|k| k.prefix() == name)
    }

    /// The circuit id of this kind at `sector_size`, e.g. "porep-32g".
    pub fn circuit_id(self, sector_size: u64) -> Result<String, FilecoinError> {
        Ok(format!("{}-{}", self.prefix(), size_suffix(sector_size)?))
    }

    /// filecoin-proofs' cache identifier of this circuit (the file name without `v28-` and the
    /// extension), computed as filecoin-proofs computes it when it looks the file up. The
    /// registered proof types that share a circuit share it; the representative taken here is
    /// the current one of each kind. (filecoin-proofs-api's `RegisteredUpdateProof::
    /// circuit_identifier` returns the PoRep's identifier, so it is not used.)
    pub fn cache_identifier(self, sector_size: u64) -> Result<String, FilecoinError> {
        by_shape!(sector_size, cache_identifier_of(self, sector_size))
    }
}

fn cache_identifier_of<Tree: 'static + MerkleTreeTrait<Hasher = TreeRHasher>>(
    kind: CircuitKind,
    sector_size: u64,
) -> Result<String, FilecoinError> {
    let position = size_position(sector_size)?;
    let failed = |e: anyhow::Error| FilecoinError::Generate {
        circuit_id: format!("{}-{}", kind.prefix(), SECTOR_SIZES[position].1),
        reason: format!("{e:#}"),
    };
    Ok(match kind {
        CircuitKind::PoRep => {
            let params = public_params::<Tree>(&representative_seal(position).as_v1_config())
                .map_err(failed)?;
            <StackedCompound<Tree, DefaultPieceHasher> as CacheableParameters<
                StackedCircuit<Tree, DefaultPieceHasher>,
                _,
            >>::cache_identifier(&params)
        }
        CircuitKind::WinningPost | CircuitKind::WindowPost => {
            let config = representative_post(kind, position).as_v1_config();
            let params = match kind {
                CircuitKind::WinningPost => winning_post_public_params::<Tree>(&config),
                _ => window_post_public_params::<Tree>(&config),
            }
            .map_err(failed)?;
            <FallbackPoStCompound<Tree> as CacheableParameters<FallbackPoStCircuit<Tree>, _>>::cache_identifier(&params)
        }
        CircuitKind::SnapDeals => {
            let params = UpdatePublicParams::from_sector_size(sector_size);
            <EmptySectorUpdateCompound<Tree> as CacheableParameters<
                EmptySectorUpdateCircuit<Tree>,
                _,
            >>::cache_identifier(&params)
        }
    })
}

/// The registered seal proof whose circuit stands for PoRep at `SECTOR_SIZES[position]`
/// (V1_1; V1 and the synthetic variant prove the same circuit).
pub(crate) fn representative_seal(position: usize) -> RegisteredSealProof {
    SEAL_PROOFS[5 + position]
}

/// The registered PoSt proof that stands for `kind` at `SECTOR_SIZES[position]` (Winning V1,
/// Window V1_2).
pub(crate) fn representative_post(kind: CircuitKind, position: usize) -> RegisteredPoStProof {
    match kind {
        CircuitKind::WinningPost => POST_PROOFS[position],
        _ => POST_PROOFS[10 + position],
    }
}

/// The registered seal proof node software uses for new sectors of `sector_size` (V1_1).
pub fn current_seal_proof(sector_size: u64) -> Result<RegisteredSealProof, FilecoinError> {
    Ok(representative_seal(size_position(sector_size)?))
}

/// The registered PoSt proof node software uses for `kind` (WinningPost or WindowPost) at
/// `sector_size` (Winning V1, Window V1_2).
pub fn current_post_proof(
    kind: CircuitKind,
    sector_size: u64,
) -> Result<RegisteredPoStProof, FilecoinError> {
    Ok(representative_post(kind, size_position(sector_size)?))
}

/// The registered update proof for SnapDeals at `sector_size` (there is one per size).
pub fn current_update_proof(sector_size: u64) -> Result<RegisteredUpdateProof, FilecoinError> {
    Ok(UPDATE_PROOFS[size_position(sector_size)?])
}

fn size_position(sector_size: u64) -> Result<usize, FilecoinError> {
    SECTOR_SIZES
        .iter()
        .position(|&(size, _)| size == sector_size)
        .ok_or(FilecoinError::UnknownSectorSize(sector_size))
}

/// The names of a circuit's files in the parameter cache.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParameterFiles {
    pub params: String,
    pub verifying_key: String,
    pub metadata: String,
}

impl ParameterFiles {
    pub fn of(kind: CircuitKind, sector_size: u64) -> Result<ParameterFiles, FilecoinError> {
        let id = kind.cache_identifier(sector_size)?;
        Ok(ParameterFiles {
            params: parameter_id(&id),
            verifying_key: verifying_key_id(&id),
            metadata: metadata_id(&id),
        })
    }
}

/// Circuit id -> `.params` file name for every Filecoin circuit, the default file names of
/// the engine's parameter manager.
pub fn parameter_file_names() -> Result<BTreeMap<String, String>, FilecoinError> {
    let mut names = BTreeMap::new();
    for kind in CircuitKind::ALL {
        for (size, _) in SECTOR_SIZES {
            names.insert(
                kind.circuit_id(size)?,
                ParameterFiles::of(kind, size)?.params,
            );
        }
    }
    Ok(names)
}

fn size_suffix(sector_size: u64) -> Result<&'static str, FilecoinError> {
    SECTOR_SIZES
        .iter()
        .find(|&&(size, _)| size == sector_size)
        .map(|&(_, suffix)| suffix)
        .ok_or(FilecoinError::UnknownSectorSize(sector_size))
}

/// Parses sizes as operators write them: "2KiB", "32GiB", "2k", "2048".
pub fn parse_sector_size(text: &str) -> Result<u64, FilecoinError> {
    let t = text.trim().to_ascii_lowercase();
    let t = t.trim_end_matches("ib").trim_end_matches('b');
    let size = match t.parse::<u64>() {
        Ok(bytes) => bytes,
        Err(_) => SECTOR_SIZES
            .iter()
            .find(|&&(_, suffix)| suffix == t)
            .map(|&(size, _)| size)
            .ok_or_else(|| {
                FilecoinError::invalid("sector size", format!("cannot read `{text}`"))
            })?,
    };
    size_suffix(size)?;
    Ok(size)
}

/// The seal proofs in the order of their numbers.
const SEAL_PROOFS: [RegisteredSealProof; 20] = {
    use RegisteredSealProof::*;
    [
        StackedDrg2KiBV1,
        StackedDrg8MiBV1,
        StackedDrg512MiBV1,
        StackedDrg32GiBV1,
        StackedDrg64GiBV1,
        StackedDrg2KiBV1_1,
        StackedDrg8MiBV1_1,
        StackedDrg512MiBV1_1,
        StackedDrg32GiBV1_1,
        StackedDrg64GiBV1_1,
        StackedDrg2KiBV1_1_Feat_SyntheticPoRep,
        StackedDrg8MiBV1_1_Feat_SyntheticPoRep,
        StackedDrg512MiBV1_1_Feat_SyntheticPoRep,
        StackedDrg32GiBV1_1_Feat_SyntheticPoRep,
        StackedDrg64GiBV1_1_Feat_SyntheticPoRep,
        StackedDrg2KiBV1_2_Feat_NonInteractivePoRep,
        StackedDrg8MiBV1_2_Feat_NonInteractivePoRep,
        StackedDrg512MiBV1_2_Feat_NonInteractivePoRep,
        StackedDrg32GiBV1_2_Feat_NonInteractivePoRep,
        StackedDrg64GiBV1_2_Feat_NonInteractivePoRep,
    ]
};

/// The PoSt proofs in the order of their numbers.
const POST_PROOFS: [RegisteredPoStProof; 15] = {
    use RegisteredPoStProof::*;
    [
        StackedDrgWinning2KiBV1,
        StackedDrgWinning8MiBV1,
        StackedDrgWinning512MiBV1,
        StackedDrgWinning32GiBV1,
        StackedDrgWinning64GiBV1,
        StackedDrgWindow2KiBV1,
        StackedDrgWindow8MiBV1,
        StackedDrgWindow512MiBV1,
        StackedDrgWindow32GiBV1,
        StackedDrgWindow64GiBV1,
        StackedDrgWindow2KiBV1_2,
        StackedDrgWindow8MiBV1_2,
        StackedDrgWindow512MiBV1_2,
        StackedDrgWindow32GiBV1_2,
        StackedDrgWindow64GiBV1_2,
    ]
};

/// The update proofs in the order of their numbers.
const UPDATE_PROOFS: [RegisteredUpdateProof; 5] = {
    use RegisteredUpdateProof::*;
    [
        StackedDrg2KiBV1,
        StackedDrg8MiBV1,
        StackedDrg512MiBV1,
        StackedDrg32GiBV1,
        StackedDrg64GiBV1,
    ]
};

fn by_number<T: Copy>(table: &[T], family: &'static str, value: u64) -> Result<T, FilecoinError> {
    usize::try_from(value)
        .ok()
        .and_then(|i| table.get(i).copied())
        .ok_or(FilecoinError::UnknownRegisteredProof {
            family,
            value,
            last: table.len() as u64 - 1,
        })
}

/// The seal proof numbered `value`.
pub fn seal_proof(value: u64) -> Result<RegisteredSealProof, FilecoinError> {
    by_number(&SEAL_PROOFS, "seal (RegisteredSealProof)", value)
}

/// The PoSt proof numbered `value`.
pub fn post_proof(value: u64) -> Result<RegisteredPoStProof, FilecoinError> {
    by_number(&POST_PROOFS, "PoSt (RegisteredPoStProof)", value)
}

/// The update proof numbered `value`.
pub fn update_proof(value: u64) -> Result<RegisteredUpdateProof, FilecoinError> {
    by_number(&UPDATE_PROOFS, "update (RegisteredUpdateProof)", value)
}

/// The number of a seal proof (inverse of [`seal_proof`]).
pub fn seal_proof_number(proof: RegisteredSealProof) -> u64 {
    SEAL_PROOFS.iter().position(|&p| p == proof).unwrap_or(0) as u64
}

/// The number of the seal proof filecoin-proofs-api names `name` in JSON (as a
/// commit-phase-1 output's `registered_proof` reads, e.g. "StackedDrg32GiBV1_1").
pub fn seal_proof_number_by_name(name: &str) -> Option<u64> {
    let proof: RegisteredSealProof = serde_json::from_value(serde_json::json!(name)).ok()?;
    Some(seal_proof_number(proof))
}

/// The number of a PoSt proof (inverse of [`post_proof`]).
pub fn post_proof_number(proof: RegisteredPoStProof) -> u64 {
    POST_PROOFS.iter().position(|&p| p == proof).unwrap_or(0) as u64
}

/// The number of an update proof (inverse of [`update_proof`]).
pub fn update_proof_number(proof: RegisteredUpdateProof) -> u64 {
    UPDATE_PROOFS.iter().position(|&p| p == proof).unwrap_or(0) as u64
}

/// Checks the request's `sector_size` against the registered proof's. 0 means "the registered
/// proof's" (Curio's proofshare SnapDeals requests leave it unset, and Curio's own server takes
/// the size from the registered proof then).
pub fn check_sector_size(
    given: u64,
    expected: u64,
    proof: impl std::fmt::Debug,
) -> Result<(), FilecoinError> {
    if given != 0 && given != expected {
        return Err(FilecoinError::SectorSize {
            given,
            expected,
            proof: format!("{proof:?}"),
        });
    }
    Ok(())
}

/// The prover id of a miner actor: the payload of its ID address (the actor number as an
/// unsigned LEB128 varint), zero-padded to 32 bytes, as Lotus and Curio pass it to proving.
pub fn prover_id(miner_id: u64) -> [u8; 32] {
    let mut id = [0u8; 32];
    let mut rest = miner_id;
    let mut i = 0;
    loop {
        let byte = (rest & 0x7f) as u8;
        rest >>= 7;
        if rest == 0 {
            id[i] = byte;
            return id;
        }
        id[i] = byte | 0x80;
        i += 1;
    }
}

/// A 32-byte field of the request.
pub fn bytes32(what: &'static str, bytes: &[u8]) -> Result<[u8; 32], FilecoinError> {
    bytes.try_into().map_err(|_| FilecoinError::Length {
        what,
        expected: 32,
        actual: bytes.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use storage_proofs_core::parameter_cache::PARAMETERS;

    #[test]
    fn numbers_follow_the_enums() {
        assert_eq!(
            seal_proof(0).unwrap(),
            RegisteredSealProof::StackedDrg2KiBV1
        );
        assert_eq!(
            seal_proof(8).unwrap(),
            RegisteredSealProof::StackedDrg32GiBV1_1
        );
        assert!(seal_proof(20).is_err());
        assert_eq!(
            post_proof(5).unwrap(),
            RegisteredPoStProof::StackedDrgWindow2KiBV1
        );
        assert!(post_proof(15).unwrap_err().to_string().contains("0..=14"));
        assert_eq!(
            update_proof(3).unwrap(),
            RegisteredUpdateProof::StackedDrg32GiBV1
        );
        assert!(update_proof(u64::MAX).is_err());
        for (i, p) in SEAL_PROOFS.iter().enumerate() {
            assert_eq!(seal_proof_number(*p), i as u64);
            // filecoin-proofs-api derives porep_id from the same number.
            assert_eq!(p.as_v1_config().porep_id[..8], (i as u64).to_le_bytes());
        }
        for (i, p) in POST_PROOFS.iter().enumerate() {
            assert_eq!(post_proof_number(*p), i as u64);
        }
        for (i, p) in UPDATE_PROOFS.iter().enumerate() {
            assert_eq!(update_proof_number(*p), i as u64);
            assert_eq!(p.sector_size(), SEAL_PROOFS[i].sector_size());
        }
    }

    #[test]
    fn prover_ids_are_leb128() {
        assert_eq!(prover_id(0)[..2], [0, 0]);
        assert_eq!(prover_id(1000)[..3], [0xe8, 0x07, 0]);
        assert_eq!(prover_id(127)[..2], [0x7f, 0]);
        assert_eq!(prover_id(128)[..3], [0x80, 0x01, 0]);
        assert_eq!(prover_id(u64::MAX)[9], 0x01);
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_sector_size("2KiB").unwrap(), 2048);
        assert_eq!(parse_sector_size("32GiB").unwrap(), 32 << 30);
        assert_eq!(parse_sector_size("2048").unwrap(), 2048);
        assert_eq!(parse_sector_size("512m").unwrap(), 512 << 20);
        assert!(parse_sector_size("4KiB").is_err());
        assert!(parse_sector_size("lots").is_err());
    }

    #[test]
    fn circuits_that_share_parameters_share_identifiers() {
        // The porep versions (V1, V1_1, synthetic) and WindowPoSt V1 / V1_2 use one parameter
        // file each in filecoin-proofs' published set; the ids chosen here must agree.
        let porep = CircuitKind::PoRep
            .cache_identifier(SECTOR_SIZE_2_KIB)
            .unwrap();
        for i in [0, 5, 10] {
            assert_eq!(SEAL_PROOFS[i].circuit_identifier().unwrap(), porep);
        }
        let window = CircuitKind::WindowPost
            .cache_identifier(SECTOR_SIZE_2_KIB)
            .unwrap();
        assert_eq!(POST_PROOFS[5].circuit_identifier().unwrap(), window);
        let names = parameter_file_names().unwrap();
        assert_eq!(names.len(), 20);
        let distinct: std::collections::BTreeSet<_> = names.values().collect();
        assert_eq!(distinct.len(), 20, "one file per circuit: {names:#?}");
        assert_eq!(names["porep-2k"], format!("v28-{porep}.params"));
        // Every name is one of the published set (filecoin-proofs' parameters.json).
        for (id, name) in &names {
            assert!(
                PARAMETERS.contains_key(name),
                "{id}: {name} is not published"
            );
        }
        // The published 32 GiB PoRep parameters' name (filecoin-proofs' parameters.json).
        assert_eq!(
            names["porep-32g"],
            "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-\
             82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params"
        );
    }
}
