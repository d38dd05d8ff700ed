"""The pure-Python strided array behind ``PythonBackend``: standard library only."""

from .array import PyArray

__all__ = ["PyArray"]
