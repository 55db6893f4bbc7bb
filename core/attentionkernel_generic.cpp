// SPDX-License-Identifier: MIT
// The attention kernels for the generic instruction set (see attentionkernel.h for why Eigen is renamed).
#define Eigen PoslabEigen_generic
#define POSLAB_KERNEL_NS generic
#include "core/attentionkernel.inc"
