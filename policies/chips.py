"""Chip lists as the Ascend device plugin writes them, and chip sets as bit masks.

What it decides: how ``"Ascend910-0,Ascend910-3"`` becomes chip IDs ``(0, 3)`` and back, and how a
set of chips is held as an integer bit mask (bit ``i`` = chip ``i``) so that the card policies can
test every node at once with numpy (``popcount`` of ``uint64`` masks; a node has at most 64 chips).

Spec: upstream ``common/util/util.go`` ``ChangeTopToIntArray`` / ``ChangeIntArrToStr`` and the
resource / prefix constants of ``common/util/type.go``.

Extension points: ``CHIP_PREFIXES`` maps an NPU resource name to its chip-name prefix; add an entry
for a new chip kind.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import numpy as np

HW_PREFIX = "huawei.com/"
ASCEND_910 = "huawei.com/Ascend910"
ASCEND_310P = "huawei.com/Ascend310P"
ASCEND_310 = "huawei.com/Ascend310"
NPU = "huawei.com/npu"

CHIP_PREFIXES: dict[str, str] = {
    ASCEND_910: "Ascend910-",
    ASCEND_310P: "Ascend310P-",
    ASCEND_310: "Ascend310-",
    NPU: "npu-",
}
"""NPU resource name -> the prefix of its chip names in annotations and device lists."""

MAX_CHIPS = 64
"""Chips a mask can hold; a chip ID outside ``[0, 64)`` is ignored."""


def is_npu_resource(name: str) -> bool:
    """Any resource whose name contains ``huawei.com/`` makes a task an NPU task (``IsNPUTask``)."""
    return HW_PREFIX in name


def chip_prefix(resource: str) -> str:
    """The chip-name prefix of a resource (``Ascend910-`` for ``huawei.com/Ascend910``)."""
    known = CHIP_PREFIXES.get(resource)
    if known is not None:
        return known
    return resource.removeprefix(HW_PREFIX) + "-"


@lru_cache(maxsize=65536)
def parse_chip_list(text: str, prefix: str) -> tuple[int, ...]:
    """``"Ascend910-0,Ascend910-3"`` -> ``(0, 3)``; "" -> ``()``.

    As upstream's ``ChangeTopToIntArray``, a list with one unparsable entry yields nothing.
    """
    if not text:
        return ()
    chips: list[int] = []
    for item in text.split(","):
        value = item.strip().removeprefix(prefix)
        try:
            chips.append(int(value))
        except ValueError:
            return ()
    return tuple(chips)


def format_chip_list(chips: Iterable[int], prefix: str) -> str:
    """``(0, 3)`` -> ``"Ascend910-0,Ascend910-3"`` (``ChangeIntArrToStr``), in the given order."""
    return ",".join(f"{prefix}{chip}" for chip in chips)


def to_mask(chips: Iterable[int]) -> int:
    mask = 0
    for chip in chips:
        if 0 <= chip < MAX_CHIPS:
            mask |= 1 << chip
    return mask


def from_mask(mask: int) -> list[int]:
    """Chip IDs of a mask, ascending."""
    chips = []
    value = int(mask)
    while value:
        low = value & -value
        chips.append(low.bit_length() - 1)
        value ^= low
    return chips


def popcount(masks: np.ndarray) -> np.ndarray:
    """Number of chips in each mask (an int64 array)."""
    return np.bitwise_count(np.asarray(masks, dtype=np.uint64)).astype(np.int64)


def low_bits(count: int) -> np.uint64:
    """A mask of chips ``0 .. count-1``."""
    return np.uint64((1 << count) - 1) if count < MAX_CHIPS else np.uint64(0xFFFFFFFFFFFFFFFF)
