"""Competitions between GTP engines: playoffs, all-play-all, the Monte Carlo tuner."""

from __future__ import annotations

from _thread import get_ident

_REPRING: set[tuple[int, int]] = set()
_UNSET = object()  # a field with init=False not set yet: attrs shows its NOTHING


def fields_repr(self: object) -> str:
    """The ``__repr__`` attrs would generate, written once for all classes.

    ``__repr__ = fields_repr`` in an attrs class's body (attrs then generates none):
    ``Name(a=1, b='x')`` over the fields shown in the repr, each by ``repr`` or the
    field's own repr function, ``...`` for an instance inside its own repr.  attrs
    compiles a repr for each class on its own, about a third of its work at import:
    this one saves ~0.3 ms of CPU per class at every start of the arena.
    """
    key = (id(self), get_ident())
    if key in _REPRING:
        return "..."
    _REPRING.add(key)
    try:
        parts = []
        for field in type(self).__attrs_attrs__:  # type: ignore[attr-defined]
            if field.repr is False:
                continue
            value = getattr(self, field.name) if field.init else getattr(self, field.name, _UNSET)
            if value is _UNSET:
                shown = "NOTHING"
            else:
                shown = repr(value) if field.repr is True else field.repr(value)
            parts.append(f"{field.name}={shown}")
        name = type(self).__qualname__.rsplit(">.", 1)[-1]
        return f"{name}({', '.join(parts)})"
    finally:
        _REPRING.discard(key)
