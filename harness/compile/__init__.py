"""Stage 2, compile against one tree: the per-tree cffi module (ffi_build, declarations in
_cffi_src) and the C fault injectors of ../injectors (injector_build). Imports only
obtain of the stages."""
