//! A circuit shape's constraint matrices on one GPU, so that a proof's a, b and c are
//! evaluated there from the witness its splits already carry, instead of being computed and
//! uploaded by the host.

use std::ptr::NonNull;

use blstrs::Scalar;

use super::locks::GpuLocks;
use crate::error::CudaError;
use crate::ffi;

/// One matrix in compressed sparse rows, borrowed: row `r` holds the terms
/// `row_ends[r - 1] .. row_ends[r]` (from 0 for row 0); a term is a column (inputs first,
/// then aux variables) and an index into the coefficient table.
#[derive(Clone, Copy, Debug)]
pub struct SparseRowsRef<'a> {
    pub row_ends: &'a [u64],
    pub cols: &'a [u32],
    pub coeffs: &'a [u32],
}

/// The constraint matrices of a circuit shape, borrowed from their owner.
#[derive(Clone, Copy, Debug)]
pub struct MatricesRef<'a> {
    pub num_inputs: usize,
    pub num_aux: usize,
    pub a: SparseRowsRef<'a>,
    pub b: SparseRowsRef<'a>,
    pub c: SparseRowsRef<'a>,
    /// The distinct coefficients the terms index.
    pub coeff_table: &'a [Scalar],
}

/// A circuit shape's matrices resident on one GPU (their bytes reserved from its budget).
pub struct DeviceMatrices {
    ptr: NonNull<ffi::cuzk_groth16_matrices_t>,
    // The locks the reservation was made from; they must outlive this handle.
    _locks: Option<GpuLocks>,
    device: i32,
    num_inputs: usize,
    num_aux: usize,
    num_constraints: usize,
}

// SAFETY: the handle is immutable after creation and holds only device memory; proofs only
// read it, from any thread.
unsafe impl Send for DeviceMatrices {}
// SAFETY: as above: shared use only reads.
unsafe impl Sync for DeviceMatrices {}

impl std::fmt::Debug for DeviceMatrices {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceMatrices")
            .field("device", &self.device)
            .field("num_inputs", &self.num_inputs)
            .field("num_aux", &self.num_aux)
            .field("num_constraints", &self.num_constraints)
            .field("bytes", &self.bytes())
            .finish()
    }
}

fn rows_view(m: &SparseRowsRef<'_>) -> Result<ffi::cuzk_sparse_rows_t, CudaError> {
    if m.cols.len() != m.coeffs.len() {
        return Err(CudaError::InvalidArgument(format!(
            "matrices: {} columns and {} coefficient indices",
            m.cols.len(),
            m.coeffs.len()
        )));
    }
    Ok(ffi::cuzk_sparse_rows_t {
        row_ends: m.row_ends.as_ptr(),
        cols: m.cols.as_ptr(),
        coeffs: m.coeffs.as_ptr(),
        terms: m.cols.len(),
    })
}

impl DeviceMatrices {
    /// Puts `m` on the GPU of `locks` (or of `device`'s process-wide locks). Fails when a
    /// row end, column or coefficient index is out of range, or when the matrices do not fit
    /// what is left of the VRAM budget.
    pub fn new(
        locks: Option<&GpuLocks>,
        device: i32,
        m: &MatricesRef<'_>,
    ) -> Result<DeviceMatrices, CudaError> {
        let device = locks.map_or(device, GpuLocks::device);
        let rows = m.a.row_ends.len();
        for (name, r) in [("B", &m.b), ("C", &m.c)] {
            if r.row_ends.len() != rows {
                return Err(CudaError::InvalidArgument(format!(
                    "matrices: A has {rows} rows, {name} {}",
                    r.row_ends.len()
                )));
            }
        }
        let (a, b, c) = (rows_view(&m.a)?, rows_view(&m.b)?, rows_view(&m.c)?);
        let mut ptr: *mut ffi::cuzk_groth16_matrices_t = std::ptr::null_mut();
        // SAFETY: every pointer is valid for the lengths given (row_ends for `rows`, cols
        // and coeffs for `terms`, the table for its length); the library copies them to the
        // device before it returns; Scalar has blst_fr's layout; `ptr` is a valid output.
        unsafe {
            ffi::check(ffi::cuzk_groth16_matrices_create(
                locks.map_or(std::ptr::null_mut(), GpuLocks::as_ptr),
                device,
                m.num_inputs,
                m.num_aux,
                rows,
                &a,
                &b,
                &c,
                m.coeff_table.as_ptr().cast(),
                m.coeff_table.len(),
                &mut ptr,
            ))?;
        }
        let ptr = NonNull::new(ptr).ok_or_else(|| {
            CudaError::Internal("cuzk_groth16_matrices_create returned null".into())
        })?;
        Ok(DeviceMatrices {
            ptr,
            _locks: locks.cloned(),
            device,
            num_inputs: m.num_inputs,
            num_aux: m.num_aux,
            num_constraints: rows,
        })
    }

    pub fn device(&self) -> i32 {
        self.device
    }

    pub fn num_inputs(&self) -> usize {
        self.num_inputs
    }

    pub fn num_aux(&self) -> usize {
        self.num_aux
    }

    pub fn num_constraints(&self) -> usize {
        self.num_constraints
    }

    /// The VRAM the matrices hold.
    pub fn bytes(&self) -> usize {
        // SAFETY: `ptr` is a live handle.
        unsafe { ffi::cuzk_groth16_matrices_bytes(self.ptr.as_ptr()) }
    }

    /// The library's handle, for the proving calls. Valid while `self` lives.
    pub(super) fn as_ptr(&self) -> *const ffi::cuzk_groth16_matrices_t {
        self.ptr.as_ptr()
    }
}

impl Drop for DeviceMatrices {
    fn drop(&mut self) {
        // SAFETY: created by cuzk_groth16_matrices_create, destroyed once; no proof uses it (a
        // proof borrows the DeviceMatrices for its whole GPU part).
        unsafe { ffi::cuzk_groth16_matrices_destroy(self.ptr.as_ptr()) }
    }
}
