//! Native witness generation: the values Filecoin's circuits allocate, computed directly.
//!
//! With a, b and c evaluated from recorded matrices, a partition's CPU work is its witness,
//! and bellpepper's gadgets spend most of that building linear combinations that a witness
//! never uses (a 32 GiB WindowPoSt partition: about 300 core-seconds, 17% of it in
//! `Indexer::insert_or_update` alone, and a third in field multiplications that go through
//! linear-combination arithmetic). The circuits are fixed by the network, so their witness
//! can be computed without them: the same values, appended in the same order as the gadgets
//! allocate them. Every generator here is checked against the gadget it replaces, value for
//! value, by running that gadget in bellperson-lite's witness-only constraint system.
//!
//! # Layout
//! - `poseidon`: neptune's Poseidon hash circuit (the one storage-proofs' Poseidon hasher
//!   uses), for every arity the Filecoin circuits hash with.
//! - `sha256`: bellpepper's SHA-256 circuit (PoRep labels, SHA-256 Merkle trees), on
//!   bits that are constants, variables or negated variables as the gadget's are.
//! - `merkle`: storage-proofs' Merkle inclusion gadget (index bits, siblings, insertion,
//!   hash per level; the bits packed into inputs).
//! - `post`: the FallbackPoSt circuit (WindowPoSt and WinningPoSt) from its sectors.

mod merkle;
mod poseidon;
mod post;
mod sha256;

pub use self::merkle::{inclusion_path, MerkleWitnessError, PathLevel};
pub use self::poseidon::{poseidon_hash, PoseidonWitnessError};
pub use self::post::{fallback_post, PoStSector, PoStWitnessError};
pub use self::sha256::{sha256, Bit};
