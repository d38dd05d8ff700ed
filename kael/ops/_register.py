"""One registration per op: which ops are also ``Tensor`` methods, operators or in-place variants.

A family module (``unary.py``, ``reduction.py``, ...) says it once, beside its ops, at its bottom::

    method(exp)                                     # Tensor.exp(self) -> exp(self)
    method(clamp, "clamp", "clip")                  # one function under two names
    method(where, params="condition, other", call="_op(condition, self, other)")
    operator(add, "__add__", "__radd__", "add")     # t + u, 2 + t, t.add(u)

Without ``params`` the method takes the op's parameters after its first (the tensor becomes
``self``); without ``call`` it passes them on as the op declares them. ``call`` is the body's
expression: ``_op`` is the op, other names are the registering module's globals.

Each method is generated as a real ``def`` with that exact parameter list, so
``inspect.signature``, ``help()``, a wrong call's ``TypeError`` (``Tensor.exp() takes 1
positional argument ...``) and the cost of a call are those of the hand-written one-liner it
replaces. Its code points at the registration line, so a traceback through it shows that line.
``install`` (run by ``kael/ops/__init__.py``) puts them on ``Tensor``; it refuses a name
registered twice or one that ``tensor.py`` already defines by hand.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import sys

__all__ = ["method", "operator", "install", "METHODS", "OPS"]

METHODS: dict = {}  # method name -> the generated function
OPS: dict = {}  # method name -> the op it reaches (for the coverage test)

_KINDS = inspect.Parameter


def _params_of(op) -> tuple[str, str, dict]:
    """The op's parameters after the first, as a def's parameter text, the call's argument text
    and the defaults (bound by name so that any default value works)."""
    params = list(inspect.signature(op).parameters.values())[1:]
    decl, args, defaults = [], [], {}
    star = False
    for p in params:
        text = p.name
        if p.default is not p.empty:
            defaults[f"_d_{p.name}"] = p.default
            text += f"=_d_{p.name}"
        if p.kind is _KINDS.VAR_POSITIONAL:
            decl.append("*" + p.name)
            args.append("*" + p.name)
            star = True
        elif p.kind is _KINDS.KEYWORD_ONLY:
            if not star:
                decl.append("*")
                star = True
            decl.append(text)
            args.append(f"{p.name}={p.name}")
        elif p.kind is _KINDS.VAR_KEYWORD:
            decl.append("**" + p.name)
            args.append("**" + p.name)
        else:
            decl.append(text)
            args.append(p.name)
    return ", ".join(decl), ", ".join(args), defaults


def _generate(op, name, params, call, module_globals, filename, lineno):
    if params is None:
        params, args, defaults = _params_of(op)
        call = call or f"_op(self{', ' if args else ''}{args})"
    else:
        defaults = {}
    head = f"self, {params}" if params else "self"
    src = f"def _make({', '.join(['_op', *defaults])}):\n def {name}({head}): return {call}\n return {name}\n"
    tree = ast.parse(src)
    width = len(linecache.getline(filename, lineno).rstrip())
    for node in ast.walk(tree):  # every position is the registration line: a traceback shows it
        if hasattr(node, "lineno"):
            node.lineno = node.end_lineno = lineno
            node.col_offset, node.end_col_offset = 0, width
    scope: dict = {}
    exec(compile(tree, filename, "exec"), module_globals, scope)
    fn = scope["_make"](op, *defaults.values())
    fn.__qualname__ = f"Tensor.{name}"
    fn.__module__ = "kael.tensor"
    fn.__code__ = fn.__code__.replace(co_qualname=f"Tensor.{name}")
    return fn


def method(op, *names, params: str | None = None, call: str | None = None, doc: str | None = None,
           _depth: int = 1):
    """Register ``op`` as the ``Tensor`` method ``names[0]`` (default: the op's name), also bound
    under the other ``names`` (one function, as ``add = __add__`` was). Returns ``op``."""
    caller = sys._getframe(_depth)
    names = names or (op.__name__,)
    fn = _generate(op, names[0], params, call, caller.f_globals, caller.f_code.co_filename, caller.f_lineno)
    fn.__doc__ = doc
    for name in names:
        if name in METHODS:
            raise RuntimeError(f"Tensor.{name} is registered twice (kael/ops/_register.py)")
        METHODS[name] = fn
        OPS[name] = op
    return op


def operator(op, dunder: str, reflected: str | None, *names: str):
    """A binary operator: ``dunder(self, other)`` (also bound as ``names``) calls ``op(self, other)``
    and ``reflected(self, other)`` calls ``op(other, self)``."""
    method(op, dunder, *names, params="other", call="_op(self, other)", _depth=2)
    if reflected:
        method(op, reflected, params="other", call="_op(other, self)", _depth=2)


def install(cls) -> None:
    """Put every registered method on ``cls`` (``Tensor``)."""
    for name, fn in METHODS.items():
        if name in vars(cls):
            raise RuntimeError(f"Tensor.{name} is both written in kael/tensor.py and registered by an op")
        setattr(cls, name, fn)
