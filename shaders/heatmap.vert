#version 330 core
// SPDX-License-Identifier: MIT
// A full-viewport quad from gl_VertexID (no vertex buffer): uv runs from (0,0) top-left to (1,1)
// bottom-right, so row 0 of the table is drawn at the top as in the CPU image.
out vec2 vUv;

void main()
{
    vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));
    vUv = corner;
    gl_Position = vec4(corner.x * 2.0 - 1.0, 1.0 - corner.y * 2.0, 0.0, 1.0);
}
