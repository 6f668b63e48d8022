// The one ABI function of the error layer.
#include "util/error.cuh"

extern "C" void cuzk_error_free(char* message) { std::free(message); }
