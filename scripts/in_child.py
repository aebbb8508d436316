"""Runs one of onnx's verdicts in a forked child, so that onnx crashing on a malformed model (a
failed assertion, a segmentation fault) or allocating without bound ends the child, not the
script. Used by gen_operator_rules.py and validate_differential.py.
"""

from __future__ import annotations

import os
import resource
from typing import Callable

# A child's address space: a model that makes onnx allocate without bound gets a
# `std::bad_alloc` (a rejection) instead of the machine's OOM killer.
CHILD_MEMORY = 8 << 30


def run_in_child(verdict: Callable[[], str]) -> str | int:
    """`verdict()` as the child returned it, or the number of the signal that ended the child."""
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read)
        # What onnx prints as it crashes is not a verdict.
        os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
        resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY, CHILD_MEMORY))
        os.write(write, verdict().encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        out = pipe.read().decode()
    _, status = os.waitpid(child, 0)
    if os.WIFSIGNALED(status):
        return os.WTERMSIG(status)
    return out
