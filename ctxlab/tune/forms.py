"""Writing and reading knob values in an agent's own file formats.

`render` writes written values (by knob name) in a `ctxlab.strategies.policy.knobs.Form`; `read` reads them
back from such a text (what is absent is None: the agent's default). JSON, TOML and YAML are read
with real parsers (``json``, ``tomllib``, PyYAML), Python with ``ast`` (keyword arguments of the
form's calls, evaluated as literals: nothing is executed), environment lines and command lines
with ``shlex``. A value that is None is left out.

Raises of `read`: ``CtxlabError`` naming the form and what does not parse.
"""

from __future__ import annotations

import ast
import json
import shlex
import tomllib
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from ctxlab.errors import CtxlabError
from ctxlab.registry import Registry
from ctxlab.strategies.policy.knobs import Form


def render(form: Form, values: Mapping[str, Any]) -> str:
    """The text of `form` carrying `values` (written values by knob name)."""
    present = {name: values.get(name) for name in form.paths if values.get(name) is not None}
    return KINDS.get(form.kind).render(form, present)


def read(form: Form, text: str) -> dict[str, Any]:
    """The written values `text` gives each knob of `form` (None where it is absent).

    Raises:
        CtxlabError: the text does not parse as the form's kind.
    """
    try:
        return KINDS.get(form.kind).read(form, text)
    except (ValueError, SyntaxError, TypeError, tomllib.TOMLDecodeError) as exc:
        raise CtxlabError(f"{form.title}: does not parse as {form.kind} ({exc})") from exc


def _scalar(value: Any, text: bool) -> Any:
    if isinstance(value, tuple):
        return [_scalar(v, text) for v in value]
    return str(value) if text and not isinstance(value, list) else value


def _nest(form: Form, values: Mapping[str, Any]) -> Any:
    doc: Any = {}
    for path, value in [*form.fixed.items(), *((form.paths[name], v) for name, v in values.items())]:
        _put(doc, path, _scalar(value, form.text_values))
    return doc


def _put(doc: Any, path: tuple[Any, ...], value: Any) -> None:
    for key, nxt in zip(path, path[1:], strict=False):
        if isinstance(doc, list):
            while len(doc) <= key:
                doc.append({})
        elif key not in doc:
            doc[key] = [] if isinstance(nxt, int) else {}
        doc = doc[key]
    doc[path[-1]] = value


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        if isinstance(doc, list) and isinstance(key, int) and key < len(doc):
            doc = doc[key]
        elif isinstance(doc, dict) and key in doc:
            doc = doc[key]
        else:
            return None
    return doc


def _from_doc(form: Form, doc: Any) -> dict[str, Any]:
    return {name: _typed(_get(doc, path), form.text_values) for name, path in form.paths.items()}


def _typed(value: Any, text: bool) -> Any:
    """A value read back: lists become tuples; text values are numbers again where they are."""
    if isinstance(value, list):
        return tuple(_typed(v, text) for v in value)
    if text and isinstance(value, str):
        return _number(value)
    return value


def _number(value: str) -> Any:
    try:
        number = json.loads(value)
    except ValueError:
        return value
    return number if isinstance(number, int | float) and not isinstance(number, bool) else value


def _render_json(form: Form, values: Mapping[str, Any]) -> str:
    return json.dumps(_nest(form, values), indent=2, ensure_ascii=False)


def _render_yaml(form: Form, values: Mapping[str, Any]) -> str:
    return "\n".join(f"{form.paths[name][0]}: {json.dumps(_scalar(v, False))}" for name, v in values.items())


def _render_toml(form: Form, values: Mapping[str, Any]) -> str:
    lines = [f"{form.paths[name][0]} = {json.dumps(_scalar(v, False))}" for name, v in values.items()]
    return "\n".join([form.template, *lines] if form.template else lines)


def _render_env(form: Form, values: Mapping[str, Any]) -> str:
    # A variable at the agent's default is unset, not exported as some number.
    return "\n".join(f"export {path[0]}={shlex.quote(str(values[name]))}" if name in values else f"unset {path[0]}"
                     for name, path in form.paths.items())


def _render_cli(form: Form, values: Mapping[str, Any]) -> str:
    args = []
    for name, value in values.items():
        path = form.paths[name]
        args += [path[0], f"{path[1]}={value}"] if len(path) == 2 else [path[0], str(value)]
    return shlex.join([*shlex.split(form.template), *args])


def _render_python(form: Form, values: Mapping[str, Any]) -> str:
    calls: dict[str, list[str]] = {call: [] for call, _ in form.paths.values()}
    for name, value in values.items():
        call, keyword = form.paths[name]
        calls[call].append(f"{keyword}={_py(value)}")
    return form.template.format(**{call: ", ".join(args) for call, args in calls.items()})


def _py(value: Any) -> str:
    """A Python literal; strings in double quotes, floats always with a point (inspect_ai reads
    ``threshold=1`` as one token and ``threshold=1.0`` as the whole window)."""
    if isinstance(value, tuple):
        return "(" + ", ".join(_py(v) for v in value) + ")"
    if isinstance(value, list):
        return "[" + ", ".join(_py(v) for v in value) + "]"
    return json.dumps(value) if isinstance(value, str) else repr(value)


def _read_python(form: Form, text: str) -> dict[str, Any]:
    wanted = {tuple(path) for path in form.paths.values()}
    keywords: dict[tuple[Any, ...], Any] = {}
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            keywords |= {(name, k.arg): ast.literal_eval(k.value) for k in node.keywords if (name, k.arg) in wanted}
    return {name: _typed(keywords.get(tuple(path)), False) for name, path in form.paths.items()}


def _read_env(form: Form, text: str) -> dict[str, Any]:
    found: dict[str, str] = {}
    for line in text.splitlines():
        words = shlex.split(line, comments=True)
        for word in words[1:] if words[:1] == ["export"] else words:
            key, sep, value = word.partition("=")
            if sep:
                found[key] = value
    return {name: _number(found[path[0]]) if path[0] in found else None for name, path in form.paths.items()}


def _read_cli(form: Form, text: str) -> dict[str, Any]:
    words = shlex.split(text)
    pairs = dict(zip(words, words[1:], strict=False))
    out: dict[str, Any] = {}
    for name, path in form.paths.items():
        if len(path) == 2:
            options = dict(w.partition("=")[::2] for a, w in zip(words, words[1:], strict=False) if a == path[0])
            out[name] = _number(options[path[1]]) if path[1] in options else None
        else:
            out[name] = _number(pairs[path[0]]) if path[0] in pairs else None
    return out


def _read_yaml(form: Form, text: str) -> dict[str, Any]:
    import yaml  # PyYAML: a dependency of `datasets`, imported only to read YAML

    try:
        return _from_doc(form, yaml.safe_load(text) or {})
    except yaml.YAMLError as exc:
        raise ValueError(str(exc)) from exc


class Kind(NamedTuple):
    """How a form kind is written (`render`) and read back (`read`)."""

    render: Callable[[Form, Mapping[str, Any]], str]
    read: Callable[[Form, str], dict[str, Any]]


KINDS: Registry[Kind] = Registry("snippet form kind")
for _name, _kind in (("json", Kind(_render_json, lambda form, text: _from_doc(form, json.loads(text)))),
                     ("yaml", Kind(_render_yaml, _read_yaml)),
                     ("toml", Kind(_render_toml, lambda form, text: _from_doc(form, tomllib.loads(text)))),
                     ("env", Kind(_render_env, _read_env)), ("cli", Kind(_render_cli, _read_cli)),
                     ("python", Kind(_render_python, _read_python))):
    KINDS.register(_name, _kind)


__all__ = ["KINDS", "read", "render"]
