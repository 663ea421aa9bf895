"""One small registry for every kind of named, pluggable thing: strategies, counters, summarizers,
gssc gatherers and structurers, agent-log formats.

    STRATEGIES = Registry("strategy", load=_import_builtins)

    @STRATEGIES.register("window_guard")
    @dataclass(frozen=True)
    class WindowGuard: ...

    STRATEGIES.build("window_guard:reserve_tokens=8192")   # parse, check, coerce, construct

An entry is any object; `build` calls it with keyword parameters checked against `parameters`
(dataclass fields or the signature), so an unknown name or parameter is one clear error listing
the valid ones. An entry may be registered lazily as ``"module:attribute"`` to keep heavy imports
(litellm) off the import path until it is used.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Generic, TypeVar

from ctxlab.errors import CtxlabError, UnknownNameError

T = TypeVar("T")


class Registry(Generic[T]):
    """Names mapped to entries of one kind.

    Args:
        kind: what the entries are, in error messages ("strategy", "counter").
        load: called once before the first lookup, to import the modules that register built-ins.
        upgrade: ``(entry, params) -> params``, called by `build` before the parameters are checked,
            so an entry can accept the names of parameters it renamed (specs stored long ago).
    """

    def __init__(self, kind: str, *, load: Callable[[], None] | None = None,
                 upgrade: Callable[[T, dict[str, Any]], dict[str, Any]] | None = None):
        self.kind = kind
        self._entries: dict[str, T | str] = {}
        self._load = load
        self._upgrade = upgrade

    def register(self, name: str, entry: T | str | None = None) -> Any:
        """Register `entry` under `name`; without `entry`, a decorator that registers what it wraps.

        `entry` may be a ``"module:attribute"`` string, imported on first use.
        """
        if entry is not None:
            self._add(name, entry)
            return entry

        def decorate(obj: T) -> T:
            self._add(name, obj)
            return obj

        return decorate

    def unregister(self, name: str) -> None:
        """Forget `name` (for entries registered for one test or one session)."""
        self._entries.pop(name, None)

    def get(self, name: str) -> T:
        """The entry registered as `name`.

        Raises:
            UnknownNameError: no such entry (the message lists the valid names).
        """
        self._ensure_loaded()
        if name not in self._entries:
            raise UnknownNameError(self.kind, name, list(self._entries))
        entry = self._entries[name]
        if isinstance(entry, str):
            module, _, attribute = entry.partition(":")
            entry = self._entries[name] = getattr(importlib.import_module(module), attribute)
        return entry

    def names(self) -> list[str]:
        """Registered names, sorted."""
        self._ensure_loaded()
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        self._ensure_loaded()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def parameters(self, name: str) -> dict[str, Any]:
        """The parameters `build` accepts for `name`, with their defaults (`inspect.Parameter.empty`
        for a required one)."""
        return parameters_of(self.get(name))

    def build(self, spec: str | Mapping[str, Any], **params: Any) -> Any:
        """Construct the entry named by `spec` with checked, coerced parameters.

        Args:
            spec: a name, ``"name:key=value,..."`` or ``{"name", "params"}`` (the stored form).
            params: more parameters; they win over those in `spec`.

        Raises:
            UnknownNameError: an unknown name or parameter.
            CtxlabError: a parameter value of the wrong type, or one the entry rejects.
        """
        name, parsed = parse_spec(spec, self.kind)
        params = {**parsed, **params}
        entry = self.get(name)
        if self._upgrade is not None:
            params = self._upgrade(entry, params)
        defaults = parameters_of(entry)
        for key in params:
            if key not in defaults:
                raise UnknownNameError(f"parameter of {self.kind} {name!r}", key, list(defaults))
        try:
            return entry(**{k: coerce(v, defaults[k], k) for k, v in params.items()})  # type: ignore[operator]
        except (TypeError, ValueError) as exc:
            raise CtxlabError(f"{self.kind} {name!r}: {exc}") from exc

    def _add(self, name: str, entry: T | str) -> None:
        if name in self._entries:
            raise CtxlabError(f"{self.kind} {name!r} is registered twice")
        self._entries[name] = entry

    def _ensure_loaded(self) -> None:
        if self._load is not None:
            load, self._load = self._load, None
            load()


def parameters_of(entry: Any) -> dict[str, Any]:
    """Keyword parameters of a dataclass (its init fields) or a callable (its signature)."""
    if dataclasses.is_dataclass(entry):
        return {f.name: (f.default if f.default is not dataclasses.MISSING
                         else f.default_factory() if f.default_factory is not dataclasses.MISSING
                         else inspect.Parameter.empty)
                for f in dataclasses.fields(entry) if f.init and not f.name.startswith("_")}
    return {p.name: p.default for p in inspect.signature(entry).parameters.values()
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def parse_spec(spec: str | Mapping[str, Any], kind: str = "spec") -> tuple[str, dict[str, Any]]:
    """``"name:key=value,key=value"`` or ``{"name", "params"}`` -> (name, params).

    Values are JSON where they parse (numbers, booleans, lists), else strings.
    """
    if isinstance(spec, Mapping):
        return str(spec.get("name", "")), dict(spec.get("params") or {})
    name, _, rest = spec.partition(":")
    params: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, sep, value = item.partition("=")
        if not sep:
            raise CtxlabError(f"{kind} {spec!r}: expected key=value, got {item!r}")
        try:
            params[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            params[key.strip()] = value.strip()
    return name.strip(), params


def coerce(value: Any, default: Any, key: str) -> Any:
    """Make command-line strings and JSON numbers match the type of the parameter's default."""
    if isinstance(default, bool):
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", "yes", "no"):
            return value.lower() in ("true", "1", "yes")
        if not isinstance(value, bool):
            raise ValueError(f"{key} must be true or false, not {value!r}")
        return value
    if isinstance(default, int | float) and not isinstance(value, bool):
        try:
            return type(default)(value) if isinstance(value, str | int | float) else value
        except ValueError:
            raise ValueError(f"{key} must be a number, not {value!r}") from None
    if isinstance(default, tuple) and isinstance(value, list):
        return tuple(value)
    return value


def lazy_exports(package: str, exports: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports each public name from its module on first use (and
    keeps it), so importing a package stays cheap until a heavy part of it is needed.

    Args:
        package: the package's name, for the error message.
        exports: public name -> the module that defines it.
        namespace: the package's ``globals()``.
    """

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = namespace[name] = getattr(importlib.import_module(module), name)
        return value

    return __getattr__


__all__ = ["Registry", "coerce", "lazy_exports", "parameters_of", "parse_spec"]
