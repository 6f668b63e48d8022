//! A proof's witness on the host: shared by the GPU part and the B_G2 thread ([`HostWitness`]),
//! and split into zeros, ones and the rest for the GPU when the host splits it
//! ([`split_scalars`]).

use std::sync::Arc;

use blstrs::Scalar;
use supraseal_c2::groth16::WitnessRef;
use supraseal_c2::split::MsmSplit;

use crate::density::Density;
use crate::error::ProverError;
use crate::params::ProvingKey;
use crate::query_splits::WitnessClasses;
use crate::synthesis::ProvingAssignment;

/// One circuit's witness and densities, shared by the GPU part (which may upload the witness
/// whole) and the B_G2 thread (which reads the values B's densities select).
pub(super) struct HostWitness {
    pub inputs: Vec<Scalar>,
    pub aux: Vec<Scalar>,
    pub a_aux_density: Density,
    pub b_input_density: Density,
    pub b_aux_density: Density,
}

impl HostWitness {
    /// The witness as the GPU splits it.
    pub fn view(&self) -> WitnessRef<'_> {
        WitnessRef {
            inputs: &self.inputs,
            aux: &self.aux,
            a_aux_density: self.a_aux_density.words(),
            b_input_density: self.b_input_density.words(),
            b_aux_density: self.b_aux_density.words(),
        }
    }
}

/// The three host splits of a circuit: l, a, and b (b_g1's, shared with the B_G2 thread when
/// B's G2 sum runs on the CPU).
pub(super) type HostSplits = (MsmSplit, MsmSplit, Arc<MsmSplit>);

/// The scalars of the l, a and b_g1 MSMs, split for the GPU (see supraseal_c2::split).
pub fn split_scalars<P: ProvingKey + ?Sized>(
    a: &ProvingAssignment,
    params: &P,
) -> Result<(MsmSplit, MsmSplit, MsmSplit), ProverError> {
    split_witness(
        &a.input_assignment,
        &a.aux_assignment,
        [&a.a_aux_density, &a.b_input_density, &a.b_aux_density],
        params,
    )
}

/// [`split_scalars`] of a [`HostWitness`], B's split shared.
pub(super) fn split_on_host<P: ProvingKey + ?Sized>(
    w: &HostWitness,
    params: &P,
) -> Result<HostSplits, ProverError> {
    let (l, a, b) = split_witness(
        &w.inputs,
        &w.aux,
        [&w.a_aux_density, &w.b_input_density, &w.b_aux_density],
        params,
    )?;
    Ok((l, a, Arc::new(b)))
}

/// The three splits of a witness, given A's aux density and B's input and aux densities:
/// each value classified once, the splits made from the classes.
fn split_witness<P: ProvingKey + ?Sized>(
    inputs: &[Scalar],
    aux: &[Scalar],
    [a_aux_density, b_input_density, b_aux_density]: [&Density; 3],
    params: &P,
) -> Result<(MsmSplit, MsmSplit, MsmSplit), ProverError> {
    let classes = WitnessClasses::of(inputs, aux);
    Ok((
        classes.l(params.l().len())?,
        classes.a(params.a().len(), a_aux_density)?,
        classes.b(params.b_g1().len(), b_input_density, b_aux_density)?,
    ))
}
