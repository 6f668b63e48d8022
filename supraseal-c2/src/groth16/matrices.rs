//! A circuit shape's constraint matrices for one GPU, so that a proof's a, b and c are
//! evaluated there from the witness its splits already carry, instead of being computed and
//! uploaded by the host: resident (copied to the device once) or streamed (read from host
//! memory by every proof, a chunk at a time, on a card whose budget cannot hold them).

use std::ptr::NonNull;
use std::sync::Arc;

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

/// Host matrices that streamed device matrices read during every proof: the handle keeps
/// their owner alive, and the arrays [`HostMatrices::matrices`] returns must be the owner's
/// own, unchanged while it lives (as any data borrowed from `&self` without a lock is).
pub trait HostMatrices: Send + Sync + 'static {
    fn matrices(&self) -> MatricesRef<'_>;
}

/// A circuit shape's matrices for one GPU: resident (their bytes reserved from its budget) or
/// streamed from host memory.
pub struct DeviceMatrices {
    ptr: NonNull<ffi::cuzk_groth16_matrices_t>,
    // The locks the reservation was made from; they must outlive this handle.
    _locks: Option<GpuLocks>,
    // Streamed only: the owner of the host arrays every proof reads.
    host: Option<Arc<dyn HostMatrices>>,
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
            .field("streamed", &self.host.is_some())
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

/// The three matrices' C views, after checking that they have one row count.
fn views(m: &MatricesRef<'_>) -> Result<(usize, [ffi::cuzk_sparse_rows_t; 3]), CudaError> {
    let rows = m.a.row_ends.len();
    for (name, r) in [("B", &m.b), ("C", &m.c)] {
        if r.row_ends.len() != rows {
            return Err(CudaError::InvalidArgument(format!(
                "matrices: A has {rows} rows, {name} {}",
                r.row_ends.len()
            )));
        }
    }
    Ok((rows, [rows_view(&m.a)?, rows_view(&m.b)?, rows_view(&m.c)?]))
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
        let (rows, [a, b, c]) = views(m)?;
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
        Self::wrap(ptr, locks, device, m, rows, None)
    }

    /// Streamed matrices for the GPU of `locks` (or of `device`'s process-wide locks): only
    /// the coefficient table goes on the device, and every proof copies the rows of `host` a
    /// chunk at a time (`chunk_terms` terms and rows at most, raised to the longest row; 0 for
    /// the library's default). Fails on a bad index, like [`DeviceMatrices::new`], and where a
    /// proof's evaluation (witness, a, b, c and the chunk buffers) would not fit three
    /// quarters of what the budget leaves beside the bytes held there.
    pub fn streamed(
        locks: Option<&GpuLocks>,
        device: i32,
        host: Arc<dyn HostMatrices>,
        chunk_terms: usize,
    ) -> Result<DeviceMatrices, CudaError> {
        let device = locks.map_or(device, GpuLocks::device);
        let m = host.matrices();
        let (rows, [a, b, c]) = views(&m)?;
        let mut ptr: *mut ffi::cuzk_groth16_matrices_t = std::ptr::null_mut();
        // SAFETY: every pointer is valid for the lengths given, as in `new`; the library keeps
        // the row, column and coefficient arrays and reads them in every proof: they belong to
        // `host`, which the handle keeps alive and which does not change them (HostMatrices);
        // the handle is destroyed before `host` is dropped (Drop, then the fields).
        unsafe {
            ffi::check(ffi::cuzk_groth16_matrices_create_streamed(
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
                chunk_terms,
                &mut ptr,
            ))?;
        }
        Self::wrap(ptr, locks, device, &m, rows, Some(Arc::clone(&host)))
    }

    fn wrap(
        ptr: *mut ffi::cuzk_groth16_matrices_t,
        locks: Option<&GpuLocks>,
        device: i32,
        m: &MatricesRef<'_>,
        rows: usize,
        host: Option<Arc<dyn HostMatrices>>,
    ) -> Result<DeviceMatrices, CudaError> {
        let ptr = NonNull::new(ptr).ok_or_else(|| {
            CudaError::Internal("cuzk_groth16_matrices_create returned null".into())
        })?;
        Ok(DeviceMatrices {
            ptr,
            _locks: locks.cloned(),
            host,
            device,
            num_inputs: m.num_inputs,
            num_aux: m.num_aux,
            num_constraints: rows,
        })
    }

    /// Whether every proof reads the matrices from host memory.
    pub fn is_streamed(&self) -> bool {
        self.host.is_some()
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
