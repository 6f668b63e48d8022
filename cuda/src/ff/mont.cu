// The one definition of mont.cuh's m0_all_ones in the library's relocatable device code (see
// mont.cuh for why it lives in constant memory and why there must be only one).
#include "ff/mont.cuh"

#if !defined(__CUDACC_RDC__)
#error "ff/mont.cu is for relocatable device code (--device-c); whole-program builds use mont.cuh's static copy"
#endif

namespace cuzk {

__constant__ uint32_t m0_all_ones = 0xffffffffu;

}  // namespace cuzk
