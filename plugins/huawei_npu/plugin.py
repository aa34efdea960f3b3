"""``huawei-npu``: Huawei Ascend NPU scheduling (upstream's ``volcano-npu_<version>`` plugin).

Decides where NPU tasks may go and which chips they get, through the card policy chosen for each
job (``dispatch``; policies in ``fumarole.policies.card``), keeps NPU health in view (unhealthy /
sub-healthy nodes and chips, failed ranks) and sends re-created pods back to the node their rank
ran on (the affinity cache, seed 000).

Extension points (flag in parentheses; see ``npu_session`` for what each decides):

* predicate (``enablePredicate``), batch form;
* batch_node_order (``enableNodeOrder``);
* job_valid (no flag);
* job_ready (``enableJobReady``), job_pipelined (``enableJobPipelined``);
* task_order (``enableTaskOrder``), job_order (``enableJobOrder``);
* preemptable (``enablePreemptable``), reclaimable (``enableReclaimable``), unified_evictable (no
  flag): the card-level victim check (``victims``);
* allocate / deallocate event handlers (no flag).

The conf may name the plugin ``huawei-npu`` or upstream's ``volcano-npu_<version>`` (an alias the
default registry knows); the session registers its functions under the name the conf uses, so the
enable flags of that entry apply. State that outlives a session lives in the ``ScheduleHandler``
(``handler``), kept in ``ssn.persistent``.

Spec: upstream ``component/ascend-for-volcano/npu.go`` (``OnSessionOpen``), ``plugin/factory.go``;
shared/reference/ascend-npu-plugin.md §1.1; seed 000 §3.1.

Not registered (upstream does): job_enqueueable (device-list totals; upstream's default
``forceEnqueue`` permits anyway). Registered where upstream does not: the victim filters.
``on_session_close`` writes no PodGroup conditions; it updates the handler's metrics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from fumarole.framework.interface import EventHandler

from .arguments import INIT_PARAMS, HuaweiNpuArguments, NpuConfig, resolve_config
from .handler import HANDLER_KEY, ScheduleHandler
from .policy_index import index_policies
from .victims import NpuVictims

if TYPE_CHECKING:
    from fumarole.framework.registry import Registry
    from fumarole.framework.session import Session

    from .npu_session import NpuSession

PLUGIN_NAME = "huawei-npu"


class HuaweiNpuPlugin:
    name: ClassVar[str] = PLUGIN_NAME
    arguments_model = HuaweiNpuArguments

    def __init__(self, arguments: HuaweiNpuArguments) -> None:
        self.arguments = arguments
        self.session: NpuSession | None = None
        self.handler: ScheduleHandler | None = None

    def on_load(self, registry: Registry) -> None:
        """Check the card policies at load: each meets the contract and declares its own handler."""
        index_policies(registry)

    def config(self, ssn: Session) -> NpuConfig:
        return resolve_config(ssn.configuration(INIT_PARAMS), self.arguments)

    def on_session_open(self, ssn: Session) -> None:
        handler = ssn.persistent(HANDLER_KEY, ScheduleHandler)
        self.handler = handler
        session = handler.open_session(ssn, self.config(ssn))
        self.session = session
        if session is None:
            return
        ssn.batch_predicate.register(session.batch_predicate)
        ssn.batch_node_order.register(session.batch_node_order)
        ssn.job_valid.register(session.job_valid)
        ssn.job_ready.register(session.job_ready)
        ssn.job_pipelined.register(session.job_pipelined)
        ssn.task_order.register(session.task_order)
        ssn.job_order.register(session.job_order)
        victims = NpuVictims(session)
        ssn.preemptable.register(victims.preemptable)
        ssn.reclaimable.register(victims.reclaimable)
        ssn.unified_evictable.register(victims.unified_evictable)
        ssn.add_event_handler(
            EventHandler(allocate_func=session.on_allocate, deallocate_func=session.on_deallocate)
        )

    def on_session_close(self, ssn: Session) -> None:
        if self.handler is not None and self.session is not None:
            self.handler.close_session(ssn)
        self.session = None
