//! A proof's witness on the host: shared by the GPU part and the B_G2 thread ([`HostWitness`]),
//! and split into zeros, ones and the rest for the GPU when the host splits it
//! ([`split_scalars`]).

use blstrs::Scalar;
use supraseal_c2::groth16::WitnessRef;
use supraseal_c2::split::{MsmSplit, ScalarClasses, ScalarPart};

use crate::density::Density;
use crate::error::ProverError;
use crate::params::ProvingKey;
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

/// The three host splits of a circuit (l, a, b_g1).
pub(super) type HostSplits = (MsmSplit, MsmSplit, MsmSplit);

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

/// [`split_scalars`] of a [`HostWitness`].
pub(super) fn split_on_host<P: ProvingKey + ?Sized>(
    w: &HostWitness,
    params: &P,
) -> Result<HostSplits, ProverError> {
    split_witness(
        &w.inputs,
        &w.aux,
        [&w.a_aux_density, &w.b_input_density, &w.b_aux_density],
        params,
    )
}

/// The splits of a witness's values, given A's aux density and B's input and aux densities.
/// Each value is classified once (zero, one or other), in parallel, and the three splits are
/// made from the classes: the aux values, most of a witness, are read once instead of three
/// times.
fn split_witness<P: ProvingKey + ?Sized>(
    inputs: &[Scalar],
    aux: &[Scalar],
    [a_aux_density, b_input_density, b_aux_density]: [&Density; 3],
    params: &P,
) -> Result<HostSplits, ProverError> {
    let (input_classes, aux_classes) =
        rayon::join(|| ScalarClasses::of(inputs), || ScalarClasses::of(aux));
    fn whole<'a>(scalars: &'a [Scalar], classes: &'a ScalarClasses<'a>) -> ScalarPart<'a> {
        ScalarPart {
            scalars,
            density: None,
            classes: Some(classes),
        }
    }
    fn dense<'a>(
        scalars: &'a [Scalar],
        d: &'a Density,
        classes: &'a ScalarClasses<'a>,
    ) -> ScalarPart<'a> {
        ScalarPart {
            scalars,
            density: Some(d.words()),
            classes: Some(classes),
        }
    }
    let l = MsmSplit::build(params.l().len(), &[whole(aux, &aux_classes)])?;
    let a_query = MsmSplit::build(
        params.a().len(),
        &[
            whole(inputs, &input_classes),
            dense(aux, a_aux_density, &aux_classes),
        ],
    )?;
    let b_g1 = MsmSplit::build(
        params.b_g1().len(),
        &[
            dense(inputs, b_input_density, &input_classes),
            dense(aux, b_aux_density, &aux_classes),
        ],
    )?;
    Ok((l, a_query, b_g1))
}
