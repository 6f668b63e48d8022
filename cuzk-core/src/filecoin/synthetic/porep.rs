//! A synthetic PoRep commit-phase-1 output: the vanilla proofs of a sector that was never
//! sealed, valid for storage-proofs' verifier and for the real stacked-DRG circuits.
//!
//! What a commit-phase-1 output proves, per challenged node: its data leaf in tree_d, its
//! column (its label in each layer) and the columns of its 14 parents in tree_c, its replica
//! leaf in tree_r_last, that each of its labels is the SHA-256 labeling of its parents'
//! labels, and that its replica leaf is its last label plus its data. Nothing else of the
//! sector is ever looked at, so the generator makes only that:
//!
//! 1. Data: every node of the sector holds one random value, so tree_d is a sparse tree with
//!    no leaf set and comm_d costs one hash per level. (The data cannot depend on the
//!    challenges: the challenges are derived from the replica id, which hashes comm_d.)
//! 2. The replica id from the miner, sector number, ticket, comm_d and the proof's porep id,
//!    and the challenges of every partition from it and the seed, both by storage-proofs'
//!    own functions.
//! 3. Labels: a random column for every parent that is not itself challenged; the labels of
//!    challenged nodes computed layer by layer, in increasing node order within a layer (a
//!    node's base parents come before it in the same layer, its expander parents from the
//!    layer below), so a challenged node that is another's parent carries its real labels.
//! 4. tree_c (column hashes) and tree_r_last (encoded last labels) as sparse trees in the
//!    sector's shape over the columns and replica leaves made above, every other leaf one
//!    random default; comm_r = H(comm_c, comm_r_last).
//! 5. The proofs, assembled as storage-proofs' prover assembles them.

use std::any::Any;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use blstrs::Scalar as Fr;
use filecoin_hashers::sha256::{Sha256Domain, Sha256Hasher};
use filecoin_hashers::{Domain, Hasher};
use filecoin_proofs::constants::{
    DefaultPieceHasher, SectorShape2KiB, SectorShape32GiB, SectorShape512MiB, SectorShape64GiB,
    SectorShape8MiB,
};
use filecoin_proofs::parameters::public_params;
use filecoin_proofs::MerkleTreeTrait;
use filecoin_proofs_api::seal::{SealCommitPhase1Output, VanillaSealProof};
use filecoin_proofs_api::{ApiFeature, RegisteredSealProof};
use generic_array::typenum::{U0, U2};
use rand::rngs::StdRng;
use rand::SeedableRng;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use storage_proofs_core::drgraph::{Graph, BASE_DEGREE};
use storage_proofs_porep::stacked::{
    generate_replica_id, Column, ColumnProof, EncodingProof, LabelingProof, Proof, PublicInputs,
    ReplicaColumnProof, StackedBucketGraph, EXP_DEGREE, TOTAL_PARENTS,
};

use super::tree::{hash2, NodeValues, SparseTree};
use super::{commitment, random_domain, synthetic_error, SynthOptions};
use crate::filecoin::registry::{current_seal_proof, prover_id, seal_proof_number};
use crate::filecoin::FilecoinError;

/// A synthetic sector's commit-phase-1 output, with what a POREP_SEAL_COMMIT request for it
/// must name.
pub struct SyntheticPoRep {
    /// What `seal_commit_phase2` takes (and cuzk's POREP_SEAL_COMMIT, as JSON).
    pub commit_phase1: SealCommitPhase1Output,
    /// The request's `miner_id` and `sector_number` (the replica id hashes them).
    pub miner_id: u64,
    pub sector_number: u64,
    /// Distinct challenged nodes over all partitions, and the columns opened for them.
    pub challenged_nodes: usize,
    pub columns: usize,
}

impl SyntheticPoRep {
    /// The registered proof's number on the wire.
    pub fn registered_proof_number(&self) -> u64 {
        seal_proof_number(self.commit_phase1.registered_proof)
    }

    /// The commit-phase-1 output as the JSON a POREP_SEAL_COMMIT request carries.
    pub fn commit_phase1_json(&self) -> Result<Vec<u8>, FilecoinError> {
        serde_json::to_vec(&self.commit_phase1)
            .map_err(|e| synthetic_error(format!("serializing the commit-phase-1 output: {e}")))
    }
}

/// Makes the commit-phase-1 output of a synthetic sector of `sector_size` for the registered
/// proof node software uses for new sectors of that size.
pub fn porep_of_size(
    sector_size: u64,
    options: &SynthOptions,
) -> Result<SyntheticPoRep, FilecoinError> {
    porep(current_seal_proof(sector_size)?, options)
}

/// Makes the commit-phase-1 output of a synthetic sector for `proof` (any sector size).
pub fn porep(
    proof: RegisteredSealProof,
    options: &SynthOptions,
) -> Result<SyntheticPoRep, FilecoinError> {
    for feature in [ApiFeature::SyntheticPoRep, ApiFeature::NonInteractivePoRep] {
        if proof.feature_enabled(feature) {
            return Err(FilecoinError::Unsupported {
                proof: format!("{proof:?}"),
                reason: format!(
                    "its challenges derive from comm_r ({feature:?}), which a synthetic sector \
                     makes from the challenged nodes: use an interactive PoRep \
                     (e.g. StackedDrg32GiBV1_1)"
                ),
            });
        }
    }
    let sector_size = u64::from(proof.sector_size());
    by_shape!(sector_size, porep_of_shape(proof, options))
}

/// The labels of one node, layer 1 first.
type LabelColumn<D> = Vec<D>;

fn porep_of_shape<Tree: 'static + MerkleTreeTrait>(
    proof: RegisteredSealProof,
    options: &SynthOptions,
) -> Result<SyntheticPoRep, FilecoinError> {
    let config = proof.as_v1_config();
    let params = public_params::<Tree>(&config)
        .map_err(|e| synthetic_error(format!("{proof:?}'s public parameters: {e:#}")))?;
    let graph = &params.graph;
    let layers = params.num_layers;
    let nodes = graph.size();
    let mut rng = StdRng::seed_from_u64(options.seed);

    // 1. Data: one value at every node.
    let data_leaf: Sha256Domain = random_domain(&mut rng);
    let tree_d = SparseTree::<Sha256Hasher>::new(
        vec![2; nodes.trailing_zeros() as usize],
        data_leaf,
        BTreeMap::new(),
    )?;
    let comm_d = commitment(&tree_d.root());

    // 2. The replica id and the challenges.
    let ticket = random_bytes(&mut rng);
    let seed = random_bytes(&mut rng);
    let replica_id: <Tree::Hasher as Hasher>::Domain = generate_replica_id::<Tree::Hasher, _>(
        &prover_id(options.miner_id),
        options.sector_number,
        &ticket,
        comm_d,
        &config.porep_id,
    );
    let public_inputs = PublicInputs::<_, <DefaultPieceHasher as Hasher>::Domain> {
        replica_id,
        seed: Some(seed),
        tau: None,
        k: None,
    };
    let partitions = usize::from(config.partitions);
    let challenges: Vec<Vec<usize>> = (0..partitions)
        .map(|k| public_inputs.challenges(&params.challenges, nodes, Some(k)))
        .collect();
    let challenged: BTreeSet<usize> = challenges.iter().flatten().copied().collect();

    // 3. Labels.
    let parents: BTreeMap<usize, Parents> = challenged
        .iter()
        .map(|&node| Ok((node, Parents::of(graph, node)?)))
        .collect::<Result<_, FilecoinError>>()?;
    let mut columns: HashMap<usize, LabelColumn<_>> = HashMap::new();
    let unchallenged_parents: BTreeSet<usize> = parents
        .values()
        .flat_map(|p| p.base.iter().chain(&p.expander).copied())
        .filter(|p| !challenged.contains(p))
        .collect();
    for &parent in &unchallenged_parents {
        columns.insert(
            parent,
            (0..layers).map(|_| random_domain(&mut rng)).collect(),
        );
    }
    for &node in &challenged {
        columns.insert(node, Vec::with_capacity(layers));
    }
    // The parent labels each challenged node's label hashed, per layer: its labeling and
    // encoding proofs carry them.
    let mut label_inputs: HashMap<usize, Vec<Vec<_>>> = HashMap::new();
    for layer in 1..=layers {
        for (&node, node_parents) in &parents {
            let labels = layer_parents(&columns, node_parents, layer)?;
            let label = create_label(&replica_id, layer as u32, node as u64, &labels);
            columns
                .get_mut(&node)
                .expect("every challenged node has a column")
                .push(label);
            label_inputs.entry(node).or_default().push(labels);
        }
    }

    // 4. tree_c and tree_r_last.
    let column_leaves: BTreeMap<u64, _> = columns
        .par_iter()
        .map(|(&node, labels)| {
            let column = Column::<Tree::Hasher>::new(node as u32, labels.clone())
                .map_err(|e| synthetic_error(format!("column {node}: {e:#}")))?;
            Ok((node as u64, column.hash().into()))
        })
        .collect::<Result<_, FilecoinError>>()?;
    let tree_c = SparseTree::<Tree::Hasher>::for_shape::<Tree>(
        nodes as u64,
        random_domain(&mut rng),
        column_leaves,
    )?;
    let data: Fr = data_leaf.into();
    let replica_leaves: BTreeMap<u64, _> = challenged
        .iter()
        .map(|&node| {
            let key: Fr = columns[&node][layers - 1].into();
            (node as u64, (key + data).into())
        })
        .collect();
    let tree_r_last = SparseTree::<Tree::Hasher>::for_shape::<Tree>(
        nodes as u64,
        random_domain(&mut rng),
        replica_leaves,
    )?;
    let comm_r = hash2::<Tree::Hasher>(&tree_c.root(), &tree_r_last.root());

    // 5. The proofs.
    let trees = Trees {
        tree_d: &tree_d,
        tree_c: &tree_c,
        tree_r_last: &tree_r_last,
    };
    let vanilla_proofs: Vec<Vec<Proof<Tree, DefaultPieceHasher>>> = challenges
        .iter()
        .map(|partition| {
            partition
                .par_iter()
                .map(|&node| {
                    let opened = Opened {
                        columns: &columns,
                        parents: &parents[&node],
                        label_inputs: &label_inputs[&node],
                    };
                    challenge_proof::<Tree>(&trees, &opened, node)
                })
                .collect::<Result<_, FilecoinError>>()
        })
        .collect::<Result<_, FilecoinError>>()?;

    let replica_id_bytes: [u8; 32] = commitment(&replica_id);
    Ok(SyntheticPoRep {
        commit_phase1: SealCommitPhase1Output {
            registered_proof: proof,
            vanilla_proofs: api_vanilla_proofs::<Tree>(vanilla_proofs)?,
            comm_r: commitment(&comm_r),
            comm_d,
            replica_id: Domain::try_from_bytes(&replica_id_bytes)
                .map_err(|e| synthetic_error(format!("replica id: {e:#}")))?,
            seed,
            ticket,
        },
        miner_id: options.miner_id,
        sector_number: options.sector_number,
        challenged_nodes: challenged.len(),
        columns: columns.len(),
    })
}

/// A node's parents in the stacked graph: base (DRG) parents, in the same layer, and
/// expander parents, in the layer below.
struct Parents {
    base: Vec<usize>,
    expander: Vec<usize>,
}

impl Parents {
    fn of<H: Hasher>(graph: &StackedBucketGraph<H>, node: usize) -> Result<Parents, FilecoinError> {
        let failed = |e: anyhow::Error| synthetic_error(format!("parents of node {node}: {e:#}"));
        let mut base = vec![0u32; BASE_DEGREE];
        graph.base_parents(node, &mut base).map_err(failed)?;
        let mut expander = vec![0u32; EXP_DEGREE];
        graph
            .expanded_parents(node, &mut expander)
            .map_err(failed)?;
        // Labeling a layer in node order relies on this: a base parent is labeled before its
        // child in the same layer.
        if let Some(&later) = base.iter().find(|&&p| p as usize >= node) {
            return Err(synthetic_error(format!(
                "node {node} has base parent {later}, not an earlier node"
            )));
        }
        Ok(Parents {
            base: base.into_iter().map(|p| p as usize).collect(),
            expander: expander.into_iter().map(|p| p as usize).collect(),
        })
    }
}

/// The parent labels a node's label in `layer` hashes: its base parents' labels in `layer`,
/// then (above layer 1) its expander parents' labels in the layer below, repeated to
/// `TOTAL_PARENTS` as the labeling function takes them.
fn layer_parents<D: Domain>(
    columns: &HashMap<usize, LabelColumn<D>>,
    parents: &Parents,
    layer: usize,
) -> Result<Vec<D>, FilecoinError> {
    let label = |node: usize, layer: usize| -> Result<D, FilecoinError> {
        columns
            .get(&node)
            .and_then(|c| c.get(layer - 1))
            .copied()
            .ok_or_else(|| {
                synthetic_error(format!(
                    "the label of node {node} in layer {layer} is not made yet"
                ))
            })
    };
    let mut labels = parents
        .base
        .iter()
        .map(|&p| label(p, layer))
        .collect::<Result<Vec<_>, _>>()?;
    if layer > 1 {
        for &p in &parents.expander {
            labels.push(label(p, layer - 1)?);
        }
    }
    Ok(labels.iter().copied().cycle().take(TOTAL_PARENTS).collect())
}

/// A node's label: SHA-256 of (replica id, layer, node) in a 64-byte block, then the parent
/// labels, the result cut to a field element (its top two bits cleared).
fn create_label<D: Domain>(replica_id: &D, layer: u32, node: u64, parents: &[D]) -> D {
    let mut block = [0u8; 64];
    block[..32].copy_from_slice(replica_id.as_ref());
    block[32..36].copy_from_slice(&layer.to_be_bytes());
    block[36..44].copy_from_slice(&node.to_be_bytes());
    let mut hasher = Sha256::new();
    hasher.update(block);
    for parent in parents {
        hasher.update(parent.as_ref());
    }
    let mut bytes: [u8; 32] = hasher.finalize().into();
    bytes[31] &= 0x3f;
    D::try_from_bytes(&bytes).expect("a 254-bit value is a field element")
}

struct Trees<'a, Tree: MerkleTreeTrait> {
    tree_d: &'a SparseTree<Sha256Hasher>,
    tree_c: &'a SparseTree<Tree::Hasher>,
    tree_r_last: &'a SparseTree<Tree::Hasher>,
}

/// What a challenge's proof opens besides the trees: the columns, the node's parents, and
/// the parent labels its label hashed in each layer.
struct Opened<'a, D> {
    columns: &'a HashMap<usize, LabelColumn<D>>,
    parents: &'a Parents,
    label_inputs: &'a [Vec<D>],
}

/// The vanilla proof of one challenge.
fn challenge_proof<Tree: 'static + MerkleTreeTrait>(
    trees: &Trees<'_, Tree>,
    opened: &Opened<'_, <Tree::Hasher as Hasher>::Domain>,
    node: usize,
) -> Result<Proof<Tree, DefaultPieceHasher>, FilecoinError> {
    let column_proof = |n: usize| -> Result<_, FilecoinError> {
        let column = Column::new(n as u32, opened.columns[&n].clone())
            .map_err(|e| synthetic_error(format!("column {n}: {e:#}")))?;
        ColumnProof::from_column(column, trees.tree_c.proof::<Tree>(n as u64)?)
            .map_err(|e| synthetic_error(format!("column proof {n}: {e:#}")))
    };
    let replica_column_proofs = ReplicaColumnProof {
        c_x: column_proof(node)?,
        drg_parents: opened
            .parents
            .base
            .iter()
            .map(|&p| column_proof(p))
            .collect::<Result<_, _>>()?,
        exp_parents: opened
            .parents
            .expander
            .iter()
            .map(|&p| column_proof(p))
            .collect::<Result<_, _>>()?,
    };
    let labeling_proofs: Vec<_> = (1..)
        .zip(opened.label_inputs)
        .map(|(layer, labels)| LabelingProof::new(layer, node as u64, labels.clone()))
        .collect();
    let last = opened
        .label_inputs
        .last()
        .ok_or_else(|| synthetic_error("a PoRep of no layers"))?;
    let encoding_proof =
        EncodingProof::new(labeling_proofs.len() as u32, node as u64, last.clone());
    let tree_d = trees.tree_d;
    Ok(Proof {
        comm_d_proofs: tree_d.proof_in::<U2, U0, U0>(node as u64)?,
        comm_r_last_proof: trees.tree_r_last.proof::<Tree>(node as u64)?,
        replica_column_proofs,
        labeling_proofs,
        encoding_proof,
    })
}

/// filecoin-proofs-api's enum of vanilla proofs by sector shape, for `Tree`'s shape.
fn api_vanilla_proofs<Tree: 'static + MerkleTreeTrait>(
    proofs: Vec<Vec<Proof<Tree, DefaultPieceHasher>>>,
) -> Result<VanillaSealProof, FilecoinError> {
    // Each arm hands the proofs over if `Tree` is that shape, or passes them on.
    macro_rules! as_shape {
        ($proofs:expr, $shape:ty, $variant:ident) => {
            match $proofs.downcast::<Vec<Vec<Proof<$shape, DefaultPieceHasher>>>>() {
                Ok(p) => return Ok(VanillaSealProof::$variant(*p)),
                Err(other) => other,
            }
        };
    }
    let proofs: Box<dyn Any> = Box::new(proofs);
    let proofs = as_shape!(proofs, SectorShape2KiB, StackedDrg2KiBV1);
    let proofs = as_shape!(proofs, SectorShape8MiB, StackedDrg8MiBV1);
    let proofs = as_shape!(proofs, SectorShape512MiB, StackedDrg512MiBV1);
    let proofs = as_shape!(proofs, SectorShape32GiB, StackedDrg32GiBV1);
    let _ = as_shape!(proofs, SectorShape64GiB, StackedDrg64GiBV1);
    Err(synthetic_error(
        "a sector shape filecoin-proofs-api does not list",
    ))
}

fn random_bytes(rng: &mut StdRng) -> [u8; 32] {
    rand::Rng::gen(rng)
}
