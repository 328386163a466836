"""Giving back to the system the memory a start freed.

A restart unpickles its snapshot: the unpickler builds each record's fields in a temporary dict
and frees it as soon as the record is built. Those dicts are too large for Python's small-object
allocator, so the C library's ``malloc`` holds them, and glibc keeps what is freed in its own
free lists rather than returning it: with 20,000 jobs, about 17 MB that the server's resident
size counted for as long as it ran (102 MB after the restart of ``benchmarks/peers.py``).
``malloc_trim`` returns it; a C library without it (musl, macOS) has nothing to trim here.
"""

from __future__ import annotations

import ctypes


def trim_heap() -> bool:
    """Return the C heap's free memory to the system; False where the C library cannot. The
    process's own symbols hold the C library's (``find_library`` would run ``ldconfig``)."""
    try:
        malloc_trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return False
    malloc_trim.argtypes = [ctypes.c_size_t]
    malloc_trim(0)
    return True
