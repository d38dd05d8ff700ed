from fastapi import APIRouter, Request

from server.deps import GradingDep, SettingsDep
from server.models import Health
from server.routes.frontend import pyodide_version, wheel_name

router = APIRouter(tags=["health"])


@router.get("/health", response_model=Health)
def read_health(request: Request, settings: SettingsDep, grading: GradingDep):
    """Liveness, how grading runs, the queue, and where Pyodide and the kael wheel are served."""
    stats = grading.pool.stats() if grading.pool else {"queued": 0, "running": 0}
    version = pyodide_version(settings)
    wheel = wheel_name(settings)
    return Health(
        status="ok", grading=grading.mode, grading_detail=grading.detail,
        workers=settings.grading_workers if grading.pool else 0, **stats,
        pyodide_url=f"/pyodide/{version}/" if version else None,
        wheel_url=f"/wheels/{wheel}" if wheel else None,
        frontend_built=(settings.web_dist / "index.html").is_file(),
    )
