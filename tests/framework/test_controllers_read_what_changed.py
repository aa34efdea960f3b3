"""Between cycles the cache's controllers look only at what was written since they last looked
(issue 13): the PodGroup controller at the pods written since (``Journal.recent``), the garbage
collector through an index of each journal's objects by controlling owner (``ControlledIndex``).
A cache that does so ends every step with exactly the objects, in exactly the order, and the
diagnostics of a twin that looks at everything every time.
"""

from __future__ import annotations

from typing import Any

from fumarole.framework.cache import ClusterCache
from fumarole.framework.cache.builders import build_pod, build_pod_group, build_queue
from fumarole.framework.cache.codec import DELETE_ANNOTATION, Document, LoadedFile
from fumarole.framework.cache.controllers import ControlledIndex
from fumarole.framework.cache.objects import KubeObject
from hypothesis import given, settings
from hypothesis import strategies as st

NS = "ns"
NAMES = [f"p{number}" for number in range(6)]


def owner(kind: str, name: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": kind, "name": name, "uid": f"{NS}-{name}", "controller": True}


def pod(name: str, group: str | None, owned_by: str | None, creation: int) -> KubeObject:
    """A pod, in a group or not (the PodGroup controller then makes it one), controlled by another pod
    or by a PodGroup (``g:<name>``) or by nothing."""
    ref = None
    if owned_by is not None:
        ref = owner("PodGroup", owned_by[2:]) if owned_by.startswith("g:") else owner("Pod", owned_by)
    return build_pod(NS, name, group=group, owner=ref, scheduler_name="volcano", creation=float(creation))


POD = st.builds(
    pod,
    st.sampled_from(NAMES),
    st.sampled_from([None, "g1", "g2"]),
    st.sampled_from([None, *NAMES, "g:g1"]),
    st.integers(0, 3),
)
STEP = st.one_of(
    st.tuples(st.just("apply"), st.lists(POD, max_size=3)),
    st.tuples(st.just("delete file"), st.sampled_from([*NAMES, "g1", "g2"])),
    st.tuples(st.just("put"), POD),
    st.tuples(st.just("delete"), st.sampled_from(NAMES)),
    st.tuples(st.just("reconcile"), st.none()),
)


def play(cache: ClusterCache, step: tuple[str, Any]) -> None:
    verb, what = step
    if verb == "apply":
        cache.apply_objects(what)
    elif verb == "delete file":
        kind = "PodGroup" if what.startswith("g") else "Pod"
        target = build_pod_group(NS, what) if kind == "PodGroup" else build_pod(NS, what)
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
        [(key, obj.model_dump()) for key, obj in store.items()] for store in (cache.pods, cache.pod_groups)
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
