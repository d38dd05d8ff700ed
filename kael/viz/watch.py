"""Line events of one file's code: ``sys.monitoring`` on Python 3.12+, ``sys.settrace`` before.

``start(filename, on_line, on_leave)`` calls ``on_line(frame, lineno)`` before each line of code
whose ``co_filename`` is ``filename`` runs and ``on_leave(frame)`` when such a frame returns or
unwinds; ``.stop()`` ends it. Code of other files costs one callback per code location under
``sys.monitoring`` (it answers ``DISABLE``) and nothing under ``settrace`` (their frames get no
local tracer).
"""

from __future__ import annotations

import sys

__all__ = ["start"]

_TOOL_NAME = "kael.viz.forward"


class _Monitoring:
    def __init__(self, filename, on_line, on_leave):
        mon = sys.monitoring
        self.mon = mon
        self.tool = next((i for i in (3, 4, 2, 1, 0, 5) if mon.get_tool(i) is None), None)
        if self.tool is None:
            raise RuntimeError("kael.viz.forward: every sys.monitoring tool id is in use")
        mon.use_tool_id(self.tool, _TOOL_NAME)
        disable = mon.DISABLE

        def line(code, lineno):
            if code.co_filename != filename:
                return disable
            on_line(sys._getframe(1), lineno)
            return None

        def leave(code, offset, value):
            if code.co_filename != filename:
                return disable
            on_leave(sys._getframe(1))
            return None

        def unwind(code, offset, exc):  # PY_UNWIND cannot be disabled
            if code.co_filename == filename:
                on_leave(sys._getframe(1))

        events = mon.events
        mon.register_callback(self.tool, events.LINE, line)
        mon.register_callback(self.tool, events.PY_RETURN, leave)
        mon.register_callback(self.tool, events.PY_UNWIND, unwind)
        mon.restart_events()  # code locations an earlier recording disabled
        mon.set_events(self.tool, events.LINE | events.PY_RETURN | events.PY_UNWIND)

    def stop(self):
        mon = self.mon
        mon.set_events(self.tool, 0)
        for event in (mon.events.LINE, mon.events.PY_RETURN, mon.events.PY_UNWIND):
            mon.register_callback(self.tool, event, None)
        mon.free_tool_id(self.tool)


class _Settrace:
    def __init__(self, filename, on_line, on_leave):
        def local(frame, event, arg):
            if event == "line":
                on_line(frame, frame.f_lineno)
            elif event == "return":
                on_leave(frame)
            return local

        def calls(frame, event, arg):
            return local if frame.f_code.co_filename == filename else None

        self.previous = sys.gettrace()
        sys.settrace(calls)

    def stop(self):
        sys.settrace(self.previous)


def start(filename, on_line, on_leave):
    """Watch the lines of ``filename``'s code until ``.stop()``."""
    if hasattr(sys, "monitoring"):
        return _Monitoring(filename, on_line, on_leave)
    return _Settrace(filename, on_line, on_leave)
