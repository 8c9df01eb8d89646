"""Declarations for the per-build cffi module, one module per FFmpeg header we touch.

Each module has INCLUDES, TYPES, FUNCTIONS and CUSTOMIZATIONS, as in
pyca/cryptography: declarations only, structs partial (`...;`) so the build's
own headers supply every layout.
"""

MODULES = ("avutil", "detection", "avfilter", "dnn", "recorder", "standin", "logshim",
           "inject", "poll")
