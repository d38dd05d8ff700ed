"""Recovery that every worker runs now and then (whichever gets there first does the work):

* jobs of a dead worker (no heartbeat for a lease, ``kill -9`` or a lost machine) go back to
  the queue, through procrastinate's stalled-job query;
* a submission left queued or running with no job waiting or running for it (its API server
  died between the commit and the defer, or the database was cut at that moment) gets a job;
* a job left "doing" for a submission graded over a lease ago is finished: its worker graded it
  while the database was away, and its acknowledgement was lost. The worker lives on, so the
  stalled-job query never sees it, and the job would hold its submission's lock for ever.
"""

from __future__ import annotations

import asyncio
import logging
import random

import procrastinate
from procrastinate.jobs import Status

from server.scaled.jobs import TASK, defer_async

log = logging.getLogger("kael.server")

ORPHANS = """
SELECT s.id FROM submissions s
 WHERE s.status IN ('queued', 'running')
   AND s.created_at < NOW() - make_interval(secs => %(older_than)s)
   AND NOT EXISTS (SELECT 1 FROM procrastinate_jobs j
                    WHERE j.task_name = %(task)s AND j.lock = s.id AND j.status IN ('todo', 'doing'))
 ORDER BY s.seq
 LIMIT 500
"""


DANGLING = """
SELECT j.id, j.lock FROM procrastinate_jobs j JOIN submissions s ON s.id = j.lock
 WHERE j.task_name = %(task)s AND j.status = 'doing'
   AND s.finished_at < NOW() - make_interval(secs => %(older_than)s)
 LIMIT 500
"""


async def finish_dangling(app: procrastinate.App, older_than_s: float) -> int:
    """Finish the jobs of submissions graded ``older_than_s`` ago or more that are still 'doing'.
    A worker still running one (a superseded second run) only fails to acknowledge it later,
    as after a stalled-job retry."""
    rows = await app.connector.execute_query_all_async(DANGLING, older_than=older_than_s, task=TASK)
    finished = 0
    for row in rows:
        try:
            await app.job_manager.finish_job_by_id_async(job_id=row["id"], status=Status.SUCCEEDED, delete_job=True)
        except Exception:  # acknowledged (or finished by another sweep) meanwhile
            continue
        finished += 1
        log.warning("job %s (submission %s): left running after its submission was graded; finished",
                    row["id"], row["lock"])
    return finished


async def retry_stalled(app: procrastinate.App, lease_s: float) -> int:
    retried = 0
    for job in await app.job_manager.get_stalled_jobs(seconds_since_heartbeat=lease_s, task_name=TASK):
        try:
            await app.job_manager.retry_job(job)
        except Exception:  # another worker's sweep retried it first
            continue
        retried += 1
        log.warning("job %s (submission %s): its worker stopped sending heartbeats; queued again",
                    job.id, job.task_kwargs.get("submission_id"))
    return retried


async def requeue_orphans(app: procrastinate.App, older_than_s: float) -> int:
    rows = await app.connector.execute_query_all_async(ORPHANS, older_than=older_than_s, task=TASK)
    requeued = 0
    for row in rows:
        if await defer_async(app, row["id"]):
            requeued += 1
    if requeued:
        log.warning("queued %d submissions that had no grading job", requeued)
    return requeued


async def sweep_forever(app: procrastinate.App, lease_s: float) -> None:
    while True:
        # jittered, so that the workers' sweeps spread out
        await asyncio.sleep(lease_s * random.uniform(0.3, 0.6))
        try:
            await retry_stalled(app, lease_s)
            await requeue_orphans(app, lease_s)
            await finish_dangling(app, lease_s)
        except Exception as exc:  # the database is away: try at the next round
            log.warning("recovery sweep failed: %s", exc)
