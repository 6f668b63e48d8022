//! What a GPU keeps across proofs: a parameter set's query vectors ([`device_params`]) and a
//! circuit shape's constraint matrices ([`device_matrices`], [`streamed_device_matrices`]).

use std::sync::Arc;

use supraseal_c2::groth16::{
    DeviceMatrices, DeviceParams, GpuLocks, HostMatrices, MatricesRef, QueryVectors, Residency,
    SparseRowsRef,
};

use crate::error::ProverError;
use crate::matrices::{ConstraintMatrices, SparseRows};
use crate::params::ProvingKey;
use crate::placement::G2Placement;

/// Puts the query vectors of `params` on the GPU of `locks` (resident when they fit its
/// budget, streamed per proof otherwise), b_g2 included so that B's G2 sum may run there.
/// Keep the result for as long as proofs use these parameters.
pub fn device_params<P>(locks: &GpuLocks, params: Arc<P>) -> Result<DeviceParams, ProverError>
where
    P: ProvingKey + Send + Sync + 'static,
{
    device_params_with(locks, params, Residency::Auto, G2Placement::Auto)
}

/// [`device_params`] with the residency chosen, and without b_g2 when B's G2 sum will always
/// run on the CPU (`G2Placement::Cpu`).
pub fn device_params_with<P>(
    locks: &GpuLocks,
    params: Arc<P>,
    residency: Residency,
    b_g2: G2Placement,
) -> Result<DeviceParams, ProverError>
where
    P: ProvingKey + Send + Sync + 'static,
{
    Ok(DeviceParams::new(
        Some(locks),
        locks.device(),
        residency,
        params,
        |p: &P| QueryVectors {
            h: p.h(),
            l: p.l(),
            a: p.a(),
            b_g1: p.b_g1(),
            b_g2: match b_g2 {
                G2Placement::Cpu => &[],
                G2Placement::Auto | G2Placement::AutoWithThreads(_) | G2Placement::Gpu => p.b_g2(),
            },
        },
    )?)
}

/// Puts a circuit shape's constraint matrices on the GPU of `locks`, so that its proofs can
/// leave a, b and c to the GPU ([`ConstraintMatrices::witness_assignment`] and
/// [`GpuTarget::matrices`](super::GpuTarget::matrices)). Fails when they do not fit what is
/// left of the VRAM budget; the caller then completes the assignments on the CPU
/// ([`ConstraintMatrices::fill_products`]).
pub fn device_matrices(
    locks: &GpuLocks,
    matrices: &ConstraintMatrices,
) -> Result<DeviceMatrices, ProverError> {
    Ok(DeviceMatrices::new(
        Some(locks),
        locks.device(),
        &matrices_ref(matrices),
    )?)
}

/// A circuit shape's constraint matrices streamed to the GPU of `locks` from host memory
/// (see [`DeviceMatrices::streamed`]): for a card whose budget cannot hold them beside a
/// proof, where the GPU still evaluates a, b and c so that the host holds only witnesses.
/// `chunk_terms` is the most terms and rows one copy takes (0: the library's default).
pub fn streamed_device_matrices(
    locks: &GpuLocks,
    matrices: Arc<ConstraintMatrices>,
    chunk_terms: usize,
) -> Result<DeviceMatrices, ProverError> {
    Ok(DeviceMatrices::streamed(
        Some(locks),
        locks.device(),
        matrices,
        chunk_terms,
    )?)
}

impl HostMatrices for ConstraintMatrices {
    fn matrices(&self) -> MatricesRef<'_> {
        matrices_ref(self)
    }
}

/// `matrices` as the C library's wrapper borrows them.
pub fn matrices_ref(matrices: &ConstraintMatrices) -> MatricesRef<'_> {
    fn rows(m: &SparseRows) -> SparseRowsRef<'_> {
        SparseRowsRef {
            row_ends: &m.row_ends,
            cols: &m.cols,
            coeffs: &m.coeffs,
        }
    }
    MatricesRef {
        num_inputs: matrices.num_inputs,
        num_aux: matrices.num_aux,
        a: rows(&matrices.a),
        b: rows(&matrices.b),
        c: rows(&matrices.c),
        coeff_table: &matrices.coeff_table,
    }
}
