// The device headers the field emulator compiles with a host C++ compiler: common/cuda_shims.h
// stands in for CUDA, and ff/ptx.cuh supplies its carry-chain instructions in C++ when no CUDA
// compiler is present.
#pragma once

#include "../common/cuda_shims.h"

#include "ec/g1.cuh"
#include "ff/bls12_381.cuh"
#include "ff/fp2.cuh"
