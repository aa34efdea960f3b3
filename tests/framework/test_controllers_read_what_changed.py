"""Between cycles the cache's controllers look only at what was written since they last looked
(issue 13): the PodGroup controller at the pods written since (``Journal.recent``), the garbage
collector and the ReplicaSet controller's count of its pods through an index of each journal's
objects by controlling owner (``ControlledIndex``).
A cache that does so ends every step with exactly the objects, in exactly the order, and the
diagnostics of a twin that looks at everything every time.
"""

from __future__ import annotations

from typing import Any

import pytest
from fumarole.framework.cache import ClusterCache
from fumarole.framework.cache.admission import Admission, PriorityClasses
from fumarole.framework.cache.builders import build_pod, build_pod_group, build_queue
from fumarole.framework.cache.codec import DELETE_ANNOTATION, Document, LoadedFile
from fumarole.framework.cache.controllers import ControlledIndex, ControllerContext
from fumarole.framework.cache.journal import Journal
from fumarole.framework.cache.objects import KubeObject, ReplicaSet
from fumarole.framework.diagnostics import Diagnostics
from fumarole.framework.settings import Settings
from hypothesis import given, settings
from hypothesis import strategies as st

NS = "ns"
NAMES = [f"p{number}" for number in range(6)]


def owner(kind: str, name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": kind, "name": name, "uid": f"{NS}-{name}", "controller": True}


OWNER_KINDS = {"g:": "PodGroup", "rs:": "ReplicaSet"}


def pod(name: str, group: str | None, owned_by: str | None, creation: int) -> KubeObject:
    """A pod, in a group or not (the PodGroup controller then makes it one), controlled by another pod,
    a PodGroup (``g:<name>``), a ReplicaSet (``rs:<name>``) or nothing."""
    ref = None
    if owned_by is not None:
        prefix, _, name_of_owner = owned_by.rpartition(":")
        ref = owner(OWNER_KINDS[f"{prefix}:"], name_of_owner) if prefix else owner("Pod", owned_by)
    return build_pod(NS, name, group=group, owner=ref, scheduler_name="volcano", creation=float(creation))


def replica_set(name: str, replicas: int) -> KubeObject:
    """A ReplicaSet whose controller makes pods until ``replicas`` of its pods are active."""
    return ReplicaSet.model_validate(
        {
            "apiVersion": "apps/v1",
            "kind": "ReplicaSet",
            "metadata": {"namespace": NS, "name": name, "uid": f"{NS}-{name}"},
            "spec": {
                "replicas": replicas,
                "template": {"spec": {"schedulerName": "volcano", "containers": [{"name": "main"}]}},
            },
        }
    )


POD = st.builds(
    pod,
    st.sampled_from(NAMES),
    st.sampled_from([None, "g1", "g2"]),
    st.sampled_from([None, *NAMES, "g:g1", "rs:r1", "rs:r2"]),
    st.integers(0, 3),
)
STEP = st.one_of(
    st.tuples(st.just("apply"), st.lists(POD, max_size=3)),
    st.tuples(st.just("delete file"), st.sampled_from([*NAMES, "g1", "g2", "r1"])),
    st.tuples(st.just("put"), POD),
    st.tuples(st.just("delete"), st.sampled_from(NAMES)),
    st.tuples(st.just("reconcile"), st.none()),
    st.tuples(
        st.just("apply"), st.lists(st.builds(replica_set, st.sampled_from(["r1", "r2"]), st.integers(0, 3)))
    ),
)


def play(cache: ClusterCache, step: tuple[str, Any]) -> None:
    verb, what = step
    if verb == "apply":
        cache.apply_objects(what)
    elif verb == "delete file":
        if what.startswith("r"):
            target = replica_set(what, 0)
        else:
            target = build_pod_group(NS, what) if what.startswith("g") else build_pod(NS, what)
        target.metadata.annotations[DELETE_ANNOTATION] = "true"
        cache.apply_files([LoadedFile("changes.yaml", [Document(target, "changes.yaml", delete=True)])])
    elif verb == "put":
        cache.put(what)
    elif verb == "delete":
        cache.delete("Pod", f"{NS}/{what}")
    else:
        cache.reconcile()


class LooksAtEverything(ClusterCache):
    """The twin: its controllers look at every pod and its garbage collector at every object, every
    time (none of the shortcuts under test is taken)."""

    def _unseen_pods(self) -> None:
        return None

    def _nothing_to_reconcile(self) -> bool:
        return False

    def _controlled_indexes(self) -> dict[str, ControlledIndex]:
        return {}


def state(cache: ClusterCache) -> list[Any]:
    return [
        [(key, obj.model_dump()) for key, obj in store.items()]
        for store in (cache.pods, cache.pod_groups, cache.replica_sets)
    ] + [cache.warnings]


@given(st.lists(STEP, min_size=1, max_size=12))
@settings(max_examples=200, deadline=None)
def test_controllers_that_read_what_changed_end_each_step_as_controllers_that_read_everything(
    steps: list[tuple[str, Any]],
) -> None:
    start = [build_queue("default"), build_pod_group(NS, "g1"), build_pod_group(NS, "g2")]
    kept, twin = ClusterCache(), LooksAtEverything()
    kept.apply_objects(start)
    twin.apply_objects(start)
    for step in steps:
        play(kept, step)
        play(twin, step)
        assert state(kept) == state(twin), step


def test_deleting_a_pod_deletes_the_pods_it_controls_when_the_index_was_built_before() -> None:
    """The index is built by the first deletion and then kept: a pod created later under a deleted
    owner, and a pod whose owner changed, are found (or not) as a full look would find them."""
    cache = ClusterCache()
    cache.apply_objects([build_queue("default"), build_pod_group(NS, "g1")])
    cache.apply_objects([pod("p0", "g1", None, 0), pod("p1", "g1", "p0", 1), pod("p9", "g1", None, 0)])
    play(cache, ("delete file", "p9"))  # builds the index
    cache.put(pod("p2", "g1", "p1", 2))  # controlled by p1, which p0 controls
    cache.put(pod("p3", "g1", "p0", 3))
    cache.put(pod("p3", "g1", None, 3))  # no longer controlled
    play(cache, ("delete file", "p0"))
    assert list(cache.pods) == ["ns/p3"]


def test_an_owner_written_after_the_last_look_is_still_found() -> None:
    """A pod put under an owner, then a run of the controllers (which forgets what was written, after
    the index took it), then the owner's deletion."""
    cache = ClusterCache()
    cache.apply_objects([build_queue("default"), build_pod_group(NS, "g1")])
    cache.apply_objects([pod("p0", "g1", None, 0), pod("p9", "g1", None, 0)])
    play(cache, ("delete file", "p9"))  # builds the index
    cache.put(pod("p1", "g1", "p0", 1))
    cache.reconcile()
    play(cache, ("delete file", "p0"))
    assert list(cache.pods) == []


def _collected(
    main: list[KubeObject], staged_writes: list[KubeObject], deleted: list[str], indexed: bool
) -> tuple[list[str], list[str]]:
    """``collect`` over a staged copy of a pod journal holding ``main``, with ``staged_writes`` applied
    to the copy and the pods ``deleted`` (names) taken out of it: the keys removed, and those left."""
    from fumarole.framework.cache.controllers import collect
    from fumarole.framework.cache.journal import Journal

    journal: Journal[Any] = Journal({obj.key: obj for obj in main})
    index = ControlledIndex()
    index.refresh(journal, None)
    staged = journal.stage()
    for obj in staged_writes:
        staged[obj.key] = obj
    uids = [staged.pop(f"{NS}/{name}").metadata.uid for name in deleted]
    removed = collect({"Pod": staged}, uids, {"Pod": index} if indexed else None)
    return [obj.key for obj in removed], list(staged)


def test_the_index_answers_as_a_look_at_every_object_would() -> None:
    cases = {
        "controlled pods, in store order, transitively": (
            [
                pod("p3", None, "p0", 0),
                pod("p0", None, None, 0),
                pod("p1", None, "p0", 0),
                pod("p2", None, "p1", 0),
            ],
            [],
            ["p0"],
            ["ns/p3", "ns/p1", "ns/p2"],
        ),
        "a pod the same change rewrites without its owner stays": (
            [pod("p0", None, None, 0), pod("p1", None, "p0", 0)],
            [pod("p1", None, None, 0)],
            ["p0"],
            [],
        ),
        "a pod the same change creates under the deleted owner goes": (
            [pod("p0", None, None, 0)],
            [pod("p5", None, "p0", 0)],
            ["p0"],
            ["ns/p5"],
        ),
    }
    for name, (main, writes, deleted, removed) in cases.items():
        with_index = _collected(main, writes, deleted, indexed=True)
        assert with_index == _collected(main, writes, deleted, indexed=False), name
        assert with_index[0] == removed, name


def rs_pod(name: str, rs: str | None) -> KubeObject:
    return pod(name, "g1", f"rs:{rs}" if rs is not None else None, 0)


# each case: the pods of the journal when staged, then what is done to the staged copy before the
# first question, then what is put through the context after it; pod name -> its ReplicaSet (None:
# none; a deletion: "-")
OWNED_CASES = [
    pytest.param({"p0": "r1", "p1": "r1", "p2": "r2"}, {}, {}, id="unwritten-pods-answered-by-the-index"),
    pytest.param({"p0": "r1"}, {"p1": "r1"}, {}, id="a-staged-write-adds-a-pod"),
    pytest.param({"p0": "r1", "p1": "r1"}, {"p1": "r2"}, {}, id="a-staged-write-moves-a-pod-away"),
    pytest.param({"p0": "r2", "p1": "r1"}, {"p0": "r1"}, {}, id="a-staged-write-moves-a-pod-here"),
    pytest.param({"p0": "r1", "p1": "r1"}, {"p1": "-"}, {}, id="a-staged-deletion"),
    pytest.param(
        {"p0": "r1", "p1": None}, {"p1": "r1", "p2": "-"}, {}, id="an-owner-given-and-a-missing-key"
    ),
    pytest.param({"p0": "r1"}, {}, {"p1": "r1"}, id="a-put-after-the-first-question"),
    pytest.param({"p0": "r1", "p1": "r1"}, {}, {"p1": "r2"}, id="a-put-moves-a-pod-away-after-it"),
    pytest.param({"p0": "r1"}, {"p2": "r1"}, {"p2": "r2", "p3": "r1"}, id="a-staged-write-then-a-put"),
]


@pytest.mark.parametrize(("journal_pods", "staged_writes", "puts"), OWNED_CASES)
@pytest.mark.parametrize("kept", [True, False], ids=["kept-index", "whole-store"])
def test_owned_answers_the_pods_a_replicaset_controls_now(
    journal_pods: dict[str, str | None],
    staged_writes: dict[str, str | None],
    puts: dict[str, str],
    kept: bool,
) -> None:
    journal: Journal[Any] = Journal({f"{NS}/{name}": rs_pod(name, rs) for name, rs in journal_pods.items()})
    index = ControlledIndex()
    index.refresh(journal, None)
    staged = journal.stage()
    for name, rs in staged_writes.items():
        if rs == "-":
            staged.pop(f"{NS}/{name}", None)
        else:
            staged[f"{NS}/{name}"] = rs_pod(name, rs)
    ctx = ControllerContext(
        {"Pod": staged, "ReplicaSet": {}},
        Settings(),
        Diagnostics(log=False),
        Admission(PriorityClasses({}), Diagnostics(log=False)),
        owner_indexes=(lambda: {"Pod": index}) if kept else None,
    )

    def owned(rs: str) -> list[str]:
        return sorted(obj.metadata.name for obj in ctx.owned(replica_set(rs, 1), "Pod"))

    def expected(rs: str) -> list[str]:
        return sorted(
            obj.metadata.name
            for obj in staged.values()
            if obj.metadata.controller_owner() is not None
            and obj.metadata.controller_owner().uid == f"{NS}-{rs}"
        )

    assert (owned("r1"), owned("r2")) == (expected("r1"), expected("r2"))
    for name, rs in puts.items():
        ctx.put(rs_pod(name, rs))
    assert (owned("r1"), owned("r2")) == (expected("r1"), expected("r2"))
