#version 430
// SPDX-License-Identifier: MIT
// Rotates each row of X (rows x d, row-major) by RoPE at that row's position, in place:
// x*cos + rotate(x)*sin for every pair, times the attention factor; dimensions r..d-1 are untouched.
// CPU twin: core/rotary.cpp rotateInPlace. Angle reduction as in trig_table.comp.
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Turns { uvec2 turns[]; };
layout(std430, binding = 1) buffer Rows { float x[]; };

uniform uint uRows;
uniform uint uDim;
uniform uint uRotaryDim;
uniform int uInterleaved;  // 1: pairs (2i, 2i+1); 0: pairs (i, i + r/2)
uniform uint uStart;       // position of row 0
uniform uint uStep;
uniform float uScale;      // attention factor

const float twoPi = 6.28318530717958647692;

void main()
{
    uint pairs = uRotaryDim / 2u;
    uint id = gl_GlobalInvocationID.x;
    uint row = id / pairs;
    uint pair = id % pairs;
    if (row >= uRows)
        return;
    uint p = uStart + row * uStep;
    uvec2 t = turns[pair];
    uint carry;
    uint low;
    umulExtended(p, t.x, carry, low);
    uint high = p * t.y + carry;
    float angle = (float(int(high)) * (1.0 / 4294967296.0) + float(low) * (1.0 / 18446744073709551616.0)) * twoPi;
    float c = uScale * cos(angle);
    float s = uScale * sin(angle);
    uint d0 = uInterleaved != 0 ? 2u * pair : pair;
    uint d1 = uInterleaved != 0 ? 2u * pair + 1u : pair + pairs;
    uint base = row * uDim;
    float x0 = x[base + d0];
    float x1 = x[base + d1];
    x[base + d0] = x0 * c - x1 * s;
    x[base + d1] = x1 * c + x0 * s;
}
