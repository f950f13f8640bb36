"""Competitions between GTP engines: playoffs, all-play-all, the Monte Carlo tuner."""

from __future__ import annotations

from _thread import get_ident
from collections.abc import Callable
from operator import attrgetter

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


def _compared_fields(cls: type) -> Callable[[object], object]:
    """The values of ``cls``'s fields that take part in ``==`` (attrs's ``eq=True``), in order."""
    names = []
    for field in cls.__attrs_attrs__:  # type: ignore[attr-defined]
        if field.eq_key is not None:
            raise TypeError(f"{cls.__qualname__}.{field.name}: fields_eq takes no eq key")
        if field.eq:
            names.append(field.name)
    getter: Callable[[object], object]
    if len(names) == 1:
        single = attrgetter(names[0])
        getter = lambda instance: (single(instance),)  # noqa: E731
    elif names:
        getter = attrgetter(*names)  # a tuple for two names or more
    else:
        getter = lambda instance: ()  # noqa: E731
    _COMPARED[cls] = getter
    return getter


_COMPARED: dict[type, Callable[[object], object]] = {}


def fields_eq(self: object, other: object) -> bool:
    """The ``__eq__`` attrs would generate, written once for all classes.

    ``__eq__ = fields_eq`` in an attrs class's body (attrs then generates neither
    ``__eq__`` nor ``__ne__``): equal when ``other`` is of the very same class and
    the fields compared by ``==`` (not those with ``eq=False``) are equal in turn.
    A frozen class also sets ``__hash__ = fields_hash`` (a body with its own
    ``__eq__`` and no ``__hash__`` is unhashable, as attrs leaves a mutable class).
    attrs compiles an ``__eq__`` and a ``__hash__`` for each class on its own; this
    saves about 0.1 ms of CPU per class at every start of the arena.
    """
    cls = other.__class__
    if cls is not self.__class__:
        return NotImplemented  # type: ignore[no-any-return]  # (mypy knows it only in a def __eq__)
    values = _COMPARED.get(cls) or _compared_fields(cls)
    return bool(values(self) == values(other))


def fields_hash(self: object) -> int:
    """The ``__hash__`` attrs generates for a frozen class: over the fields ``==`` compares."""
    cls = self.__class__
    values = _COMPARED.get(cls) or _compared_fields(cls)
    return hash((cls, values(self)))
