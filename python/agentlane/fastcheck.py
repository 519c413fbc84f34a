"""A small compiler from the bundle's JSON Schema (the keywords it uses) to Python closures: a yes/no check
fast enough for every frame of a stream (jsonschema walks ~250 keyword nodes per canonical frame, a few
milliseconds each frame). It only says whether a value is valid; `schema.validate` asks jsonschema for the
issues when it says no, and tests/test_schema.py proves both give the same verdicts.
"""

from __future__ import annotations

from typing import Any, Callable

from .ecma import ecma_regex, is_date_time

Check = Callable[[Any], bool]
# The bundle's one format; any other is an annotation (draft 2020-12's default), never a refusal.
FORMATS: dict[str, Callable[[Any], bool]] = {"date-time": is_date_time}
_IGNORED = {"description", "title", "$schema", "$id", "$defs", "examples", "default", "$comment"}


def _is_type(value: Any, name: str) -> bool:
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if isinstance(value, bool):
        return False
    if name == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if name == "number":
        return isinstance(value, (int, float))
    raise ValueError(f"unknown type {name}")


def _equal(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but true is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return a == b and type(a) in (int, float, str, type(None)) and type(b) in (int, float, str, type(None))


class Compiler:
    def __init__(self, root: dict) -> None:
        self.root = root
        self.defs: dict[str, Check] = {}

    def ref(self, pointer: str) -> Check:
        if not pointer.startswith("#/$defs/"):
            raise ValueError(f"only local $defs refs are supported: {pointer}")
        name = pointer[len("#/$defs/") :]
        if name not in self.defs:
            self.defs[name] = lambda v, name=name: self.defs[name](v)  # recursion placeholder
            self.defs[name] = self.compile(self.root["$defs"][name])
        return lambda v: self.defs[name](v)

    def _resolved(self, schema: dict) -> dict:
        while "$ref" in schema and schema["$ref"].startswith("#/$defs/"):
            schema = self.root["$defs"][schema["$ref"][len("#/$defs/") :]]
        return schema

    def _discriminator(self, branches: list) -> tuple[str, list] | None:
        """(field, consts) when every branch is an object requiring one string const field."""
        found: list[tuple[str, str]] = []
        for branch in branches:
            b = self._resolved(branch) if isinstance(branch, dict) else {}
            consts = [(k, p["const"]) for k, p in b.get("properties", {}).items()
                      if isinstance(p, dict) and isinstance(p.get("const"), str) and k in b.get("required", [])]
            if not consts:
                return None
            found.append(consts[0] if not found else next(((k, c) for k, c in consts if k == found[0][0]), ("", "")))
        fields = {k for k, _ in found}
        values = [c for _, c in found]
        if len(fields) != 1 or "" in fields or len(set(values)) != len(values):
            return None
        return fields.pop(), values

    def _if_chain(self, parts: list) -> tuple[str, dict] | None:
        """For allOf of `if {K: const c} then S` parts: K and c → S; the other parts' ifs cannot hold."""
        table: dict[str, Check] = {}
        field = None
        for part in parts:
            cond = part.get("if") if isinstance(part, dict) else None
            if not isinstance(cond, dict) or set(part) - {"if", "then"}:
                return None
            props = cond.get("properties", {})
            if len(props) != 1 or set(cond) - {"type", "required", "properties"}:
                return None
            (k, p), = props.items()
            if not isinstance(p, dict) or set(p) != {"const"} or not isinstance(p["const"], str) or cond.get("required") != [k]:
                return None
            if cond.get("type", "object") != "object" or (field is not None and k != field) or p["const"] in table:
                return None
            field = k
            table[p["const"]] = self.compile(part.get("then", True))
        return (field, table) if field is not None else None

    def compile(self, schema: Any) -> Check:
        if schema is True or schema == {}:
            return lambda v: True
        if schema is False:
            return lambda v: False
        checks: list[Check] = []
        for key, arg in schema.items():
            if key in _IGNORED:
                continue
            checks.append(self.keyword(key, arg, schema))
        if len(checks) == 1:
            return checks[0]
        return lambda v: all(c(v) for c in checks)

    def keyword(self, key: str, arg: Any, schema: dict) -> Check:
        if key == "type":
            names = arg if isinstance(arg, list) else [arg]
            return lambda v: any(_is_type(v, n) for n in names)
        if key == "const":
            return lambda v: _equal(v, arg)
        if key == "enum":
            return lambda v: any(_equal(v, x) for x in arg)
        if key == "$ref":
            return self.ref(arg)
        if key == "required":
            return lambda v: not isinstance(v, dict) or all(k in v for k in arg)
        if key == "properties":
            props = {k: self.compile(s) for k, s in arg.items()}
            return lambda v: not isinstance(v, dict) or all(c(v[k]) for k, c in props.items() if k in v)
        if key == "patternProperties":
            pats = [(ecma_regex(p), self.compile(s)) for p, s in arg.items()]
            return lambda v: not isinstance(v, dict) or all(c(x) for k, x in v.items() for p, c in pats if p.search(k))
        if key == "additionalProperties":
            known = set(schema.get("properties", {}))
            pats = [ecma_regex(p) for p in schema.get("patternProperties", {})]
            extra = self.compile(arg)
            return lambda v: not isinstance(v, dict) or all(
                extra(x) for k, x in v.items() if k not in known and not any(p.search(k) for p in pats)
            )
        if key == "items":
            item = self.compile(arg)
            return lambda v: not isinstance(v, list) or all(item(x) for x in v)
        if key in ("minLength", "maxLength"):
            ok = (lambda n: n >= arg) if key == "minLength" else (lambda n: n <= arg)
            return lambda v: not isinstance(v, str) or ok(len(v))
        if key in ("minItems", "maxItems"):
            ok = (lambda n: n >= arg) if key == "minItems" else (lambda n: n <= arg)
            return lambda v: not isinstance(v, list) or ok(len(v))
        if key in ("minimum", "maximum"):
            ok = (lambda n: n >= arg) if key == "minimum" else (lambda n: n <= arg)
            return lambda v: not _is_type(v, "number") or ok(v)
        if key == "pattern":
            rx = ecma_regex(arg)
            return lambda v: not isinstance(v, str) or rx.search(v) is not None
        if key == "format":
            return FORMATS.get(arg, lambda v: True)
        if key == "anyOf":
            subs = [self.compile(s) for s in arg]
            tag = self._discriminator(arg)
            if tag is not None:
                # A union told apart by one const property (kind / type): only the matching branch can pass.
                field, table = tag[0], dict(zip(tag[1], subs))
                return lambda v: (table[v[field]](v) if isinstance(v, dict) and isinstance(v.get(field), str) and v[field] in table
                                  else any(c(v) for c in subs))
            return lambda v: any(c(v) for c in subs)
        if key == "allOf":
            dispatch = self._if_chain(arg)
            if dispatch is not None:
                field, table = dispatch
                return lambda v: not isinstance(v, dict) or not isinstance(v.get(field), str) or v[field] not in table or table[v[field]](v)
            subs = [self.compile(s) for s in arg]
            return lambda v: all(c(v) for c in subs)
        if key == "if":
            cond = self.compile(arg)
            then = self.compile(schema.get("then", True))
            other = self.compile(schema.get("else", True))
            return lambda v: then(v) if cond(v) else other(v)
        if key in ("then", "else"):
            return lambda v: True  # applied by "if"
        raise ValueError(f"keyword {key} is not supported by the fast check")
