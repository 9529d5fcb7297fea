"""What crosses from a student's kernel to the grader: values in a format read without pickle or eval.

The grader (``tools/verdicts.py``) runs a submission's code in a sandboxed kernel and asks it for
the values the student defined and for what the student's functions return on the graded cases.
The kernel encodes them with :func:`encode` (its source is sent into the kernel as text: see
``KERNEL_HELPER`` in ``tools/verdicts.py``), as JSON; the grader decodes them with :func:`decode`,
which builds only

- ``None``, ``...``, booleans, integers, floats, complex numbers and strings;
- numpy arrays and scalars of boolean or numeric dtypes (bytes checked against the shape);
- numpy object arrays, tuples, lists and dicts with string keys, of these;
- sympy expressions and matrices made of the classes in :data:`SYMPY_CLASSES`;

and refuses anything else, anything nested too deep and anything too large, with a
:class:`WireError`.  So a submission can send wrong values, but never code that runs in the grader.
"""

from __future__ import annotations

import base64
import json

import numpy as np

#: numpy dtypes a value may have on the wire (booleans, integers, floats, complex numbers).
DTYPE_KINDS = "biufc"
MAX_DEPTH = 100
MAX_NODES = 1_000_000
MAX_ELEMENTS = 50_000_000
MAX_TEXT = 1_000_000
MAX_INT_DIGITS = 4_000

#: The sympy classes an expression may be made of, by name (atoms are handled on their own).
SYMPY_CLASSES = (
    "Add", "Mul", "Pow", "Tuple", "Derivative", "Piecewise", "ExprCondPair", "Equality", "Unequality", "StrictLessThan",
    "LessThan", "StrictGreaterThan", "GreaterThan",
    "And", "Or", "Not", "sin", "cos", "tan", "cot", "sec", "csc", "asin", "acos", "atan", "acot", "atan2",
    "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "exp", "log", "Abs", "sign", "re", "im", "conjugate",
    "arg", "floor", "ceiling", "Max", "Min", "Heaviside", "DiracDelta", "factorial", "binomial",
)
#: Constants by name.
SYMPY_CONSTANTS = ("pi", "E", "I", "oo", "zoo", "nan", "EulerGamma", "GoldenRatio", "true", "false")


class WireError(ValueError):
    """A value could not be encoded or was refused when decoded."""


# ------------------------------------------------------------------ encoding (runs in the student's kernel)


def encode(value):
    """``value`` as a JSON text, or a :class:`WireError` naming what cannot be sent."""
    return json.dumps(_encode(value, 0), separators=(",", ":"))


def _encode(value, depth):
    if depth > MAX_DEPTH:
        raise WireError("nested too deeply")
    if value is None:
        return ["none"]
    if value is Ellipsis:
        return ["ellipsis"]
    if isinstance(value, np.generic) and value.dtype.kind in DTYPE_KINDS:  # before float: np.float64 is one
        return ["scalar", value.dtype.str, base64.b64encode(value.tobytes()).decode()]
    if isinstance(value, bool):
        return ["bool", value]
    if isinstance(value, int):
        return ["int", str(value)]
    if isinstance(value, float):
        return ["float", repr(float(value))]
    if isinstance(value, complex):
        return ["complex", repr(float(value.real)), repr(float(value.imag))]
    if isinstance(value, str):
        return ["str", value]
    if isinstance(value, np.ndarray):
        if value.dtype.kind in DTYPE_KINDS:
            data = np.ascontiguousarray(value)
            return ["array", data.dtype.str, list(data.shape), base64.b64encode(data.tobytes()).decode()]
        if value.dtype == object:
            return ["objects", list(value.shape), [_encode(item, depth + 1) for item in value.flat]]
        raise WireError(f"a numpy array of dtype {value.dtype}")
    if isinstance(value, tuple):
        return ["tuple", [_encode(item, depth + 1) for item in value]]
    if isinstance(value, list):
        return ["list", [_encode(item, depth + 1) for item in value]]
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise WireError("a dict whose keys are not all strings")
        return ["dict", [[key, _encode(item, depth + 1)] for key, item in value.items()]]
    sympy = _sympy()
    if sympy is not None and isinstance(value, sympy.MatrixBase):
        return ["matrix", value.rows, value.cols, [_encode_sympy(entry, depth + 1) for entry in value]]
    if sympy is not None and isinstance(value, sympy.Basic):
        return ["sympy", _encode_sympy(value, depth + 1)]
    raise WireError(f"a value of type {type(value).__name__}")


def _sympy():
    import sys

    return sys.modules.get("sympy")


def _encode_sympy(expr, depth):
    sympy = _sympy()
    if depth > MAX_DEPTH:
        raise WireError("an expression nested too deeply")
    if isinstance(expr, sympy.Symbol):  # Dummy and Wild are Symbols too: sent as plain symbols
        given = getattr(expr, "_assumptions_orig", None) or expr.assumptions0  # as created (sympy >= 1.12)
        return ["Symbol", expr.name, {k: v for k, v in given.items() if isinstance(v, bool)}]
    if isinstance(expr, sympy.Integer):
        return ["Integer", str(int(expr))]
    if isinstance(expr, sympy.Rational):
        return ["Rational", str(expr.p), str(expr.q)]
    if isinstance(expr, sympy.Float):
        return ["Float", str(expr), expr._prec]
    for name in SYMPY_CONSTANTS:
        if expr == getattr(sympy, name) and type(expr) is type(getattr(sympy, name)):
            return ["const", name]
    if expr == -sympy.oo:
        return ["const", "-oo"]
    if isinstance(expr, sympy.core.function.AppliedUndef):
        return ["undef", type(expr).__name__, [_encode_sympy(a, depth + 1) for a in expr.args]]
    name = type(expr).__name__
    if name not in SYMPY_CLASSES:
        raise WireError(f"a sympy {name}")
    return ["apply", name, [_encode_sympy(a, depth + 1) for a in expr.args]]


# ------------------------------------------------------------------ decoding (runs in the grader)


def decode(text):
    """The value a JSON text from :func:`encode` describes, built from the allowed types only."""
    if not isinstance(text, str) or len(text) > 64 * MAX_TEXT:
        raise WireError("the reply is too long or not text")
    try:
        tree = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise WireError(f"the reply is not valid JSON ({type(exc).__name__})") from None
    return Decoder().value(tree)


class Decoder:
    """Decodes the values of one reply, counting nodes and array elements against the limits."""

    def __init__(self):
        self.nodes = 0
        self.elements = 0

    def _count(self, depth):
        self.nodes += 1
        if self.nodes > MAX_NODES or depth > MAX_DEPTH:
            raise WireError("the value is too large or nested too deeply")

    def value(self, node, depth=0):
        """The value ``node`` (a parsed reply) describes; any malformed part is a :class:`WireError`."""
        try:
            return self._value(node, depth)
        except WireError:
            raise
        except (ArithmeticError, LookupError, TypeError, ValueError, RecursionError) as exc:
            raise WireError(f"malformed value ({type(exc).__name__})") from None

    def _value(self, node, depth):
        self._count(depth)
        if not isinstance(node, list) or not node or not isinstance(node[0], str):
            raise WireError("malformed value")
        tag, args = node[0], node[1:]
        if tag == "none":
            return None
        if tag == "ellipsis":
            return Ellipsis
        if tag == "bool":
            return bool(_exact(args, 1, bool)[0])
        if tag == "int":
            text = _exact(args, 1, str)[0]
            if len(text) > MAX_INT_DIGITS:
                raise WireError("an integer with too many digits")
            return int(text)
        if tag == "float":
            return _float(_exact(args, 1, str)[0])
        if tag == "complex":
            real, imag = _exact(args, 2, str)
            return complex(_float(real), _float(imag))
        if tag == "str":
            text = _exact(args, 1, str)[0]
            if len(text) > MAX_TEXT:
                raise WireError("a string too long")
            return text
        if tag == "scalar":
            dtype, data = _exact(args, 2, str)
            return self._array(dtype, [], data)[()]
        if tag == "array":
            dtype, shape, data = _exact(args, 3, (str, list, str))
            return self._array(dtype, shape, data)
        if tag == "objects":
            shape, items = _exact(args, 2, (list, list))
            size = self._size(shape)
            if len(items) != size:
                raise WireError("an object array whose items do not fill its shape")
            out = np.empty(size, dtype=object)
            for k, item in enumerate(items):
                out[k] = self._value(item, depth + 1)
            return out.reshape(shape)
        if tag in ("tuple", "list"):
            items = [self._value(item, depth + 1) for item in _exact(args, 1, list)[0]]
            return tuple(items) if tag == "tuple" else items
        if tag == "dict":
            pairs = _exact(args, 1, list)[0]
            if not all(isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) for p in pairs):
                raise WireError("malformed dict")
            return {key: self._value(item, depth + 1) for key, item in pairs}
        if tag == "matrix":
            import sympy

            rows, cols, entries = _exact(args, 3, (int, int, list))
            if rows < 0 or cols < 0 or rows * cols != len(entries):
                raise WireError("a matrix whose entries do not fill it")
            return sympy.Matrix(rows, cols, [self.expr(e, depth + 1) for e in entries])
        if tag == "sympy":
            return self.expr(_exact(args, 1, list)[0], depth + 1)
        raise WireError(f"unknown value kind {tag!r}")

    def _size(self, shape):
        if not all(isinstance(n, int) and n >= 0 for n in shape) or len(shape) > 32:
            raise WireError("malformed shape")
        size = int(np.prod(shape, dtype=np.int64)) if shape else 1
        self.elements += size
        if self.elements > MAX_ELEMENTS:
            raise WireError("the arrays are too large")
        return size

    def _array(self, dtype, shape, data):
        try:
            kind = np.dtype(dtype)
        except TypeError:
            raise WireError(f"unknown dtype {dtype!r}") from None
        if kind.kind not in DTYPE_KINDS or kind.fields is not None or kind.subdtype is not None:
            raise WireError(f"dtype {dtype!r} is not allowed")
        size = self._size(shape)
        raw = base64.b64decode(data.encode(), validate=True)
        if len(raw) != size * kind.itemsize:
            raise WireError("array bytes do not match its shape")
        return np.frombuffer(raw, dtype=kind).reshape(shape).copy()

    def expr(self, node, depth):
        import sympy

        self._count(depth)
        if not isinstance(node, list) or not node or not isinstance(node[0], str):
            raise WireError("malformed expression")
        tag, args = node[0], node[1:]
        if tag == "Symbol":
            name, assumptions = _exact(args, 2, (str, dict))
            if len(name) > 200 or not all(isinstance(k, str) and isinstance(v, bool) for k, v in assumptions.items()):
                raise WireError("malformed symbol")
            try:
                return sympy.Symbol(name, **assumptions)
            except Exception:  # inconsistent or unknown assumptions
                raise WireError(f"a symbol with assumptions sympy refuses: {name}") from None
        if tag == "Integer":
            text = _exact(args, 1, str)[0]
            if len(text) > MAX_INT_DIGITS:
                raise WireError("an integer with too many digits")
            return sympy.Integer(int(text))
        if tag == "Rational":
            p, q = _exact(args, 2, str)
            if len(p) > MAX_INT_DIGITS or len(q) > MAX_INT_DIGITS or int(q) == 0:
                raise WireError("malformed rational")
            return sympy.Rational(int(p), int(q))
        if tag == "Float":
            text, precision = _exact(args, 2, (str, int))
            if len(text) > 1000 or not 1 <= precision <= 10_000:
                raise WireError("malformed float")
            return sympy.Float(text, precision=precision)
        if tag == "const":
            name = _exact(args, 1, str)[0]
            if name == "-oo":
                return -sympy.oo
            if name not in SYMPY_CONSTANTS:
                raise WireError(f"unknown constant {name!r}")
            return getattr(sympy, name)
        if tag == "undef":
            name, items = _exact(args, 2, (str, list))
            if len(name) > 200:
                raise WireError("malformed function name")
            return sympy.Function(name)(*[self.expr(a, depth + 1) for a in items])
        if tag == "apply":
            name, items = _exact(args, 2, (str, list))
            if name not in SYMPY_CLASSES:
                raise WireError(f"sympy class {name!r} is not allowed")
            items = [self.expr(a, depth + 1) for a in items]
            try:
                return _sympy_class(name)(*items)
            except Exception as exc:  # arguments the class refuses
                raise WireError(f"a sympy {name} sympy cannot build ({type(exc).__name__})") from None
        raise WireError(f"unknown expression kind {tag!r}")


def _sympy_class(name):
    import sympy
    from sympy.functions.elementary.piecewise import ExprCondPair

    return ExprCondPair if name == "ExprCondPair" else getattr(sympy, name)


def _float(text):
    try:
        return float(text) if len(text) < 40 else float("x")
    except ValueError:
        raise WireError(f"not a number: {text[:40]!r}") from None


def _exact(args, count, kinds):
    kinds = kinds if isinstance(kinds, tuple) else (kinds,) * count
    if len(args) != count or not all(isinstance(a, k) and not (k is int and isinstance(a, bool))
                                     for a, k in zip(args, kinds)):
        raise WireError("malformed value")
    return args
