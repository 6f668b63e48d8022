//! The GPUs this process can see (`cuzk/device.h`).

use std::ffi::CStr;

use crate::error::CudaError;
use crate::ffi;

/// One GPU, as reported by the driver.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    pub ordinal: i32,
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (i32, i32),
    pub total_bytes: usize,
    pub free_bytes: usize,
}

/// The number of visible CUDA devices; 0 when there is none or no driver.
pub fn device_count() -> Result<usize, CudaError> {
    let mut count = 0i32;
    // SAFETY: `count` is a valid place for the output; the call keeps no reference to it.
    unsafe { ffi::check(ffi::cuzk_device_count(&mut count))? };
    Ok(usize::try_from(count).unwrap_or(0))
}

/// Describes `device` (name, capability, memory).
pub fn device_info(device: i32) -> Result<DeviceInfo, CudaError> {
    // SAFETY: an all-zero cuzk_device_info_t is a valid value (integers and a char array).
    let mut out: ffi::cuzk_device_info_t = unsafe { std::mem::zeroed() };
    // SAFETY: `out` is a valid place for the output; the call keeps no reference to it.
    unsafe { ffi::check(ffi::cuzk_device_info(device, &mut out))? };
    // The library NUL-terminates the name within the array; the zeroed last byte guarantees
    // a terminator even if it did not.
    let bytes: Vec<u8> = out.name.iter().map(|c| *c as u8).collect();
    let name = CStr::from_bytes_until_nul(&bytes)
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(DeviceInfo {
        ordinal: out.ordinal,
        name,
        compute_capability: (out.major, out.minor),
        total_bytes: out.total_bytes,
        free_bytes: out.free_bytes,
    })
}
