"""The FGD paper's six GPU scheduling policies and its fragmentation measure.

Weng et al., "Beware of Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient
Descent", USENIX ATC '23. ``fragmentation`` (task types, distributions, the classes of idle GPU),
``scores`` (the six scores on arrays of nodes), ``plugins`` (the nodeorder plugins). ``POLICIES``
lists the policies as the artefact's experiments run them (``experiments/run_scripts/
generate_run_scripts.py``): its ``sc_policy`` label, the plugin, the shipped conf, and the options.
"""

from __future__ import annotations

from dataclasses import dataclass

from .fragmentation import (
    CLASSES,
    TaskDistribution,
    TaskType,
    class_amounts,
    fragmentation,
    node_fragmentation,
    task_distribution,
)
from .plugins import (
    PLUGINS,
    BestFitScorePlugin,
    DotProductScorePlugin,
    FgdScorePlugin,
    GpuClusteringScorePlugin,
    GpuPackingScorePlugin,
    RandomScorePlugin,
)


@dataclass(frozen=True)
class PolicySpec:
    """One of the paper's policies as its experiments run it."""

    label: str
    """The artefact's ``sc_policy`` (``01-Random`` ... ``06-FGD``)."""
    plugin: str
    """The nodeorder plugin."""
    conf: str
    """The shipped conf, relative to the repository root."""
    selection: str
    """``gpu-share.gpuSelMethod``."""
    dimension: str = ""
    """``dot-product-score.dimExtMethod`` (dot product only)."""
    norm: str = ""
    """``dot-product-score.normMethod`` (dot product only)."""


POLICIES: tuple[PolicySpec, ...] = (
    PolicySpec("01-Random", "random-score", "conf/fgd/random.yaml", "random"),
    PolicySpec("02-DotProd", "dot-product-score", "conf/fgd/dot-product.yaml", "best", "merge", "max"),
    PolicySpec("03-GpuClustering", "gpu-clustering-score", "conf/fgd/gpu-clustering.yaml", "best"),
    PolicySpec("04-GpuPacking", "gpu-packing-score", "conf/fgd/gpu-packing.yaml", "best"),
    PolicySpec("05-BestFit", "best-fit-score", "conf/fgd/best-fit.yaml", "best"),
    PolicySpec("06-FGD", "fgd-score", "conf/fgd/fgd.yaml", "fgd-score"),
)

__all__ = [
    "CLASSES",
    "PLUGINS",
    "POLICIES",
    "BestFitScorePlugin",
    "DotProductScorePlugin",
    "FgdScorePlugin",
    "GpuClusteringScorePlugin",
    "GpuPackingScorePlugin",
    "PolicySpec",
    "RandomScorePlugin",
    "TaskDistribution",
    "TaskType",
    "class_amounts",
    "fragmentation",
    "node_fragmentation",
    "task_distribution",
]
