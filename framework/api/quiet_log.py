"""Where the quiet job copies a cluster cache lent say that they changed.

A ``QuietJobInfo`` is a session's copy of a cached job that nothing has set an attribute of since
the snapshot lent it; the cache lends such a copy again, as it is, to the next session
(``cache.lending``). Rather than look at every copy it lent to find those that changed, the cache
gives each quiet copy its ``QuietLog``, and a copy writes its UID there when it stops being quiet
(an attribute set: ``QuietJobInfo._stop_being_quiet``) or gets its first fit error
(``WatchedFitErrors``). The snapshot reads what was written since the previous one; a session reads
what its own copies wrote since it opened (``Session.stopped_quiet``).

The log is cleared only by its cache, at a snapshot, once the session of the previous snapshot has
given its copies back; a clear starts a new epoch, and a reader whose mark is of an older epoch is
told that it cannot know (``since`` returns None).
"""

from __future__ import annotations


class QuietLog:
    """The UIDs written by the quiet copies one cluster cache lent, in the order written."""

    __slots__ = ("epoch", "uids")

    def __init__(self) -> None:
        self.uids: list[str] = []
        self.epoch = 0

    def note(self, uid: str) -> None:
        self.uids.append(uid)

    def mark(self) -> tuple[int, int]:
        """Where the log is now: what ``since`` reads from."""
        return self.epoch, len(self.uids)

    def since(self, mark: tuple[int, int]) -> list[str] | None:
        """The UIDs written since ``mark`` (repeats possible); None: the log was cleared since."""
        epoch, at = mark
        if epoch != self.epoch:
            return None
        return self.uids[at:]

    def clear(self) -> None:
        self.uids.clear()
        self.epoch += 1
