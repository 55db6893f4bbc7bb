// SPDX-License-Identifier: MIT
// Preloaded by scripts/test.sh --sanitize only: dlclose does nothing, so every shared library stays mapped until
// the process ends. Mesa's GL driver (swrast_dri, with LLVM) keeps a few heap blocks referenced only from its
// own static data and is unloaded when the EGL display is terminated; once it is unmapped LeakSanitizer can no
// longer see those references and reports the blocks (128-896 bytes, "<unknown module>") as leaks of the
// process. With the driver kept, leak detection applies to every suite, the GL ones included.
int dlclose(void* handle)
{
    (void)handle;
    return 0;
}
