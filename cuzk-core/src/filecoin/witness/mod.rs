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

mod poseidon;

pub use self::poseidon::{poseidon_hash, PoseidonWitnessError};
