"""Deterministic names and UIDs for the objects the controllers create.

Kubernetes names some objects from random or unreproducible input: a ReplicaSet's
``pod-template-hash`` is an FNV-1a hash of the Go-printed pod template, a ReplicaSet's pods get
``generateName`` suffixes of five random characters, every object gets a random UUID. fumarole must
give the same decisions for the same input, so:

* ``pod-template-hash`` = FNV-1a (32 bit) of the template's canonical JSON (keys sorted, defaults
  left out), encoded with Kubernetes' ``SafeEncodeString`` alphabet (``bcdfghjklmnpqrstvwxz2456789``,
  one character per decimal digit of the hash) — the shape of the real value, not the value itself;
* a ReplicaSet's pod ``<replicaset>-<suffix>``: five characters of the same alphabet drawn from the
  FNV-1a hash of ``<replicaset uid>/<n>`` (n = 0, 1, … skipping names already taken);
* a UID looks like a UUID: the first four groups hash the owner's UID, the last group is the
  object's position in its owner's creation order (so pods of one owner sort by creation, as
  Volcano's task order falls back to UIDs when creation times tie). A pod re-created under the same
  name gets the same UID.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"
"""``k8s.io/apimachinery/pkg/util/rand`` alphabet: no vowels (no words), no 0/1/3 (no confusion)."""


def fnv32a(data: bytes) -> int:
    """FNV-1a, 32 bit (``hash/fnv.New32a``)."""
    value = 0x811C9DC5
    for byte in data:
        value ^= byte
        value = (value * 0x01000193) & 0xFFFFFFFF
    return value


def safe_encode(text: str) -> str:
    """``rand.SafeEncodeString``: each byte mapped into ``ALPHANUMS``."""
    return "".join(ALPHANUMS[byte % len(ALPHANUMS)] for byte in text.encode())


def template_hash(template: Any) -> str:
    """The ``pod-template-hash`` of a pod template (a JSON-able mapping)."""
    canonical = json.dumps(template, sort_keys=True, separators=(",", ":"))
    return safe_encode(str(fnv32a(canonical.encode())))


def generated_suffix(seed: str, length: int = 5) -> str:
    """``length`` characters of ``ALPHANUMS`` drawn from ``seed`` (what ``generateName`` appends)."""
    value = fnv32a(seed.encode())
    out = []
    for _ in range(length):
        value, index = divmod(value, len(ALPHANUMS))
        out.append(ALPHANUMS[index])
        if value == 0:
            value = fnv32a((seed + "".join(out)).encode())
    return "".join(out)


def object_uid(owner_uid: str, position: int) -> str:
    """A UUID-shaped UID: four groups from the owner's UID, the last one ``position`` in hex."""
    digest = hashlib.sha256(owner_uid.encode()).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{position:012x}"
