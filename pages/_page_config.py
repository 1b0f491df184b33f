"""The page set-up ``app.py`` runs before ``st.navigation``: light imports only (see app.py).

It must come before ``st.navigation``: set after it, the default page's icon (a Material symbol)
became the favicon, which the browser fetches from a font server, and that fails offline.
"""

from __future__ import annotations

import streamlit as st

APP_TITLE = "Evaluation Audit Workbench"


def favicon():
    """A local favicon drawn at start-up (a named icon would be fetched from a font server)."""
    from PIL import Image, ImageDraw
    image = Image.new("RGBA", (64, 64), (31, 78, 121, 255))
    draw = ImageDraw.Draw(image)
    draw.line([(14, 34), (27, 47), (50, 18)], fill="white", width=8)
    return image


def configure_page() -> None:
    """Wide layout, the app's title and the local icon."""
    st.set_page_config(page_title=APP_TITLE, page_icon=favicon(), layout="wide", initial_sidebar_state="expanded")


# glibc's mallopt parameters (malloc.h): M_MMAP_THRESHOLD = -3, M_ARENA_MAX = -8.
_M_MMAP_THRESHOLD, _M_ARENA_MAX = -3, -8
MMAP_THRESHOLD, ARENA_MAX = 256 * 1024, 2
_allocator_tuned = False


def tune_allocator() -> bool:
    """Let a long-running server give back the memory a large upload used (once per process;
    glibc only, elsewhere nothing changes; True when applied).

    Each session's script runs in its own thread, and glibc gives threads their own heaps (up to
    8 per core) and, after a large array is freed, raises its mmap threshold to that size (up to
    32 MB), so the next arrays of a parse land on those heaps, where freed memory stays with the
    process: after 20 sessions each replayed a 10 MB upload, ~500 MB more than what they kept.
    A fixed threshold (blocks over 256 KiB are mapped and unmapped on their own) and two heaps
    give it back (the same as ``MALLOC_MMAP_THRESHOLD_=262144 MALLOC_ARENA_MAX=2``; docs/deploy.md).
    """
    global _allocator_tuned
    if _allocator_tuned:
        return True
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc (macOS, musl): their allocators differ
        return False
    _allocator_tuned = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_ARENA_MAX, ARENA_MAX))
    if _allocator_tuned:
        # Arrow (compact text columns) allocates through its own mimalloc by default, which keeps
        # what each script thread freed; through glibc, tuned as above, it goes back.
        import pyarrow as pa
        pa.set_memory_pool(pa.system_memory_pool())
    return _allocator_tuned


def give_back_memory() -> None:
    """Free what earlier runs left in reference cycles, then return the allocator's free pages to
    the system (glibc's ``malloc_trim``; elsewhere only the collection), after a large job.

    The server skips Streamlit's full collection after every run (``runner.postScriptGC = false``
    in .streamlit/config.toml: ~150 ms of GIL on every toggle), so a page run's globals, which its
    own functions reference (a cycle), and with them a replaced upload's table or an evicted replay,
    waited for Python's occasional full collection: after 20 sessions each replayed a 10 MB upload,
    ~170 MB of the server's 1.13 GB was such garbage. A large job takes seconds; this full
    collection (~0.15 s) after it is what keeps that memory from piling up (issue 18 item 5)."""
    import contextlib
    import ctypes
    import ctypes.util
    import gc

    gc.collect()
    with contextlib.suppress(OSError, AttributeError):  # not glibc: its allocator has no malloc_trim
        ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)
