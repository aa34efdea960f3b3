"""The arguments of the ``huawei-npu`` plugin, read where upstream reads them.

Upstream reads its parameters from the scheduler conf's ``configurations`` entry named
``init-params`` (string values, e.g. ``prefer-previous-node: "true"``). fumarole reads them there
too, and also from the plugin's own ``arguments`` in its tier; the plugin's own value wins when a
key is set in both places.

============================  =========  ====================================================
key                           default    effect
============================  =========  ====================================================
prefer-previous-node          false      the affinity cache and the previous-node preference
                                         (upstream default; the shipped confs set "true")
affinity-cache-ttl            24h        owners not seen for this long leave the cache (seed
                                         000 §3.1.10; upstream 72h). Seconds, or a Go duration
prefer-previous-node-bonus    100        previous node's score = max score + bonus
score-weight                  100        final multiplier of the plugin's node scores
grace-over-time               900        fault records live grace-over-time + 300 s; valid
                                         range [2, 3600] (else the default, as upstream)
useClusterInfoManager         true       which device-info ConfigMaps win when a node has both:
                                         ClusterD's ``mindx-dl/cluster-info-device-<i>`` (true)
                                         or the device plugin's ``kube-system/mindx-dl-deviceinfo-<node>``
self-maintain-available-card  true       free chips = ``baseDeviceInfos`` − chips of active pods
                                         − Unhealthy − Recovering; false: the device list's
                                         chips − chips of active pods − Unhealthy − Recovering
super-pod-size                48         nodes of a physical super pod (super-pod policies); 0 or
                                         not a number: 48
reserve-nodes                 2          nodes of each super pod kept free while other choices
                                         exist; "0" reserves none (upstream turns 0 into 2);
                                         not below super-pod-size (else 2, or 0 when the size is
                                         at most 2)
============================  =========  ====================================================

Accepted for compatibility, no effect: ``presetVirtualDevice``, ``nslb-version``,
``shared-tor-num``, ``forceEnqueue``.

``resource-level-config`` (JSON, no default): the network levels of each topo tree for
``schedule_policy: multilevel`` jobs (``policies/multilevel/levels.py``). ``super-pod-size``
(default 48) is read by the super-pod policies (A3, ``chip8-node8-sp``) and by ``chip8-node8-ra64-sp``
(``policies/chip8node8ra64sp/blocks.py``, which also checks it is in [1, 1024]).

In ``init-params`` a value that does not parse keeps the default (upstream logs and goes on); in
the plugin's own ``arguments`` it is an error the conf loader reports with the file and the key.
Booleans in ``init-params`` are true only for the text ``"true"`` (upstream compares strings); the
plugin's own arguments take YAML booleans or any ``strconv.ParseBool`` text.

Spec: upstream ``plugin/factory.go`` (``getConfigurationByKey``, ``initDynamicParameters``,
``initStaticParameters``, ``getPreferPreviousNodeConfig``, ``getGraceDeleteTime``), ``plugin/const.go``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from fumarole.framework.api.go_bool import GoBool
from fumarole.policies.affinity_cache import DEFAULT_TTL_SECONDS
from fumarole.policies.fault.tracker import DEFAULT_GRACE_OVER_TIME
from loguru import logger
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

INIT_PARAMS = "init-params"
PREFER_PREVIOUS_NODE = "prefer-previous-node"
AFFINITY_CACHE_TTL = "affinity-cache-ttl"
PREFER_PREVIOUS_NODE_BONUS = "prefer-previous-node-bonus"
SCORE_WEIGHT = "score-weight"
GRACE_OVER_TIME = "grace-over-time"
USE_CLUSTER_INFO_MANAGER = "useClusterInfoManager"
SELF_MAINTAIN_AVAILABLE_CARD = "self-maintain-available-card"
RESOURCE_LEVEL_CONFIG = "resource-level-config"
SUPER_POD_SIZE = "super-pod-size"
RESERVE_NODES = "reserve-nodes"
DEFAULT_SUPER_POD_SIZE = 48
DEFAULT_RESERVE_NODES = 2
NO_EFFECT_KEYS = (
    "presetVirtualDevice",
    "nslb-version",
    "shared-tor-num",
    "forceEnqueue",
)

DEFAULT_BONUS = 100.0
DEFAULT_SCORE_WEIGHT = 100.0
MIN_GRACE_OVER_TIME = 2
MAX_GRACE_OVER_TIME = 3600

_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_DURATION = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")


def parse_duration(raw: object) -> float:
    """Seconds from a number (seconds) or a Go duration text (``"24h"``, ``"1h30m"``, ``"90s"``)."""
    if isinstance(raw, bool):
        raise ValueError(f"expected a duration, got {raw!r}")
    if isinstance(raw, int | float):
        if raw < 0:
            raise ValueError(f"duration must not be negative, got {raw!r}")
        return float(raw)
    if not isinstance(raw, str) or not raw.strip():
        raise ValueError(f"expected a duration, got {raw!r}")
    text = raw.strip()
    try:
        value = float(text)
    except ValueError:
        pass
    else:
        if value < 0:
            raise ValueError(f"duration must not be negative, got {raw!r}")
        return value
    total = 0.0
    position = 0
    for match in _DURATION.finditer(text):
        if match.start() != position:
            break
        total += float(match.group(1)) * _UNITS[match.group(2)]
        position = match.end()
    if position != len(text) or position == 0:
        raise ValueError(f"invalid duration {raw!r} (use seconds or a Go duration such as 24h)")
    return total


def _number(raw: object) -> float:
    if isinstance(raw, bool):
        raise ValueError(f"expected a number, got {raw!r}")
    if isinstance(raw, int | float):
        return float(raw)
    if isinstance(raw, str):
        return float(raw)
    raise ValueError(f"expected a number, got {raw!r}")


def _integer(raw: object) -> int:
    if isinstance(raw, bool):
        raise ValueError(f"expected an integer, got {raw!r}")
    if isinstance(raw, int):
        return raw
    if isinstance(raw, str):
        return int(raw.strip())
    raise ValueError(f"expected an integer, got {raw!r}")


Duration = Annotated[float, BeforeValidator(parse_duration)]
Number = Annotated[float, BeforeValidator(_number)]
Integer = Annotated[int, BeforeValidator(_integer)]


class HuaweiNpuArguments(BaseModel):
    """The plugin's own ``arguments`` (every key optional; unset keys fall back to init-params)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    prefer_previous_node: GoBool | None = Field(None, alias="prefer-previous-node")
    affinity_cache_ttl: Duration | None = Field(None, alias="affinity-cache-ttl")
    prefer_previous_node_bonus: Number | None = Field(None, alias="prefer-previous-node-bonus")
    score_weight: Number | None = Field(None, alias="score-weight")
    grace_over_time: Integer | None = Field(None, alias="grace-over-time")
    use_cluster_info_manager: GoBool | None = Field(None, alias="useClusterInfoManager")
    self_maintain_available_card: GoBool | None = Field(None, alias="self-maintain-available-card")
    preset_virtual_device: Any = Field(None, alias="presetVirtualDevice")
    nslb_version: Any = Field(None, alias="nslb-version")
    shared_tor_num: Any = Field(None, alias="shared-tor-num")
    super_pod_size: Integer | None = Field(None, alias="super-pod-size")
    reserve_nodes: Integer | None = Field(None, alias="reserve-nodes")
    force_enqueue: Any = Field(None, alias="forceEnqueue")
    resource_level_config: Any = Field(None, alias="resource-level-config")

    @field_validator("grace_over_time")
    @classmethod
    def _grace_range(cls, value: int | None) -> int | None:
        if value is not None and not MIN_GRACE_OVER_TIME <= value <= MAX_GRACE_OVER_TIME:
            raise ValueError(f"must be in [{MIN_GRACE_OVER_TIME}, {MAX_GRACE_OVER_TIME}]")
        return value

    @field_validator("super_pod_size", "reserve_nodes")
    @classmethod
    def _not_negative(cls, value: int | None) -> int | None:
        if value is not None and value < 0:
            raise ValueError("must not be negative")
        return value


@dataclass(frozen=True)
class NpuConfig:
    """The resolved parameters of one session."""

    prefer_previous_node: bool = False
    affinity_cache_ttl: float = DEFAULT_TTL_SECONDS
    prefer_previous_node_bonus: float = DEFAULT_BONUS
    score_weight: float = DEFAULT_SCORE_WEIGHT
    grace_over_time: int = DEFAULT_GRACE_OVER_TIME
    use_cluster_info_manager: bool = True
    self_maintain_available_card: bool = True
    resource_level_config: Any = None
    super_pod_size: int = DEFAULT_SUPER_POD_SIZE
    reserve_nodes: int = DEFAULT_RESERVE_NODES


def _non_negative(value: object) -> int:
    number = int(_text(value))
    if number < 0:
        raise ValueError("must not be negative")
    return number


def _super_pod_numbers(config: NpuConfig) -> NpuConfig:
    """Upstream's ``getSizeOfSuperPod`` / ``getReserveNodes`` corrections (except that 0 reserves none)."""
    size = config.super_pod_size if config.super_pod_size > 0 else DEFAULT_SUPER_POD_SIZE
    reserve = config.reserve_nodes
    if reserve >= size:
        reserve = DEFAULT_RESERVE_NODES if size > DEFAULT_RESERVE_NODES else 0
    if (size, reserve) == (config.super_pod_size, config.reserve_nodes):
        return config
    return NpuConfig(**{**config.__dict__, "super_pod_size": size, "reserve_nodes": reserve})


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _lenient(key: str, raw: Mapping[str, Any], parse: Any, default: Any) -> Any:
    if key not in raw:
        return default
    try:
        return parse(raw[key])
    except (TypeError, ValueError) as exc:
        logger.warning(
            "huawei-npu: init-params {}={!r} ignored ({}); using {!r}", key, raw[key], exc, default
        )
        return default


def _grace(value: object) -> int:
    seconds = int(_text(value))
    if not MIN_GRACE_OVER_TIME <= seconds <= MAX_GRACE_OVER_TIME:
        raise ValueError(f"must be in [{MIN_GRACE_OVER_TIME}, {MAX_GRACE_OVER_TIME}]")
    return seconds


def resolve_config(init_params: Mapping[str, Any], parsed: HuaweiNpuArguments) -> NpuConfig:
    """Merge ``init-params`` (lenient, upstream's string rules) with the plugin's own arguments."""
    defaults = NpuConfig()
    base = NpuConfig(
        prefer_previous_node=_lenient(
            PREFER_PREVIOUS_NODE, init_params, lambda v: _text(v) == "true", defaults.prefer_previous_node
        ),
        affinity_cache_ttl=_lenient(
            AFFINITY_CACHE_TTL, init_params, parse_duration, defaults.affinity_cache_ttl
        ),
        prefer_previous_node_bonus=_lenient(
            PREFER_PREVIOUS_NODE_BONUS, init_params, _number, defaults.prefer_previous_node_bonus
        ),
        score_weight=_lenient(SCORE_WEIGHT, init_params, _number, defaults.score_weight),
        grace_over_time=_lenient(GRACE_OVER_TIME, init_params, _grace, defaults.grace_over_time),
        use_cluster_info_manager=_lenient(
            USE_CLUSTER_INFO_MANAGER,
            init_params,
            lambda v: _text(v) == "true",
            defaults.use_cluster_info_manager,
        ),
        self_maintain_available_card=_lenient(
            SELF_MAINTAIN_AVAILABLE_CARD,
            init_params,
            lambda v: _text(v) == "true",
            defaults.self_maintain_available_card,
        ),
        resource_level_config=init_params.get(RESOURCE_LEVEL_CONFIG),
        super_pod_size=_lenient(SUPER_POD_SIZE, init_params, _non_negative, defaults.super_pod_size),
        reserve_nodes=_lenient(RESERVE_NODES, init_params, _non_negative, defaults.reserve_nodes),
    )
    overrides: dict[str, Any] = {}
    for name in NpuConfig.__dataclass_fields__:
        value = getattr(parsed, name)
        if value is not None:
            overrides[name] = value
    if not overrides:
        return _super_pod_numbers(base)
    return _super_pod_numbers(NpuConfig(**{**base.__dict__, **overrides}))
