//! Errors returned by the CUDA library, as Rust values.
//!
//! Every entry point of cuzk-cuda returns a `cuzk_error_t {code, message}`
//! (`cuda/include/cuzk/error.h`). [`crate::ffi::check`] takes that value apart, frees the
//! message, and hands the code and text to [`CudaError::from_code`], which is plain Rust and
//! tested without a GPU.

/// The codes of `enum cuzk_error_code` in `cuda/include/cuzk/error.h`. They are repeated here
/// so that the mapping compiles and is tested without the `cuda` feature; with it, `ffi`
/// checks at compile time that both agree.
pub mod code {
    /// Success.
    pub const OK: i32 = 0;
    /// A CUDA runtime call or kernel launch failed.
    pub const CUDA: i32 = 1;
    /// Device or pinned host memory could not be allocated.
    pub const OUT_OF_MEMORY: i32 = 2;
    /// The caller passed something the entry point cannot work with.
    pub const INVALID_ARGUMENT: i32 = 3;
    /// Any other failure inside the library.
    pub const INTERNAL: i32 = 4;
    /// A proof's witness cannot be split on its GPU (it would take the bounded-VRAM plan):
    /// nothing was done; split it on the host and call again.
    pub const SPLIT_ON_HOST: i32 = 5;
}

/// A failure reported by the CUDA library. Each variant carries the library's message (for
/// CUDA failures it names the call, file and line).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CudaError {
    /// A CUDA runtime call or kernel launch failed.
    #[error("CUDA error: {0}")]
    Cuda(String),
    /// Device or pinned host memory could not be allocated.
    #[error("GPU out of memory: {0}")]
    OutOfMemory(String),
    /// The arguments were rejected by the library (sizes, null pointers).
    #[error("invalid argument to the CUDA library: {0}")]
    InvalidArgument(String),
    /// Any other failure inside the library.
    #[error("internal error in the CUDA library: {0}")]
    Internal(String),
    /// A proof given its witness whole cannot have it split on its GPU, whose VRAM budget
    /// would put it on the bounded plan (which reads host splits): nothing was done, and the
    /// caller splits the scalars on the host and calls again.
    #[error("the GPU cannot split this witness within its VRAM budget: {0}")]
    SplitOnHost(String),
    /// A code this crate does not know: the library is newer than these bindings.
    #[error("unknown error code {code} from the CUDA library: {message}")]
    Unknown {
        /// The code as returned.
        code: i32,
        /// The library's message.
        message: String,
    },
}

/// The text used when the library reports an error without a message (it could not
/// allocate one).
pub const NO_MESSAGE: &str = "(no message: the library could not allocate one)";

impl CudaError {
    /// The error for `code` with `message`, or `None` for [`code::OK`].
    pub fn from_code(code: i32, message: String) -> Option<Self> {
        Some(match code {
            code::OK => return None,
            code::CUDA => Self::Cuda(message),
            code::OUT_OF_MEMORY => Self::OutOfMemory(message),
            code::INVALID_ARGUMENT => Self::InvalidArgument(message),
            code::INTERNAL => Self::Internal(message),
            code::SPLIT_ON_HOST => Self::SplitOnHost(message),
            code => Self::Unknown { code, message },
        })
    }

    /// The C code this error was made from.
    pub fn code(&self) -> i32 {
        match self {
            Self::Cuda(_) => code::CUDA,
            Self::OutOfMemory(_) => code::OUT_OF_MEMORY,
            Self::InvalidArgument(_) => code::INVALID_ARGUMENT,
            Self::Internal(_) => code::INTERNAL,
            Self::SplitOnHost(_) => code::SPLIT_ON_HOST,
            Self::Unknown { code, .. } => *code,
        }
    }

    /// The library's message.
    pub fn message(&self) -> &str {
        match self {
            Self::Cuda(m)
            | Self::OutOfMemory(m)
            | Self::InvalidArgument(m)
            | Self::Internal(m)
            | Self::SplitOnHost(m) => m,
            Self::Unknown { message, .. } => message,
        }
    }
}

/// `Ok(())` for [`code::OK`], otherwise the error; a missing message (`None`) becomes
/// [`NO_MESSAGE`]. A message that came with `OK` is ignored.
pub fn result_from_parts(code: i32, message: Option<String>) -> Result<(), CudaError> {
    match CudaError::from_code(code, message.unwrap_or_else(|| NO_MESSAGE.to_string())) {
        None => Ok(()),
        Some(error) => Err(error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_code_maps_to_its_variant_and_back() {
        let cases = [
            (code::CUDA, CudaError::Cuda("m".into())),
            (code::OUT_OF_MEMORY, CudaError::OutOfMemory("m".into())),
            (
                code::INVALID_ARGUMENT,
                CudaError::InvalidArgument("m".into()),
            ),
            (code::INTERNAL, CudaError::Internal("m".into())),
            (code::SPLIT_ON_HOST, CudaError::SplitOnHost("m".into())),
        ];
        for (code, expected) in cases {
            let error = CudaError::from_code(code, "m".into()).unwrap();
            assert_eq!(error, expected);
            assert_eq!(error.code(), code);
            assert_eq!(error.message(), "m");
        }
    }

    #[test]
    fn ok_is_not_an_error() {
        assert_eq!(CudaError::from_code(code::OK, "ignored".into()), None);
        assert_eq!(result_from_parts(code::OK, None), Ok(()));
        assert_eq!(result_from_parts(code::OK, Some("stray".into())), Ok(()));
    }

    #[test]
    fn unknown_codes_keep_code_and_message() {
        for code in [-1, 6, 99] {
            let error = CudaError::from_code(code, "new".into()).unwrap();
            assert_eq!(
                error,
                CudaError::Unknown {
                    code,
                    message: "new".into()
                }
            );
            assert_eq!(error.code(), code);
            assert!(error.to_string().contains(&code.to_string()));
        }
    }

    #[test]
    fn missing_message_is_named() {
        let error = result_from_parts(code::OUT_OF_MEMORY, None).unwrap_err();
        assert_eq!(error, CudaError::OutOfMemory(NO_MESSAGE.into()));
    }

    #[test]
    fn display_includes_the_library_message() {
        let error = CudaError::Cuda("cudaErrorInvalidValue in `cudaMemcpy` at x.cu:3".into());
        assert_eq!(
            error.to_string(),
            "CUDA error: cudaErrorInvalidValue in `cudaMemcpy` at x.cu:3"
        );
    }
}
