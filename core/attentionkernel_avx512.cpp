// SPDX-License-Identifier: MIT
// The attention kernels for the avx512 instruction set (see attentionkernel.h for why Eigen is renamed).
#define Eigen PoslabEigen_avx512
#define POSLAB_KERNEL_NS avx512
#include "core/attentionkernel.inc"
