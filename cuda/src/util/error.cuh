// Error handling inside the CUDA library: exceptions internally, `cuzk_error_t` at the ABI.
//
// Every CUDA runtime call goes through CUZK_CUDA_CHECK, which throws a `cuda_error` that
// records the expression, file and line; every launch is followed by CUZK_LAUNCH_CHECK.
// Entry points wrap their body in `cuzk::guard`, which converts any exception into an
// error value, so that no exception ever unwinds into Rust.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "cuzk/error.h"

namespace cuzk {

// A failed CUDA runtime call.
class cuda_error : public std::runtime_error {
public:
    cuda_error(cudaError_t code, const char* expr, const char* file, int line)
        : std::runtime_error(describe(code, expr, file, line)), code_(code) {}
    cudaError_t code() const noexcept { return code_; }

private:
    static std::string describe(cudaError_t code, const char* expr, const char* file, int line) {
        return std::string(cudaGetErrorName(code)) + " (" + cudaGetErrorString(code) + ") in `" +
               expr + "` at " + file + ":" + std::to_string(line);
    }
    cudaError_t code_;
};

// A caller error detected by the library (bad size, null pointer).
class invalid_argument : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

// A proof given its witness that the GPU cannot split within its budget
// (CUZK_ERR_SPLIT_ON_HOST): the caller splits the scalars on the host and calls again.
class split_on_host : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

#define CUZK_CUDA_CHECK(expr)                                                      \
    do {                                                                           \
        cudaError_t cuzk_status_ = (expr);                                         \
        if (cuzk_status_ != cudaSuccess)                                           \
            throw ::cuzk::cuda_error(cuzk_status_, #expr, __FILE__, __LINE__);     \
    } while (0)

// Checks the launch that just happened (bad configuration, missing kernel image).
#define CUZK_LAUNCH_CHECK() CUZK_CUDA_CHECK(cudaGetLastError())

#define CUZK_REQUIRE(cond, msg)                                                    \
    do {                                                                           \
        if (!(cond)) throw ::cuzk::invalid_argument(msg);                          \
    } while (0)

inline char* copy_message(const char* text) noexcept {
    size_t len = std::strlen(text);
    char* out = static_cast<char*>(std::malloc(len + 1));
    if (out) std::memcpy(out, text, len + 1);
    return out;
}

inline cuzk_error_t make_error(int code, const char* text) noexcept {
    return cuzk_error_t{code, copy_message(text)};
}

inline cuzk_error_t ok() noexcept { return cuzk_error_t{CUZK_OK, nullptr}; }

// Runs `body` and turns whatever it throws into an error value.
template <class F>
cuzk_error_t guard(F&& body) noexcept {
    try {
        body();
        return ok();
    } catch (const cuda_error& e) {
        if (e.code() == cudaErrorMemoryAllocation) return make_error(CUZK_ERR_OUT_OF_MEMORY, e.what());
        return make_error(CUZK_ERR_CUDA, e.what());
    } catch (const invalid_argument& e) {
        return make_error(CUZK_ERR_INVALID_ARGUMENT, e.what());
    } catch (const split_on_host& e) {
        return make_error(CUZK_ERR_SPLIT_ON_HOST, e.what());
    } catch (const std::bad_alloc&) {
        return make_error(CUZK_ERR_OUT_OF_MEMORY, "host memory allocation failed");
    } catch (const std::exception& e) {
        return make_error(CUZK_ERR_INTERNAL, e.what());
    } catch (...) {
        return make_error(CUZK_ERR_INTERNAL, "unknown exception");
    }
}

}  // namespace cuzk
