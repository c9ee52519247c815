"""The base of small immutable value classes read in hot loops: the scanner's rules, profiles and prefilter hints (and
a rendered ratio, whose field ``count`` rules out a NamedTuple).

Why neither a frozen dataclass nor a ``typing.NamedTuple`` (issue 16, speed): creating a dataclass compiles its
generated methods with ``exec``, about half a millisecond per class at every start of ``verify``; and on CPython
3.11 reading a ``NamedTuple`` field goes through a descriptor, about 1.8 times as slow as reading a slot, while
these classes are read in the scanner's inner loops (each rule's trigger, gate and window per text, the prefilter's
hints per string; measured: the prefilter 7% and the rules 6% slower as NamedTuples). A class with ``__slots__``
costs neither.
"""

from __future__ import annotations

from typing import Any, TypeVar

_F = TypeVar("_F", bound="Frozen")


class Frozen:
    """An immutable value whose fields are the subclass's ``__slots__``, in that order; the subclass's ``__init__``
    takes them under the same names and in the same order and writes them with ``object.__setattr__``.

    What the frozen dataclasses these replace did, kept: assigning or deleting an attribute raises
    ``AttributeError``; two instances are equal (and hash alike) when they are of the same class and every field is
    equal; the repr names every field; instances pickle and copy. ``_replace(**changes)`` is a copy with some fields
    changed (as ``dataclasses.replace`` and ``NamedTuple._replace`` make), a new object even with no change."""

    __slots__: tuple[str, ...] = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def _replace(self: _F, **changes: Any) -> _F:
        """A copy of this value with the fields named in ``changes`` set to them; ``TypeError`` for a name that is
        not a field (as ``dataclasses.replace``)."""
        unknown = sorted(set(changes) - set(self.__slots__))
        if unknown:
            raise TypeError(f"{type(self).__qualname__} has no field {unknown[0]!r}")
        return type(self)(**{name: changes.get(name, getattr(self, name)) for name in self.__slots__})

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__qualname__}({fields})"

    def __reduce__(self) -> tuple[type[Frozen], tuple[Any, ...]]:
        # (the default would restore the slots through the refused ``__setattr__``)
        return type(self), self._values()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}")
