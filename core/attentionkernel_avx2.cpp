// SPDX-License-Identifier: MIT
// The attention kernels for the avx2 instruction set (see attentionkernel.h for why Eigen is renamed).
#define Eigen PoslabEigen_avx2
#define POSLAB_KERNEL_NS avx2
#include "core/attentionkernel.inc"
