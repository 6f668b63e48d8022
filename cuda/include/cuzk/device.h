/* The GPUs this process can see. */
#ifndef CUZK_DEVICE_H
#define CUZK_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One GPU, as reported by the driver. */
typedef struct cuzk_device_info_t {
    int32_t ordinal;
    /* The marketing name, NUL-terminated (truncated to fit). */
    char name[256];
    /* Compute capability, e.g. 9 and 0 for an H100/H200. */
    int32_t major;
    int32_t minor;
    size_t total_bytes;
    size_t free_bytes;
} cuzk_device_info_t;

/* *count = the number of visible CUDA devices; 0 (not an error) when the machine has none or
 * no driver is installed. Other driver failures are errors. */
cuzk_error_t cuzk_device_count(int32_t* count);

/* Describes `device`. Reading the free memory makes the device current on the calling thread
 * and creates its context if needed (not a synchronizing call). */
cuzk_error_t cuzk_device_info(int32_t device, cuzk_device_info_t* out);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_DEVICE_H */
