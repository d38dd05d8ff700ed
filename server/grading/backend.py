"""The one interface the routes grade through: ``GradingBackend``.

Two implementations: ``server.grading.pool.GradingPool`` (worker threads in this process, one
server) and ``server.scaled.backend.TaskQueue`` (a procrastinate queue on the shared database,
several servers and workers). ``server.grading.service`` picks one at start-up; the routes see
only this.
"""

from __future__ import annotations

from typing import Protocol


class QueueFull(Exception):
    """``reserve`` refused: the queue is full; retry after ``retry_after_s`` seconds."""

    def __init__(self, retry_after_s: float):
        super().__init__("the grading queue is full")
        self.retry_after_s = retry_after_s


class GradingBackend(Protocol):
    def reserve(self) -> None:
        """Hold a place for one submission before it is stored; raises ``QueueFull``."""

    def release(self) -> None:
        """Give back a place ``reserve`` held (the submission was not stored after all)."""

    def enqueue(self, submission_id: str, client: str | None = None) -> None:
        """Grade the stored submission ``submission_id`` (``client``: whose, for fairness)."""

    def stats(self) -> dict:
        """``{"queued": n, "running": n}``."""

    def stop(self) -> None:
        """Stop grading (what is queued stays stored, for the next start)."""
