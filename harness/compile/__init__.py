"""Stage 2, compile against one tree: the per-tree cffi module (ffi_build, declarations in
_cffi_src) and the C fault injectors of ../injectors (injector_build); what names their
cache entries, for `harness cache`: module_entries, injector_entries. Imports only obtain
of the stages."""
