//! Proof kinds: how a request becomes partition circuits.
//!
//! A kind implements [`ProofWork`]: at submission it turns its inputs into [`Partition`]s,
//! each a circuit to synthesize plus the public inputs its proof must verify against (the
//! self-check). Invalid inputs are refused there, before anything is queued. This module
//! provides the generic kind, [`CircuitProofs`], for any bellpepper circuit; the Filecoin
//! kinds build on the same trait.

use std::path::Path;
use std::sync::Arc;

use bellpepper_core::{Circuit, SynthesisError};
use bellperson_lite::matrices::{
    load_or_record_matrices, record_matrices, synthesize_witness, ConstraintMatrices, MatrixError,
    MatrixFileError, Witness,
};
use bellperson_lite::synthesis::{synthesize_circuit, ProvingAssignment};
use bellperson_lite::Scalar;

/// What a job proves, before it is split.
pub trait ProofWork: Send + 'static {
    /// The kind's name, for status and metrics (e.g. "porep-c2", "circuit").
    fn kind(&self) -> &str;

    /// The partitions, in the order their proofs are returned. An error is a request that can
    /// never succeed, with the reason.
    fn into_partitions(self: Box<Self>) -> Result<Vec<Partition>, RequestError>;
}

/// Why a kind refused its inputs at submission: a request that can never succeed.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    #[error("a job needs at least one partition")]
    NoPartitions,
    /// A kind's own reason (kinds defined outside this crate), its error kept as the source.
    #[error(transparent)]
    Kind(Box<dyn std::error::Error + Send + Sync>),
}

type SynthesizeFn = dyn Fn() -> Result<ProvingAssignment, SynthesisError> + Send + Sync;
type WitnessFn = dyn Fn() -> Result<Witness, SynthesisError> + Send + Sync;
/// A witness computed without the circuit's gadgets (`filecoin::witness`); its error is the
/// generator's own, shown to the operator when the engine falls back to the gadgets.
pub(crate) type NativeWitnessFn =
    dyn Fn() -> Result<Witness, Box<dyn std::error::Error + Send + Sync>> + Send + Sync;
/// Records the circuit's matrices; with a file path and key, loads them from the file when it
/// holds them and saves them there otherwise.
type RecordFn =
    dyn Fn(Option<(&Path, &str)>) -> Result<ConstraintMatrices, MatrixFileError> + Send + Sync;

/// The fast path of a partition's synthesis (see `bellperson_lite::matrices`): its witness,
/// and how to record its circuit's matrices once for every partition of the same circuit id.
#[derive(Clone)]
pub(crate) struct MatrixPath {
    pub witness: Arc<WitnessFn>,
    pub record: Arc<RecordFn>,
    /// The same witness computed natively, where the kind has a generator for it: used once
    /// the engine has checked it against `witness` for the circuit id (`native_witness`).
    pub native: Option<Arc<NativeWitnessFn>>,
}

/// One circuit of a job, ready to be synthesized (again, if its proof has to be redone).
/// Clones share the circuit.
#[derive(Clone)]
pub struct Partition {
    synthesize: Arc<SynthesizeFn>,
    matrix_path: Option<MatrixPath>,
    /// The public inputs the proof is checked against (without the constant one).
    pub public_inputs: Vec<Scalar>,
    /// Estimated bytes of its synthesized form, when the kind knows it; otherwise the engine
    /// uses what it saw for the same parameters before (or a conservative guess).
    pub working_set_hint: Option<u64>,
}

impl Partition {
    /// A partition proving `circuit`. The circuit is cloned for each synthesis, so that a proof
    /// that fails its self-check can be redone. It may be synthesized through the constraint
    /// matrices of its circuit id (recorded once, then the witness and three products per
    /// proof): every partition of a circuit id must then have the same constraints, as the
    /// partitions of one Filecoin proof kind and size do. [`Partition::full_synthesis_only`]
    /// opts out.
    pub fn from_circuit<C>(circuit: C, public_inputs: Vec<Scalar>) -> Partition
    where
        C: Circuit<Scalar> + Clone + Send + Sync + 'static,
    {
        Partition::from_circuit_fn(move || circuit.clone(), public_inputs)
    }

    /// A partition proving the circuit `make` builds, for circuits that are not `Clone`: it is
    /// called once per synthesis (and once to record the matrices), so it should be cheap.
    /// The same rules as [`Partition::from_circuit`] apply.
    pub fn from_circuit_fn<C, F>(make: F, public_inputs: Vec<Scalar>) -> Partition
    where
        C: Circuit<Scalar>,
        F: Fn() -> C + Send + Sync + 'static,
    {
        let make = Arc::new(make);
        let (full, witness, record) = (Arc::clone(&make), Arc::clone(&make), make);
        Partition {
            synthesize: Arc::new(move || synthesize_circuit(full())),
            matrix_path: Some(MatrixPath {
                witness: Arc::new(move || synthesize_witness(witness())),
                record: Arc::new(move |file| match file {
                    Some((path, key)) => {
                        load_or_record_matrices(path, key, record()).map(|(m, _)| m)
                    }
                    None => Ok(record_matrices(record())?),
                }),
                native: None,
            }),
            public_inputs,
            working_set_hint: None,
        }
    }

    /// A generator of the same witness as the circuit's gadgets compute, without them (the
    /// values in allocation order, inputs from the constant one). The engine uses it for a
    /// circuit id once one partition's native witness has equalled the gadgets' (and checks
    /// samples after that, `engine.native_witness_check_every`); on any difference it keeps
    /// to the gadgets for that id. Only the matrix path computes a bare witness: a partition
    /// synthesized in full does not use it.
    pub fn with_native_witness<F, E>(mut self, native: F) -> Partition
    where
        F: Fn() -> Result<Witness, E> + Send + Sync + 'static,
        E: std::error::Error + Send + Sync + 'static,
    {
        if let Some(path) = &mut self.matrix_path {
            path.native = Some(Arc::new(move || native().map_err(|e| e.into())));
        }
        self
    }

    /// The partition's witness through its circuit's gadgets (what the matrix path computes
    /// without a native generator); `None` when the partition is always synthesized in full.
    /// For benchmarks and tests; the engine goes through `native_witness`.
    pub fn gadget_witness(&self) -> Option<Result<Witness, SynthesisError>> {
        self.matrix_path.as_ref().map(|path| (path.witness)())
    }

    /// Whether the partition has a native witness generator.
    pub fn has_native_witness(&self) -> bool {
        self.matrix_path
            .as_ref()
            .is_some_and(|path| path.native.is_some())
    }

    /// The partition's witness from its native generator; `None` without one.
    #[allow(clippy::type_complexity)]
    pub fn native_witness(
        &self,
    ) -> Option<Result<Witness, Box<dyn std::error::Error + Send + Sync>>> {
        self.matrix_path
            .as_ref()
            .and_then(|path| path.native.as_ref())
            .map(|native| native())
    }

    /// Always synthesize this partition in full (for circuits whose constraints depend on
    /// the witness, which the matrix path cannot serve).
    pub fn full_synthesis_only(mut self) -> Partition {
        self.matrix_path = None;
        self
    }

    pub(crate) fn matrix_path(&self) -> Option<&MatrixPath> {
        self.matrix_path.as_ref()
    }

    /// Sets the working-set estimate.
    pub fn with_working_set(mut self, bytes: u64) -> Partition {
        self.working_set_hint = Some(bytes);
        self
    }

    /// Runs the circuit into a full assignment.
    pub fn synthesize(&self) -> Result<ProvingAssignment, SynthesisError> {
        (self.synthesize)()
    }

    /// The assignment the engine's fast path computes: this partition's matrices (recorded
    /// here, not taken from the engine's cache), its witness and the three products. `None`
    /// when the partition opted out. For tests and benchmarks that compare it with
    /// [`Partition::synthesize`].
    pub fn synthesize_through_matrices(
        &self,
    ) -> Result<Option<ProvingAssignment>, MatrixPathError> {
        let Some(path) = &self.matrix_path else {
            return Ok(None);
        };
        let matrices = (path.record)(None)?;
        Ok(Some(matrices.assignment((path.witness)()?)?))
    }
}

/// Why [`Partition::synthesize_through_matrices`] failed.
#[derive(Debug, thiserror::Error)]
pub enum MatrixPathError {
    #[error("recording the constraint matrices: {0}")]
    Record(#[from] MatrixFileError),
    #[error("computing the witness: {0}")]
    Witness(#[from] SynthesisError),
    #[error("evaluating the matrices: {0}")]
    Products(#[from] MatrixError),
}

/// Bytes a synthesized assignment holds: a, b, c and both assignments (32 bytes per scalar),
/// and the density bitmaps.
pub fn assignment_bytes(a: &ProvingAssignment) -> u64 {
    let scalars =
        a.a.len() + a.b.len() + a.c.len() + a.input_assignment.len() + a.aux_assignment.len();
    let bits = a.a_aux_density.len() + a.b_input_density.len() + a.b_aux_density.len();
    (scalars as u64) * 32 + (bits as u64).div_ceil(8)
}

/// The generic kind: partitions made by the caller from any bellpepper circuits.
pub struct CircuitProofs {
    kind: String,
    partitions: Vec<Partition>,
}

impl CircuitProofs {
    /// `kind` names it in status and metrics.
    pub fn new(kind: impl Into<String>, partitions: Vec<Partition>) -> CircuitProofs {
        CircuitProofs {
            kind: kind.into(),
            partitions,
        }
    }
}

impl ProofWork for CircuitProofs {
    fn kind(&self) -> &str {
        &self.kind
    }

    fn into_partitions(self: Box<Self>) -> Result<Vec<Partition>, RequestError> {
        if self.partitions.is_empty() {
            return Err(RequestError::NoPartitions);
        }
        Ok(self.partitions)
    }
}
