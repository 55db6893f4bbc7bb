#version 330 core
// SPDX-License-Identifier: MIT
// Colour-maps a float texture (one value per table cell) through a 256-entry lookup table, showing the
// window uWindow of the table (x0, y0, width, height in cells): zoom and pan are a change of uniforms.
// CPU twin: ui/render/colormap.cpp matrixToImage (same index rounding: floor((v - lo) * 255 / span + 0.5)).
in vec2 vUv;
out vec4 fragColor;

uniform sampler2D uValues;   // R32F, cols x rows, nearest
uniform sampler2D uLut;      // 256 x 1 RGBA8
uniform vec2 uRange;         // lo, hi
uniform vec4 uWindow;        // x0, y0, width, height in cells
uniform vec2 uTableSize;     // cols, rows
uniform vec4 uBackground;

void main()
{
    vec2 cell = uWindow.xy + vUv * uWindow.zw;
    if (cell.x < 0.0 || cell.y < 0.0 || cell.x >= uTableSize.x || cell.y >= uTableSize.y) {
        fragColor = uBackground;
        return;
    }
    float v = texelFetch(uValues, ivec2(cell), 0).r;
    float span = uRange.y - uRange.x;
    float t = span > 0.0 ? (v - uRange.x) * (255.0 / span) + 0.5 : 0.5;
    t = (t >= 0.0) ? min(t, 255.0) : (t < 0.0 ? 0.0 : 255.0); // NaN fails both tests: 255, as on the CPU
    fragColor = texelFetch(uLut, ivec2(int(t), 0), 0);
}
