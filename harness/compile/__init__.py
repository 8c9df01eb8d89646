"""Stage 2, compile against one tree: the per-tree cffi module (declarations, what it
declares, read from _cffi_src; ffi_build, its compile; ffi_load, its import) and the C
fault injectors of ../injectors (injector_build); what names their cache entries, for
`harness cache`: module_entries, injector_entries. Imports only obtain of the stages."""
