/* The error value every cuzk-cuda entry point returns.
 *
 * No C++ exception crosses the C ABI: each `extern "C"` function catches everything and
 * reports it here. `code` is 0 on success; otherwise `message` is a NUL-terminated string
 * allocated by the library, which the caller must release with `cuzk_error_free`. */
#ifndef CUZK_ERROR_H
#define CUZK_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

enum cuzk_error_code {
    CUZK_OK = 0,
    /* A CUDA runtime call or kernel launch failed; the message names the call, file and line. */
    CUZK_ERR_CUDA = 1,
    /* Device or pinned host memory could not be allocated. */
    CUZK_ERR_OUT_OF_MEMORY = 2,
    /* The caller passed something the entry point cannot work with (sizes, null pointers). */
    CUZK_ERR_INVALID_ARGUMENT = 3,
    /* Any other failure inside the library. */
    CUZK_ERR_INTERNAL = 4,
    /* A proof given its witness cannot have its scalars split on this GPU (it would take the
     * bounded-VRAM plan): nothing was done; split them on the host and call again. */
    CUZK_ERR_SPLIT_ON_HOST = 5,
};

typedef struct cuzk_error_t {
    int code;
    char* message;
} cuzk_error_t;

/* Frees the message of an error; a null pointer is accepted. */
void cuzk_error_free(char* message);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_ERROR_H */
