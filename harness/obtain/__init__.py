"""Stage 1, obtain a tree: the pinned FFmpeg source (source), Debian packages through a
private apt state (apt), the DNN backends from their packages (backends), and the trees of
the layout a case declares (layout; such as base/before/after) built from the source plus a
patch series, each a cache entry with a stamp (trees; its recipe, build steps, stamp and
twins: recipe, build, tree, twins). What names a tree entry of the cache, and a download,
for `harness cache`: tree_entries, downloads.
Imports nothing of the later stages."""
