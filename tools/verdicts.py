"""Grading one submission: the student's code runs in a sandbox, the verdicts here, where it cannot reach.

An assignment notebook is the exercise page with each solution replaced by an answer cell (see
``tools/assignments.py``).  To grade a student's copy:

1. The notebook to run is rebuilt from the released one: every locked cell (set-up, statement,
   checks) as released, every answer cell as the student wrote it, and the student's own extra
   cells where they put them.  A deleted, edited, renamed or re-labelled cell changes nothing; a
   cell that claims to be graded but is not one of the assignment's runs as the student's code.
2. The cells run, in order, in a sandboxed kernel (``tools/sandbox.py``): the student's copy as
   the student ran it, the practice checks included.  The intro and set-up cells also run here,
   in the grader's own namespace.
3. At each graded check cell the grader runs the **full check of the exercise page** in its own
   namespace, with

   - the student's values, read from the kernel through a format that carries only data
     (``tools/wire.py``), and the student's functions as :class:`StudentFunction` stand-ins that
     call into the kernel with the graded cases and read back what they return;
   - every random generator and seed moved by the instructor's secret, per assignment and cell,
     so the graded cases are not the practice ones and one assignment's cases tell nothing of
     another's;
   - the check functions of :mod:`dynlib.course.exercises` from the grader's own copy, recording
     each verdict instead of raising.

   A check passes when every verdict in it passes; the points go to the check cell.  So the
   reference values, the comparison and the hidden cases never exist in the student's process:
   patching a check, a module, IPython or the kernel's helper only changes what the student's
   code returns, which can lose points but never gain them.
4. A function that an exercise asks the student to write *without* some dynlib function is run with
   that function disarmed: its code is swapped for a tripwire, so a call through any name, a copy
   in a default argument or a list included, is caught and costs the check; the answer cell is
   also read for the forbidden name.

A cell that runs too long is interrupted; a kernel that ignores the interrupt, or dies, is
replaced by a fresh one that replays the cells run so far except the culprit.  The whole notebook
has a time limit too.

Usage (``tools/assignments.py grade`` runs this per submission, in a process of its own)::

    python tools/verdicts.py COURSE ASSIGNMENT NOTEBOOK RESULT_DIR
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import hashlib
import hmac
import io
import json
import os
import pathlib
import re
import sys
import time

import nbformat

TOOLS = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(TOOLS))

import wire  # noqa: E402

from dynlib.course.exercises import ExerciseFeedback  # noqa: E402

CELL_TIMEOUT = 60.0  # seconds a cell of the notebook may run
CALL_TIMEOUT = 60.0  # seconds one call of a student's function on a graded case may take
NOTEBOOK_TIMEOUT = 600.0  # seconds for the whole notebook
MAX_RESTARTS = 3
CHECK_NAMES = ("answered", "check_answer", "check_function", "check_property")
OUTPUT_LIMIT = 20_000  # characters of a cell's text output kept in the graded notebook

#: Runs in the student's kernel (after the encoder of tools/wire.py): reads a request the grader
#: wrote, answers it in a file.  It can be tampered with like anything in that process; the grader
#: trusts nothing it writes beyond what tools/wire.py decodes.
KERNEL_HELPER = r'''
import builtins as _builtins, json as _json, os as _os, pickle as _pickle, sys as _sys, types as _types

IO = _os.path.abspath("io")
namespace = None


def _user():
    if namespace is not None:
        return namespace
    from IPython import get_ipython
    return get_ipython().user_ns


def user_function(name):
    return _user()[name]


def _write(n, reply):
    path = _os.path.join(IO, f"{n}.out")
    with open(path + ".part", "w") as handle:
        handle.write(_json.dumps(reply, separators=(",", ":")))
    _os.replace(path + ".part", path)


def _is_function(value):
    sympy = _sys.modules.get("sympy")
    return callable(value) and not isinstance(value, type) and not (sympy and isinstance(value, sympy.Basic))


def fetch(n, names):
    reply, user = {}, _user()
    for name in names:
        if name not in user:
            reply[name] = ["missing"]
        elif _is_function(user[name]):
            reply[name] = ["function"]
        else:
            try:
                reply[name] = _encode(user[name], 0)
            except Exception as exc:
                reply[name] = ["unreadable", str(exc)[:300]]
    _write(n, reply)


_TRIP = """
def {name}(*args, **kwargs):
    import builtins
    builtins._dynlib_forbidden_calls.add({label!r})
    raise RuntimeError("this exercise asks you to do without " + {label!r})
"""


def _arm(forbid):
    """Swap the code of each forbidden function for a tripwire (a copy under any name trips too)."""
    armed = []
    for module, name, label in forbid:
        __import__(module)
        function = getattr(_sys.modules[module], name, None)
        if isinstance(function, _types.FunctionType) and not function.__code__.co_freevars:
            space = {}
            exec(_TRIP.format(name=name, label=label), space)
            armed.append((function, function.__code__))
            function.__code__ = space[name].__code__
    return armed


def call(n):
    with open(_os.path.join(IO, f"{n}.in"), "rb") as handle:
        name, args, kwargs, forbid = _pickle.load(handle)
    used = set()
    _builtins._dynlib_forbidden_calls = used
    armed = []
    try:
        armed = _arm(forbid)
        function = _user()[name]
        result = function(*args, **kwargs)
        try:
            reply = {"result": _encode(result, 0)}
        except Exception as exc:
            reply = {"unreadable": f"{type(result).__name__}: {str(exc)[:300]}"}
    except NotImplementedError as exc:
        reply = {"raised": ["NotImplementedError", str(exc)[:1000]]}
    except Exception as exc:
        reply = {"raised": [type(exc).__name__, str(exc)[:1000]]}
    finally:
        for function, code in armed:
            function.__code__ = code
    if used:
        reply["forbidden"] = sorted(used)
    _write(n, reply)
'''


# ------------------------------------------------------------------ the student's side, seen from here


class FromSubmission(Exception):
    """An exception the student's code raised in the kernel (its class is named after the original)."""


_RAISED = {}


def _raised(name, message):
    """An exception of a class named like the student's (``TypeError``...), marked :class:`FromSubmission`."""
    if name == "NotImplementedError":
        return NotImplementedError(message)
    name = name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,60}", name or "") else "Exception"
    if name not in _RAISED:
        _RAISED[name] = type(name, (FromSubmission,), {"__module__": "builtins"})
    return _RAISED[name](message)


class StudentFunction:
    """A stand-in for a function the student defined: calling it calls the student's, in the kernel."""

    def __init__(self, session, name):
        self._session, self._name = session, name
        self.__name__ = self.__qualname__ = name

    def __call__(self, *args, **kwargs):
        return self._session.call(self._name, args, kwargs)

    def __reduce__(self):  # a student's function passed to another: the kernel's own
        return (_user_function, (self._name,))

    def __repr__(self):
        return f"<your function {self._name}>"


def _user_function(name):  # resolved in the kernel, where the helper module holds the same name
    return sys.modules["_grading"].user_function(name)


_user_function.__module__ = "_grading"


class Forbidden(ExerciseFeedback):
    """The student's function called a function the exercise forbids."""


class Session:
    """The student's kernel as the grader uses it: run cells, read values, call functions.

    ``kernel`` is a started :class:`sandbox.Sandbox` (or :class:`LocalKernel` for trusted code);
    ``restart`` makes a fresh one.  Cells that ran are replayed into a replacement kernel.
    """

    def __init__(self, start_kernel, cell_timeout=CELL_TIMEOUT, call_timeout=CALL_TIMEOUT):
        self.start_kernel = start_kernel
        self.cell_timeout, self.call_timeout = cell_timeout, call_timeout
        self.kernel, self.history, self.restarts, self.requests = None, [], 0, 0
        self.forbid, self.forbidden_used = (), set()
        self.deadline = float("inf")

    def _ensure(self):
        if self.kernel is not None and self.kernel.alive():
            return
        if self.kernel is not None:
            self.kernel.stop()
            self.restarts += 1
            if self.restarts > MAX_RESTARTS:
                raise KernelLost(f"the kernel was lost {self.restarts} times; the rest of the notebook was not run")
        self.kernel = self.start_kernel()
        self._helper()
        for source in self.history:
            self.kernel.execute(source, timeout=self._budget(self.cell_timeout))

    def _helper(self):
        text = (TOOLS / "wire.py").read_text() + "\n" + KERNEL_HELPER
        code = ("import sys as _s, types as _t\n_m = _t.ModuleType('_grading')\n"
                f"exec(compile({text!r}, '<grading>', 'exec'), _m.__dict__)\n_s.modules['_grading'] = _m\n"
                "del _s, _t, _m")
        done = self.kernel.execute(code, timeout=60, silent=True)
        if done.status != "ok":
            raise KernelLost(f"the grading helper did not load: {done.error}")

    def _budget(self, limit):
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise OutOfTime("the notebook's time limit was reached")
        return min(limit, left)

    def run(self, source):
        """Run one cell of the notebook; returns the sandbox's Execution."""
        self._ensure()
        done = self.kernel.execute(source, timeout=self._budget(self.cell_timeout))
        if done.status in ("ok", "error"):
            self.history.append(source)
        else:  # stopped or killed: a fresh kernel replays what ran before it, not this cell (an interrupt
            self.kernel.stop()  # that arrives late would otherwise break the next request)
        return done

    def stop(self):
        if self.kernel is not None:
            self.kernel.stop()
            self.kernel = None

    def _ask(self, request, timeout):
        """Run one helper request in the kernel; its JSON reply (or None) and the Execution."""
        n = self.requests = self.requests + 1
        done = self.kernel.execute(request.format(n=n), timeout=self._budget(timeout), silent=True)
        path = pathlib.Path(self.kernel.work) / "io" / f"{n}.out"
        if done.status in ("timeout", "dead"):
            self.kernel.stop()
        if done.status != "ok" or not path.exists():
            return None, done
        if path.stat().st_size > 64 * wire.MAX_TEXT:
            raise wire.WireError("the reply is too large")
        return json.loads(path.read_text()), done

    def fetch(self, names):
        """The student's values by name: data, a :class:`StudentFunction`, or absent."""
        self._ensure()
        reply, done = self._ask("__import__('_grading').fetch({n}, " + repr(list(names)) + ")", 60)
        if reply is None:
            raise KernelLost(f"could not read your values ({done.status}: {': '.join(done.error)})")
        values, decoder = {}, wire.Decoder()
        for name in names:
            item = reply.get(name, ["missing"])
            if item == ["missing"]:
                continue
            if item == ["function"]:
                values[name] = StudentFunction(self, name)
            elif isinstance(item, list) and item[:1] == ["unreadable"]:
                values[name] = Unreadable(name, str(item[1:2])[:300])
            else:
                values[name] = decoder.value(item, 0)
        return values

    def call(self, name, args, kwargs):
        """Call the student's function ``name`` in the kernel; its result, or the exception it raised."""
        import cloudpickle  # in the grading environment (requirements-grading.txt)

        self._ensure()
        forbid = [(f.__module__, f.__name__, _label(f)) for f in self.forbid]
        with open(pathlib.Path(self.kernel.work) / "io" / f"{self.requests + 1}.in", "wb") as handle:
            cloudpickle.dump((name, args, kwargs, forbid), handle)  # a case may hold a function (a rate)
        reply, done = self._ask("__import__('_grading').call({n})", self.call_timeout)
        if reply is None:
            if done.status in ("timeout", "dead"):
                raise CallFailed(f"your `{name}` did not return within {self.call_timeout:.0f} s on a graded case"
                                 if done.error[0] == "TimeoutError" else f"calling your `{name}` stopped the kernel")
            raise CallFailed(f"your `{name}` could not be called ({done.status}: {': '.join(done.error)})")
        used = reply.get("forbidden")
        if used:
            self.forbidden_used.update(str(u) for u in used)
            raise Forbidden(f"`{name}` calls {', '.join(f'`{u}`' for u in used)}, which this exercise asks you to "
                            "do without (a copy of it, kept under another name, counts too)")
        if "raised" in reply:
            kind, message = reply["raised"]
            raise _raised(str(kind), str(message))
        if "unreadable" in reply:
            raise _raised("UnreadableResult", f"returned a value the grader cannot read ({reply['unreadable']})")
        return wire.Decoder().value(reply["result"], 0)


class Unreadable:
    """A student's value the grader could not read (for example an object of the student's own class)."""

    def __init__(self, name, why):
        self.name, self.why = name, why

    def __repr__(self):
        return f"<unreadable: {self.why}>"


class KernelLost(RuntimeError):
    pass


class OutOfTime(RuntimeError):
    pass


class CallFailed(ExerciseFeedback):
    """A call of the student's function did not come back (too slow, or it stopped the kernel)."""


def _label(function):
    return f"dl.{function.__name__}" if function.__module__.startswith("dynlib") else function.__name__


class LocalKernel:
    """Trusted code (the course's own solutions) run in this process, through the same helper and wire.

    Used when a course is written, to prove that the solutions earn every point under the secret.
    """

    def __init__(self):
        import tempfile

        self.root = pathlib.Path(tempfile.mkdtemp(prefix="dynlib-solutions-"))
        self.work = self.root
        (self.root / "io").mkdir()
        self.namespace = {"__name__": "__main__"}
        self._alive = True

    def alive(self):
        return self._alive

    def stop(self):
        import shutil

        self._alive = False
        shutil.rmtree(self.root, ignore_errors=True)

    def execute(self, code, timeout, silent=False):
        from sandbox import Execution

        started, cwd = time.monotonic(), os.getcwd()
        os.chdir(self.root)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(code, "<cell>", "exec"), {} if silent else self.namespace)
            if "_grading" in sys.modules:
                sys.modules["_grading"].namespace = self.namespace
            return Execution("ok", seconds=time.monotonic() - started)
        except Exception as exc:  # a solution that fails is reported by the caller
            return Execution("error", error=(type(exc).__name__, str(exc)), seconds=time.monotonic() - started)
        finally:
            os.chdir(cwd)


# ------------------------------------------------------------------ the hidden cases


class Secret:
    """Seeds of the graded cases: each one derived from the instructor's secret, the assignment and the cell."""

    def __init__(self, secret, assignment):
        self.key = str(secret).encode()
        self.assignment = assignment

    def number(self, *parts):
        text = "|".join([self.assignment, *map(str, parts)])
        return int.from_bytes(hmac.new(self.key, text.encode(), hashlib.sha256).digest()[:8], "big")


_SEEDED = {"default_rng": (0, "seed"), "random_tree": (1, "rng")}


def hidden_source(source):
    """A check cell with every ``default_rng(seed)`` and ``random_tree(n, seed)`` seed routed through
    ``__hidden_seed__``, which moves it by the secret (a generator passed as the seed is already hidden)."""
    tree = ast.parse(source)
    counter = 0

    class Seeds(ast.NodeTransformer):
        def visit_Call(self, node):
            nonlocal counter
            self.generic_visit(node)
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            if name in _SEEDED:
                position, keyword = _SEEDED[name]
                counter += 1
                wrap = lambda arg: ast.Call(ast.Name("__hidden_seed__", ast.Load()),  # noqa: E731
                                            [arg, ast.Constant(counter)], [])
                if len(node.args) > position:
                    node.args[position] = wrap(node.args[position])
                for item in node.keywords:
                    if item.arg == keyword:
                        item.value = wrap(item.value)
                if name == "default_rng" and not node.args and not node.keywords:
                    node.args = [wrap(ast.Constant(None))]
            return node

    return ast.unparse(ast.fix_missing_locations(Seeds().visit(tree)))


# ------------------------------------------------------------------ the checks, run here


class Verdicts:
    """What the check functions said in one check cell."""

    def __init__(self):
        self.lines, self.failed = [], False

    def passed(self, text):
        if text.strip():
            self.lines.append(text.strip())

    def fail(self, text):
        self.failed = True
        self.lines.append("✗ " + text.strip())


class StopCheck(Exception):
    pass


def check_functions(session, verdicts):
    """The grader's versions of the check functions: the library's own, recording instead of raising."""
    from dynlib.course import exercises as library

    def recorded(function, *args, **kwargs):
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                function(*args, **kwargs)
        except library.ExerciseFeedback as exc:
            verdicts.fail(str(exc))
            return False
        verdicts.passed(out.getvalue())
        return True

    def answered(**answers):
        if not recorded(library.answered, **answers):
            raise StopCheck

    def check_answer(got, expected, name, rtol=1e-8, hint=None):
        recorded(library.check_answer, got, expected, name, rtol=rtol, hint=hint)

    def check_property(holds, claim, detail="", hint=None):
        recorded(library.check_property, holds, claim, detail=detail, hint=hint)

    def check_function(candidate, reference, cases, name=None, rtol=1e-8, hint=None, forbid=()):
        session.forbid = tuple(f for f in forbid if callable(f))
        try:
            recorded(library.check_function, candidate, reference, cases, name=name, rtol=rtol, hint=hint)
        except Forbidden as exc:
            verdicts.fail(str(exc))
        finally:
            session.forbid = ()

    return dict(answered=answered, check_answer=check_answer, check_property=check_property,
                check_function=check_function)


def forbidden_calls(source, answers):
    """``[(functions, forbidden)]`` for each ``check_function(candidate, ..., forbid=(...))`` of a check cell:
    the student's functions the candidate calls (answer names in it) and the forbidden attribute names."""
    found = []
    for node in ast.walk(ast.parse(source)):
        name = getattr(node.func, "id", getattr(node.func, "attr", None)) if isinstance(node, ast.Call) else None
        forbid = next((k.value for k in getattr(node, "keywords", []) if k.arg == "forbid"), None)
        if name == "check_function" and node.args and isinstance(forbid, (ast.Tuple, ast.List)):
            functions = {n.id for n in ast.walk(node.args[0]) if isinstance(n, ast.Name)} & set(answers)
            names = {e.attr if isinstance(e, ast.Attribute) else getattr(e, "id", "") for e in forbid.elts}
            found.append((functions, names - {""}))
    return found


def python_of(source):
    """A cell's Python text with IPython's syntax (magics, ``!`` commands) turned into calls."""
    from IPython.core.inputtransformer2 import TransformerManager

    return TransformerManager().transform_cell(source)


def mentions(source, names, within=None):
    """Which of ``names`` a student's cell uses as a name or an attribute (``crba``, ``dl.crba``); with
    ``within``, only inside the definitions of those functions (their defaults and decorators included)."""
    try:
        tree = ast.parse(python_of(source))
    except SyntaxError:
        return set()
    if within is not None:
        defs = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name in within]
        tree = ast.Module(body=defs, type_ignores=[])
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    used |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    used |= {a.name.split(".")[-1] for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
             for a in n.names}
    return used & set(names)


#: What a student's cell may use to reach around the rules: listed for the instructor to read, not scored.
REVIEW = {"__code__", "__globals__", "__builtins__", "__spec__", "__loader__", "__import__", "__subclasses__",
          "globals", "vars", "eval", "exec", "compile", "importlib", "modules", "builtins", "ctypes", "gc",
          "inspect", "get_ipython", "input_transformers_post", "input_transformers_cleanup", "settrace",
          "setprofile", "subprocess", "system", "fork", "signal", "atexit", "_grading", "setattr", "delattr",
          "threading", "multiprocessing", "socket"}


def review_flags(source):
    try:
        tree = ast.parse(python_of(source))
    except SyntaxError:
        return ["a cell that is not valid Python"]
    found = mentions(source, REVIEW)
    found |= {"getattr with a computed name" for n in ast.walk(tree) if isinstance(n, ast.Call)
              and getattr(n.func, "id", None) == "getattr" and len(n.args) > 1
              and not isinstance(n.args[1], ast.Constant)}
    return sorted(found)


class Grader:
    """Runs the hidden checks of one assignment against one student's kernel."""

    def __init__(self, spec, secret, session):
        self.spec, self.session = spec, session
        self.secret = Secret(secret, spec["assignment"])
        self.namespace = {"__name__": "__main__"}
        os.environ.setdefault("MPLBACKEND", "Agg")

    def run_trusted(self, source):
        """An intro or set-up cell in the grader's namespace (the course's own code); None, or why it failed
        (a set-up that reads an earlier answer of the student's can fail on a wrong one)."""
        import matplotlib.pyplot as plt

        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(source, "<set-up>", "exec"), self.namespace)
        except Exception as exc:  # the checks that need what it defines fail in their turn
            return f"a set-up cell stopped with {type(exc).__name__}: {str(exc)[:200]}"
        finally:
            plt.close("all")

    def check(self, grade_id, answer_sources):
        """Run the hidden check of ``grade_id``; a :class:`Verdicts`."""
        import numpy as np

        item = self.spec["checks"][grade_id]
        verdicts = Verdicts()
        space = self.namespace
        try:
            values = self.session.fetch(self.spec["answers"][item["exercise"]])
        except (KernelLost, OutOfTime, wire.WireError) as exc:
            verdicts.fail(str(exc))
            return verdicts
        for name, value in values.items():
            if isinstance(value, Unreadable):
                verdicts.fail(f"`{name}` is a value the grader cannot read ({value.why})")
                return verdicts
        used = {u for functions, forbidden in forbidden_calls(item["source"], values)
                for s in answer_sources for u in mentions(s, forbidden, within=functions)}
        if used:
            verdicts.fail(f"your function uses {', '.join(f'`dl.{u}`' for u in sorted(used))}, which this "
                          "exercise asks you to do without")
            return verdicts
        generators = {k: v for k, v in space.items() if isinstance(v, np.random.Generator)}
        saved = {**generators, **{k: space[k] for k in CHECK_NAMES if k in space}}
        counter = iter(range(10**9))
        space.update({k: np.random.default_rng(self.secret.number(grade_id, k)) for k in generators})
        space.update(values)
        space.update(check_functions(self.session, verdicts))
        space["__hidden_seed__"] = lambda seed, site: seed if isinstance(seed, np.random.Generator) else \
            self.secret.number(grade_id, site, next(counter), repr(seed)) % 2**32
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(hidden_source(item["source"]), f"<check {grade_id}>", "exec"), space)
        except StopCheck:
            pass
        except (Forbidden, CallFailed, KernelLost, OutOfTime, wire.WireError) as exc:
            verdicts.fail(str(exc))
        except NotImplementedError:
            if not any("not written yet" in line for line in verdicts.lines):
                verdicts.fail("an answer is not written yet: replace `raise NotImplementedError` with your code")
            verdicts.failed = True
        except FromSubmission as exc:
            verdicts.fail(f"your code raised {type(exc).__name__}: {exc}")
        except Exception as exc:  # the check could not go on with the answers given
            verdicts.fail(f"the check stopped with {type(exc).__name__} on your answer: {str(exc)[:300]}")
        finally:
            space.update(saved)
            space.pop("__hidden_seed__", None)
            import matplotlib.pyplot as plt

            plt.close("all")
        return verdicts


# ------------------------------------------------------------------ one notebook


def _meta(cell):
    return cell.metadata.get("nbgrader", {})


def rebuild(release, submitted):
    """The notebook to run: the released cells with the student's answers and own cells in place.

    Returns ``(notebook, notes)``; ``notes`` say what was restored or ignored.
    """
    known = {_meta(c)["grade_id"]: c for c in release.cells if _meta(c).get("grade_id")}
    theirs, own, notes, seen = {}, {}, [], set()
    anchor = None
    for cell in submitted.cells:
        grade_id = _meta(cell).get("grade_id")
        if grade_id in known and grade_id not in seen and cell.cell_type == known[grade_id].cell_type:
            seen.add(grade_id)
            theirs[grade_id] = cell
            anchor = grade_id
            continue
        if grade_id and grade_id not in known:
            notes.append(f"a cell marked as graded ({grade_id}) is not part of the assignment: run as your own code")
        elif grade_id:
            notes.append(f"a second or retyped copy of cell {grade_id}: run as your own code")
        plain = copy.deepcopy(cell)
        plain.metadata.pop("nbgrader", None)
        own.setdefault(anchor, []).append(plain)
    cells = list(own.get(None, []))
    for cell in release.cells:
        grade_id = _meta(cell).get("grade_id")
        out = copy.deepcopy(cell)
        if grade_id and _meta(cell).get("solution") and grade_id in theirs:
            out.source = theirs[grade_id].source
        elif grade_id and grade_id not in theirs:
            notes.append(f"cell {grade_id} was missing or changed its type: the released one was used")
        cells.append(out)
        cells += own.get(grade_id, [])
    for cell in cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    rebuilt = nbformat.v4.new_notebook(cells=cells, metadata=copy.deepcopy(release.metadata))
    return rebuilt, notes


def _trimmed(outputs):
    kept = []
    for output in outputs:
        if output.get("output_type") == "stream" and len(output["text"]) > OUTPUT_LIMIT:
            output["text"] = output["text"][:OUTPUT_LIMIT] + "\n[output cut]\n"
        if output.get("output_type") == "error":  # the student's own error, kept short and never graded
            output = nbformat.v4.new_output("stream", name="stdout",
                                            text=f"{output['ename']}: {output['evalue'][:2000]}\n")
        if output.get("output_type") == "stream" and output.get("name") == "stderr":  # nbgrader reads it as a failure
            output["name"] = "stdout"
        if "data" in output:  # no HTML or scripts of the student's in the pages the grader writes
            output["data"] = {k: v for k, v in output["data"].items() if k in ("text/plain", "image/png")}
        kept.append(output)
    return kept


def grade_notebook(spec, secret, release, submitted, session, notebook_timeout=NOTEBOOK_TIMEOUT,
                   run_practice_checks=True):
    """Grade one notebook; returns ``(graded notebook, result)``.

    The graded notebook is the rebuilt one with outputs: each check cell's output is its verdicts
    (an error output when it failed, which nbgrader scores 0), so ``nbgrader autograde`` without
    execution reads the points from it.
    """
    started = time.monotonic()
    session.deadline = started + notebook_timeout
    nb, notes = rebuild(release, submitted)
    grader = Grader(spec, secret, session)
    result = {"checks": {}, "notes": notes, "review": [], "cells_lost": []}
    exercise_sources, review, exercise = {}, set(), None
    out_of_time = None
    for cell in nb.cells:
        grade_id = _meta(cell).get("grade_id")
        exercise = spec["exercise_of"].get(grade_id, exercise) if grade_id else exercise
        if cell.cell_type != "code":
            continue
        role = spec["roles"].get(grade_id, "own") if grade_id else "own"
        if role == "check":
            if out_of_time is None and run_practice_checks:
                try:
                    session.run(cell.source)
                except (KernelLost, OutOfTime) as exc:
                    out_of_time = str(exc)
            verdicts = Verdicts()
            if out_of_time is not None:
                verdicts.fail(out_of_time)
            else:
                verdicts = grader.check(grade_id, exercise_sources.get(exercise, []))
            points = float(_meta(cell)["points"])
            result["checks"][grade_id] = {"exercise": exercise, "max": points,
                                          "score": 0.0 if verdicts.failed else points, "lines": verdicts.lines}
            cell.outputs = [_verdict_output(verdicts, points)]
            continue
        if role in ("intro", "setup"):
            problem = grader.run_trusted(cell.source)
            result["notes"] += [problem] if problem else []
        else:
            review |= set(review_flags(cell.source))
            exercise_sources.setdefault(exercise, []).append(cell.source)
        if out_of_time is not None:
            continue
        try:
            done = session.run(cell.source)
        except (KernelLost, OutOfTime) as exc:
            out_of_time = str(exc)
            result["cells_lost"].append(grade_id or "your own cell")
            continue
        cell.outputs = _trimmed(done.outputs)
        if done.status in ("timeout", "dead"):
            result["cells_lost"].append(grade_id or "your own cell")
            cell.outputs.append(nbformat.v4.new_output("stream", name="stdout", text=f"[{done.error[1]}]\n"))
    result["review"] = sorted(review)
    result["seconds"] = round(time.monotonic() - started, 1)
    result["restarts"] = session.restarts
    if out_of_time:
        result["notes"].append(out_of_time)
    return nb, result


def _verdict_output(verdicts, points):
    """A check cell's output: its verdicts, as an error (which nbgrader scores 0) when one failed."""
    if not verdicts.failed:
        return nbformat.v4.new_output("stream", name="stdout", text="\n".join(verdicts.lines) + "\n")
    return nbformat.v4.new_output("error", ename="Not yet", evalue=f"0 of {points:g} points",
                                  traceback=[f"0 of {points:g} points for this check:", *verdicts.lines])


def main(argv=None):
    parser = argparse.ArgumentParser(description="grade one submitted notebook (run by tools/assignments.py)")
    parser.add_argument("course", type=pathlib.Path)
    parser.add_argument("assignment")
    parser.add_argument("notebook", type=pathlib.Path)
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--notebook-timeout", type=float, default=NOTEBOOK_TIMEOUT)
    parser.add_argument("--cell-timeout", type=float, default=CELL_TIMEOUT)
    args = parser.parse_args(argv)
    import sandbox

    instructor = args.course / "instructor"
    spec = json.loads((instructor / f"{args.assignment}.json").read_text())
    secret = json.loads((instructor / "secret.json").read_text())["secret"]
    release = nbformat.read(args.course / "release" / args.assignment / spec["notebook"], as_version=4)
    submitted = nbformat.read(args.notebook, as_version=4)
    cache = os.environ.get("DYNLIB_KERNEL_CACHE") or args.course / "kernel-cache"
    session = Session(lambda: sandbox.Sandbox(cache=cache).start(), cell_timeout=args.cell_timeout,
                      call_timeout=args.cell_timeout)
    try:
        nb, result = grade_notebook(spec, secret, release, submitted, session, args.notebook_timeout)
    finally:
        session.stop()
    args.out.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, args.out / spec["notebook"])
    (args.out / "result.json").write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    sys.exit(main())
