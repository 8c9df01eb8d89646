"""ffmpeg-dnn-fault-harness: drive real FFmpeg DNN filter builds, inject faults, compare."""

__version__ = "0.2.0"  # the one place: pyproject.toml reads it (dynamic version)
