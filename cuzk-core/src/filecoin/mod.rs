//! Filecoin's proof kinds: PoRep commit phase 2, WinningPoSt, WindowPoSt partitions and
//! SnapDeals updates, built on the circuits of filecoin-proofs 19.1 (feature `filecoin`).
//!
//! Each kind turns the request a node sends (the wire protocol's fields) into the circuits
//! of its partitions and the public inputs each proof must verify against, exactly as
//! filecoin-proofs' own proving would build them, so that the engine's proofs are the ones
//! filecoin-proofs' verifiers accept. Everything that can be checked before proving is
//! checked here and refused with a [`FilecoinError`] naming the field at fault: the
//! registered proof and sector size, the encoding of the vanilla proofs, their counts, the
//! commitments, and the vanilla proofs themselves.
//!
//! # Layout
//! - `registry`: registered proof numbers, sector sizes, circuit ids ("porep-32g") and the
//!   parameter file names filecoin-proofs uses.
//! - `porep`, `post`, `snap`: one module per kind, from request to [`FilecoinJob`].
//! - [`envelope`]: the two forms of a PoRep request's input (bare, or Curio's envelope).
//! - `params`: random parameters for test sector sizes (`cuzk params generate`).
//! - [`sealing`]: sectors sealed by filecoin-proofs, with their vanilla proofs, for tests
//!   and benchmarks.
//! - [`synthetic`]: valid inputs for any sector size without sealing (32 GiB benchmarks).
//! - [`witness`]: the circuits' witnesses computed natively, without bellpepper's gadgets.
//! - `error`: [`FilecoinError`].

/// Calls `f::<Shape>(args)` with the Merkle tree shape of a Filecoin sector size, like
/// filecoin-proofs' `with_shape!` but only over the five registered sizes (three shapes) and
/// with an error, not a panic, for any other size.
macro_rules! by_shape {
    ($size:expr, $f:ident ( $($arg:expr),* $(,)? )) => {{
        use filecoin_proofs::constants as shapes;
        match $size {
            shapes::SECTOR_SIZE_2_KIB => $f::<shapes::SectorShape2KiB>($($arg),*),
            shapes::SECTOR_SIZE_8_MIB => $f::<shapes::SectorShape8MiB>($($arg),*),
            shapes::SECTOR_SIZE_512_MIB => $f::<shapes::SectorShape512MiB>($($arg),*),
            shapes::SECTOR_SIZE_32_GIB => $f::<shapes::SectorShape32GiB>($($arg),*),
            shapes::SECTOR_SIZE_64_GIB => $f::<shapes::SectorShape64GiB>($($arg),*),
            other => Err($crate::filecoin::FilecoinError::UnknownSectorSize(other)),
        }
    }};
}

pub mod envelope;
mod error;
pub mod params;
mod porep;
mod post;
pub mod registry;
pub mod sealing;
mod snap;
pub mod synthetic;
pub mod witness;

use std::panic::{catch_unwind, AssertUnwindSafe};

pub use self::error::FilecoinError;
pub use self::params::{generate_parameters, GenerateOptions, GeneratedParameters};
pub use self::porep::PoRepRequest;
pub use self::post::PoStRequest;
pub use self::registry::{parameter_file_names, parse_sector_size, prover_id, CircuitKind};
pub use self::snap::SnapRequest;

use crate::job::{Priority, ProofRequest};
use crate::kind::{CircuitProofs, Partition};

/// A Filecoin request turned into circuits, ready to be submitted.
pub struct FilecoinJob {
    /// The parameter set it proves with, e.g. "porep-32g".
    pub circuit_id: String,
    /// The kind's name in status and metrics ("porep-c2", "winning-post", ...).
    pub kind: &'static str,
    pub partitions: Vec<Partition>,
}

impl FilecoinJob {
    /// The engine request (see [`crate::Engine::submit`]).
    pub fn into_request(self, request_id: Option<String>, priority: Priority) -> ProofRequest {
        ProofRequest {
            request_id,
            circuit_id: self.circuit_id,
            priority,
            work: Box::new(CircuitProofs::new(self.kind, self.partitions)),
        }
    }

    /// A PoRep commit phase 2 (POREP_SEAL_COMMIT).
    pub fn porep_c2(request: &PoRepRequest<'_>) -> Result<FilecoinJob, FilecoinError> {
        guarded("PoRep", || porep::porep_c2(request))
    }

    /// A WinningPoSt (WINNING_POST).
    pub fn winning_post(request: &PoStRequest<'_>) -> Result<FilecoinJob, FilecoinError> {
        guarded("WinningPoSt", || post::winning_post(request))
    }

    /// One WindowPoSt partition (WINDOW_POST_PARTITION).
    pub fn window_post_partition(request: &PoStRequest<'_>) -> Result<FilecoinJob, FilecoinError> {
        guarded("WindowPoSt", || post::window_post_partition(request))
    }

    /// A SnapDeals update (SNAP_DEALS_UPDATE).
    pub fn snap_deals_update(request: &SnapRequest<'_>) -> Result<FilecoinJob, FilecoinError> {
        guarded("SnapDeals", || snap::snap_deals_update(request))
    }
}

/// filecoin-proofs indexes into vanilla proofs without checking their shape in places; the
/// checks above cover what we know of, and a panic from what they miss becomes an error
/// about the request rather than a crash.
fn guarded(
    kind: &'static str,
    build: impl FnOnce() -> Result<FilecoinJob, FilecoinError>,
) -> Result<FilecoinJob, FilecoinError> {
    catch_unwind(AssertUnwindSafe(build)).unwrap_or_else(|panic| {
        let reason = crate::panics::panic_message(&panic);
        Err(FilecoinError::Circuit {
            kind,
            partition: 0,
            reason: format!("the vanilla proofs are inconsistent ({reason})"),
        })
    })
}
