#version 430
// SPDX-License-Identifier: MIT
// sin and cos of p * omega_i for a block of rows (positions) and every pair i, written into a row-major
// float table. CPU twin: core/trigtable.cpp fillTrigTableReference; reduction twin: core/fixedturns.cpp.
//
// Angle reduction without fp64: each frequency arrives as T = frac(omega / 2pi) * 2^64 (two uints), and
// frac(p * omega / 2pi) = (p * T mod 2^64) / 2^64 is formed with 32-bit unsigned multiplies, so the angle
// is exact to ~2^-32 turn before the final float sin/cos (about 2e-7 rad).
layout(local_size_x = 16, local_size_y = 16) in;

layout(std430, binding = 0) readonly buffer Turns { uvec2 turns[]; };      // (T low word, T high word)
layout(std430, binding = 1) readonly buffer Positions { uint positions[]; }; // when uIsRange == 0
layout(std430, binding = 2) writeonly buffer Table { float table[]; };

uniform uint uRows;        // rows in this dispatch
uniform uint uRowOffset;   // first row of this dispatch within the whole request
uniform uint uPairs;
uniform int uIsRange;      // 1: position = uStart + row * uStep; 0: positions[row]
uniform uint uStart;
uniform uint uStep;
uniform uint uRowStride;   // floats per row in the output
uniform uint uSinOffset;
uniform uint uCosOffset;
uniform uint uPairStride;
uniform int uWriteSin;
uniform int uWriteCos;
uniform float uScale;

const float twoPi = 6.28318530717958647692;

void main()
{
    uint pair = gl_GlobalInvocationID.x;
    uint localRow = gl_GlobalInvocationID.y;
    if (pair >= uPairs || localRow >= uRows)
        return;
    uint row = uRowOffset + localRow;
    uint p = uIsRange != 0 ? uStart + row * uStep : positions[row];
    uvec2 t = turns[pair];
    uint carry;
    uint low;
    umulExtended(p, t.x, carry, low);
    uint high = p * t.y + carry;                      // top word of p * T mod 2^64
    float fraction = float(int(high)) * (1.0 / 4294967296.0) + float(low) * (1.0 / 18446744073709551616.0);
    float angle = fraction * twoPi;                   // in [-pi, pi)
    uint at = localRow * uRowStride + pair * uPairStride;
    if (uWriteSin != 0)
        table[at + uSinOffset] = uScale * sin(angle);
    if (uWriteCos != 0)
        table[at + uCosOffset] = uScale * cos(angle);
}
