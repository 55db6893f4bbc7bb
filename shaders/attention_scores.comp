#version 430
// SPDX-License-Identifier: MIT
// Attention logits S = scale * Q K^T for a block of query rows, tiled through shared memory, with an
// optional causal mask (key position > query position -> -inf). Q: queries x d, K: keys x d, S: rows x
// keys, all row-major float. CPU twin: Eigen's product in core (and tests/gpu compare within 1e-5).
#define TILE 16
layout(local_size_x = TILE, local_size_y = TILE) in;

layout(std430, binding = 0) readonly buffer Q { float q[]; };
layout(std430, binding = 1) readonly buffer K { float k[]; };
layout(std430, binding = 2) writeonly buffer S { float s[]; };

uniform uint uRows;       // query rows in this dispatch
uniform uint uRowOffset;  // first query row of this dispatch
uniform uint uKeys;
uniform uint uDim;
uniform float uScale;
uniform int uCausal;
uniform uint uQueryStart; // positions: query row i sits at uQueryStart + i * uQueryStep
uniform uint uQueryStep;
uniform uint uKeyStart;
uniform uint uKeyStep;

shared float tileQ[TILE][TILE];
shared float tileK[TILE][TILE];

void main()
{
    uint key = gl_GlobalInvocationID.x;
    uint localRow = gl_GlobalInvocationID.y;
    uint row = uRowOffset + localRow;
    uint tx = gl_LocalInvocationID.x;
    uint ty = gl_LocalInvocationID.y;
    uint firstKey = gl_WorkGroupID.x * TILE;
    float acc = 0.0;
    for (uint d0 = 0u; d0 < uDim; d0 += TILE) {
        // Thread (tx, ty) loads Q[row][d0 + tx] and K[firstKey + ty][d0 + tx].
        tileQ[ty][tx] = (localRow < uRows && d0 + tx < uDim) ? q[row * uDim + d0 + tx] : 0.0;
        uint kRow = firstKey + ty;
        tileK[ty][tx] = (kRow < uKeys && d0 + tx < uDim) ? k[kRow * uDim + d0 + tx] : 0.0;
        barrier();
        for (uint j = 0u; j < TILE; ++j)
            acc += tileQ[ty][j] * tileK[tx][j];
        barrier();
    }
    if (localRow >= uRows || key >= uKeys)
        return;
    float value = uScale * acc;
    if (uCausal != 0 && uKeyStart + key * uKeyStep > uQueryStart + row * uQueryStep)
        value = uintBitsToFloat(0xff800000u); // -inf
    s[localRow * uKeys + key] = value;
}
