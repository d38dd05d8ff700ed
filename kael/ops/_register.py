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
replaces. A traceback through one shows its generated line (``def sum(self, dim=None, ...): return
_op(self, dim, ...)``), kept in ``linecache``.
``install`` (run by ``kael/ops/__init__.py``) puts them on ``Tensor``; it refuses a name
registered twice or one that ``tensor.py`` already defines by hand.
"""

from __future__ import annotations

import inspect
import linecache
import sys

__all__ = ["method", "operator", "install", "METHODS", "OPS"]

METHODS: dict = {}  # method name -> the generated function (once installed)
OPS: dict = {}  # method name -> the op it reaches (for the coverage test)

_KINDS = inspect.Parameter


_LITERALS = (type(None), bool, int, float, str)


def _default_text(name, value, defaults) -> str:
    """A default as the hand-written def had it (``dim=None``), or bound by name when its repr
    is not a literal."""
    if type(value) in _LITERALS and (type(value) is not float or value == value and abs(value) != float("inf")):
        return f"{name}={value!r}"
    defaults[f"_d_{name}"] = value
    return f"{name}=_d_{name}"


def _params_of(op) -> tuple[str, str, dict]:
    """The op's parameters after the first, as a def's parameter text, the call's argument text
    and the defaults that are not literals."""
    params = list(inspect.signature(op).parameters.values())[1:]
    decl, args, defaults = [], [], {}
    star = False
    for p in params:
        text = p.name if p.default is p.empty else _default_text(p.name, p.default, defaults)
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


def _generate(specs, module_globals, filename) -> list:
    """The methods one module registered, compiled together (one compile per family keeps
    ``import kael`` fast, in Pyodide too). Their source goes into ``linecache`` under
    ``<Tensor methods of kael/ops/FAMILY.py>``, so a traceback through one shows its line."""
    sources, bound = [], []
    for i, (op, name, params, call, _) in enumerate(specs):
        defaults = {}
        if params is None:
            params, args, defaults = _params_of(op)
            call = call or f"_op(self{', ' if args else ''}{args})"
        head = f"self, {params}" if params else "self"
        sources.append(f"def _make{i}({', '.join(['_op', *defaults])}):\n"
                       f"    def {name}({head}): return {call}\n    return {name}\n")
        bound.append(tuple(defaults.values()))
    source = "".join(sources)
    family = filename.replace("\\", "/").rsplit("/kael/", 1)[-1]
    pseudo = f"<Tensor methods of kael/{family}>"
    linecache.cache[pseudo] = (len(source), None, source.splitlines(True), pseudo)
    scope: dict = {}
    exec(compile(source, pseudo, "exec"), module_globals, scope)
    made = []
    for i, ((op, name, _, _, _), defaults) in enumerate(zip(specs, bound)):
        fn = scope[f"_make{i}"](op, *defaults)
        fn.__qualname__ = f"Tensor.{name}"
        fn.__module__ = "kael.tensor"
        fn.__code__ = fn.__code__.replace(co_qualname=f"Tensor.{name}")
        made.append(fn)
    return made


_PENDING: list = []  # (names, doc, spec, module globals, filename) until install


def method(op, *names, params: str | None = None, call: str | None = None, doc: str | None = None,
           _depth: int = 1):
    """Register ``op`` as the ``Tensor`` method ``names[0]`` (default: the op's name), also bound
    under the other ``names`` (one function, as ``add = __add__`` was). Returns ``op``."""
    caller = sys._getframe(_depth)
    names = names or (op.__name__,)
    for name in names:
        if name in OPS:
            raise RuntimeError(f"Tensor.{name} is registered twice (kael/ops/_register.py)")
        OPS[name] = op
    spec = (op, names[0], params, call, caller.f_lineno)
    _PENDING.append((names, doc, spec, caller.f_globals, caller.f_code.co_filename))
    return op


def operator(op, dunder: str, reflected: str | None, *names: str):
    """A binary operator: ``dunder(self, other)`` (also bound as ``names``) calls ``op(self, other)``
    and ``reflected(self, other)`` calls ``op(other, self)``."""
    method(op, dunder, *names, params="other", call="_op(self, other)", _depth=2)
    if reflected:
        method(op, reflected, params="other", call="_op(other, self)", _depth=2)


def install(cls) -> None:
    """Generate the registered methods and put them on ``cls`` (``Tensor``)."""
    modules: dict = {}
    for entry in _PENDING:
        modules.setdefault(entry[4], []).append(entry)
    _PENDING.clear()
    for filename, entries in modules.items():
        made = _generate([e[2] for e in entries], entries[0][3], filename)
        for (names, doc, _, _, _), fn in zip(entries, made):
            fn.__doc__ = doc
            for name in names:
                METHODS[name] = fn
    for name, fn in METHODS.items():
        if name in vars(cls) and vars(cls)[name] is not fn:
            raise RuntimeError(f"Tensor.{name} is both written in kael/tensor.py and registered by an op")
        setattr(cls, name, fn)
