// The device listing of cuzk/device.h.
#include <algorithm>
#include <cstring>
#include <string>

#include "cuzk/device.h"
#include "util/error.cuh"

using namespace cuzk;

extern "C" cuzk_error_t cuzk_device_count(int32_t* count) {
    return guard([&] {
        CUZK_REQUIRE(count != nullptr, "device count: null output");
        *count = 0;
        int n = 0;
        const cudaError_t err = cudaGetDeviceCount(&n);
        if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver) {
            (void)cudaGetLastError();  // not sticky, but leave no error behind
            return;
        }
        CUZK_CUDA_CHECK(err);
        *count = n;
    });
}

extern "C" cuzk_error_t cuzk_device_info(int32_t device, cuzk_device_info_t* out) {
    return guard([&] {
        CUZK_REQUIRE(out != nullptr, "device info: null output");
        int n = 0;
        CUZK_CUDA_CHECK(cudaGetDeviceCount(&n));
        CUZK_REQUIRE(device >= 0 && device < n,
                     "no CUDA device " + std::to_string(device) + " (this machine has " + std::to_string(n) + ")");
        cudaDeviceProp prop{};
        CUZK_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
        std::memset(out, 0, sizeof(*out));
        out->ordinal = device;
        const size_t name_len = strnlen(prop.name, sizeof(prop.name));
        std::memcpy(out->name, prop.name, std::min(name_len, sizeof(out->name) - 1));
        out->major = prop.major;
        out->minor = prop.minor;
        CUZK_CUDA_CHECK(cudaSetDevice(device));
        CUZK_CUDA_CHECK(cudaMemGetInfo(&out->free_bytes, &out->total_bytes));
    });
}
