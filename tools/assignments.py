"""nbgrader assignments from the exercise pages, and grading that a class cannot subvert.

Each exercise page (``exercises/NN_*.ipynb``, laid out as ``tools/coursework.py`` describes)
becomes one nbgrader assignment ``NN_*`` whose notebook holds, per exercise:

- the statement and the set-up cells, locked;
- one **autograded answer cell**: each answer the checks use, defined as in the student stubs (a
  function keeps its signature and docstring), with the solution between ``### BEGIN SOLUTION`` and
  ``### END SOLUTION`` (nbgrader replaces it by ``raise NotImplementedError()`` in the release);
- a **manually graded answer cell** (Markdown) when the statement asks a question in words, holding
  the solution's explanation as the model answer;
- the check cells as locked **graded cells**, holding only the *practice* check a student can run:
  every expected value is replaced by its :class:`~dynlib.course.exercises.Fingerprint` (or, for a
  prediction among a few choices, a :class:`~dynlib.course.exercises.Withheld` that checks only its
  form), and the statements that only computed it are dropped.

The graded checks are not in any notebook.  ``instructor/`` (beside ``source/`` and ``release/``,
never handed out) keeps, per assignment, the page's full check cells, and the instructor's secret.
Grading (``tools/verdicts.py``) runs each submission in a sandbox and the full checks in the
grading process, on cases moved by the secret.  When the course is written, the solutions are
graded that way and must earn every point.

Points: an exercise's check cells share ``CHECK_POINTS`` points (in hundredths, so totals are
exact), its words answer is worth ``WORDS_POINTS``; a statement can set its own with a Markdown
comment ``<!-- points: 3 -->`` (checks) or ``<!-- words points: 2 -->``.

Usage (``make assignments``, ``make grade`` and ``make export`` run these in the grading environment)::

    python tools/assignments.py course COURSE [--seed N]      # source/, release/, instructor/
    python tools/assignments.py samples COURSE SUBMISSIONS    # two sample submissions: right, wrong
    python tools/assignments.py grade COURSE SUBMISSIONS      # grade, feedback/, grades.csv
    python tools/assignments.py export COURSE                 # again after grading words answers by hand

``SUBMISSIONS`` holds ``STUDENT/ASSIGNMENT/NOTEBOOK.ipynb``, nbgrader's ``submitted`` layout (with
nbgrader's ``timestamp.txt`` beside the notebook when the collection wrote one).
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import copy
import csv
import hashlib
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from decimal import Decimal
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import coursework  # noqa: E402

CHECK_POINTS = 2
WORDS_POINTS = 1
SCHEMA = 3
POINTS = re.compile(r"<!--\s*points:\s*(\d+(?:\.\d+)?)\s*-->")
WORDS = re.compile(r"<!--\s*words points:\s*(\d+(?:\.\d+)?)\s*-->")
CHECK_NAMES = ("answered", "check_answer", "check_function", "check_property")
DROPPABLE = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.FunctionDef, ast.ClassDef,  # and, without checks inside:
             ast.For, ast.While, ast.If, ast.With)
MUTATORS = {"append", "extend", "insert", "update", "add", "setdefault", "pop", "remove", "clear", "sort",
            "fill", "discard"}  # methods that change the object they are called on
STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@+-]{0,99}")

STUDENT_INTRO = (
    "Fill in each **answer cell**: write the code between the function's docstring and its end, or the "
    "values the exercise names, replacing `raise NotImplementedError()`. Questions in words have a "
    "Markdown cell of their own. Run the check cells below an answer to see whether it is right; they say "
    "what is wrong without giving the answer away (a prediction among a few choices is only checked for "
    "its form). The graded checks run other cases than these."
)


# ------------------------------------------------------------------ source text of the cells


def _call_name(node):
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _expected_args(tree):
    """The ``expected`` argument node of every ``check_answer`` call, in source order."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _call_name(node) == "check_answer":
            arg = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "expected"),
                                                               None)
            if arg is not None:
                found.append(arg)
    return sorted(found, key=lambda n: (n.lineno, n.col_offset))


def _offsets(source):
    starts, total = [], 0
    for line in source.splitlines(keepends=True):
        starts.append(total)
        total += len(line)
    return starts


def _replace(source, edits):
    """``source`` with each ``(node, text)`` replaced (nodes of ``ast.parse(source)``)."""
    starts = _offsets(source)
    spans = [(starts[n.lineno - 1] + len(source.splitlines(True)[n.lineno - 1].encode()[:n.col_offset].decode()),
              starts[n.end_lineno - 1] + len(source.splitlines(True)[n.end_lineno - 1].encode()[:n.end_col_offset]
                                             .decode()), text) for n, text in edits]
    for begin, end, text in sorted(spans, reverse=True):
        source = source[:begin] + text + source[end:]
    return source


def instrumented(source, cell):
    """A check cell whose ``check_answer`` expectations are recorded by ``__expect__(cell, k, value)``."""
    tree = ast.parse(source)
    return _replace(source, [(arg, f"__expect__({cell}, {k}, {ast.get_source_segment(source, arg)})")
                             for k, arg in enumerate(_expected_args(tree))])


def _stored(node):
    """Names a statement binds or changes (``x = ``, ``x[i] = ``, ``x.append(...)``, loop targets, defs)."""
    names = coursework._stored_names(node)  # defs and plain assignments; here also x[i] =, x.attr =, x.append()
    for sub in ast.walk(node):
        if isinstance(sub, (ast.Subscript, ast.Attribute)) and isinstance(sub.ctx, ast.Store):
            base = sub.value
            while isinstance(base, (ast.Subscript, ast.Attribute)):
                base = base.value
            if isinstance(base, ast.Name):
                names.add(base.id)
        elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and \
                isinstance(sub.func.value, ast.Name) and sub.func.attr in MUTATORS:
            names.add(sub.func.value.id)  # cases.append(...)
    return names


def _loaded(node, skip=()):
    return {sub.id for sub in ast.walk(node) if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load)
            and not any(sub is s or any(sub is t for t in ast.walk(s)) for s in skip)}


def _checks_in(node):
    return any(isinstance(sub, ast.Call) and _call_name(sub) in CHECK_NAMES for sub in ast.walk(node))


def _statements(node):
    """Every statement under ``node``, depth first in source order."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.stmt):
            yield child
        yield from _statements(child)


def _prune(body, needed, expected, dropped):
    """Walk ``body`` backwards, dropping the statements the checks do not need (those that only compute
    an expected value); ``needed`` collects the names the kept statements read."""
    for statement in reversed(body):
        skip = [e for e in expected if _inside(e, statement)]
        if isinstance(statement, (ast.For, ast.While, ast.If, ast.With)) and _checks_in(statement):
            inner = set(needed)
            if isinstance(statement, (ast.For, ast.While)):  # a later iteration reads what an earlier one stored
                inner |= _loaded(statement, skip=skip)
            for part in (statement.body, getattr(statement, "orelse", [])):
                _prune(part, inner, expected, dropped)
            needed |= _loaded(statement, skip=skip + [d for d in dropped if _inside(d, statement)])
        elif isinstance(statement, DROPPABLE) and not _checks_in(statement) and not _stored(statement) & needed:
            dropped.append(statement)
        else:  # imports, checks, what they read, and calls made for their effect
            needed |= _loaded(statement, skip=skip)


def student_check(source, fingerprints):
    """The check cell a student sees: expectations replaced by fingerprints, their computation dropped."""
    tree = ast.parse(source)
    expected = _expected_args(tree)
    if len(expected) != len(fingerprints):
        raise ValueError(f"{len(expected)} check_answer calls but {len(fingerprints)} recorded expectations")
    dropped = []
    _prune(tree.body, set(), expected, dropped)
    loops = [(k, f) for k, f in enumerate(fingerprints) if type(f).__name__ == "Fingerprints"]
    kinds = sorted({type(f).__name__ for f in fingerprints} - {"Fingerprints"})
    text = _replace(source, [(e, f"_expected_{k}.next()" if type(f).__name__ == "Fingerprints" else repr(f))
                             for k, (e, f) in enumerate(zip(expected, fingerprints))])
    lines, tree_new = text.splitlines(), ast.parse(text)
    gone = set()
    for old, new in zip(_statements(tree), _statements(tree_new)):
        if any(old is d for d in dropped):
            gone |= set(range(new.lineno - 1, new.end_lineno))
    body = "\n".join(line for k, line in enumerate(lines) if k not in gone)
    body = "\n".join([f"_expected_{k} = {f!r}  # one per case of the loop below" for k, f in loops] + [body])
    ast.parse(body)
    return _with_fingerprint_import(body, kinds + (["Fingerprints"] if loops else [])) if fingerprints else body


def fingerprint(values):
    """What a student's check holds of the values one ``check_answer`` call expected (several when it
    sits in a loop): their fingerprints, or, for a prediction from a few choices (a joint number, a
    yes or no, a word), a :class:`~dynlib.course.exercises.Withheld` that checks only its form, since
    trying the choices one by one would find it."""
    from dynlib.course.exercises import Fingerprint, Fingerprints, Withheld

    if all(Withheld.applies(value) for value in values):
        return Withheld.of(values[0])
    if len(values) == 1:
        return Fingerprint.of(values[0])
    return Fingerprints(*(Fingerprint.of(value).code for value in values))


def _inside(node, statement):
    return any(node is sub for sub in ast.walk(statement))


def _with_fingerprint_import(body, names):
    return f"from dynlib.course.exercises import {', '.join(sorted(names))}\n" + body


def answer_source(nb, exercise):
    """The answer cell: the answers defined as in the student stub, the solution in nbgrader's markers."""
    code = "\n\n".join(nb.cells[i].source for i in exercise.solution if nb.cells[i].cell_type == "code")
    tree = ast.parse(code)
    lines = code.splitlines()
    names = coursework.answer_names(nb, exercise)
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name in names}
    out = [f"{name} = ...  # your answer" for name in names if name not in functions]
    taken = set()
    for name in names:
        if name not in functions:
            continue
        node = functions[name]
        first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
        taken |= set(range(first - 1, node.end_lineno))
        has_doc = ast.get_docstring(node) is not None
        body = node.body[1:] if has_doc else node.body
        header_end = node.body[0].end_lineno if has_doc else node.body[0].lineno - 1
        out += lines[first - 1:header_end]
        if body:
            indent = " " * body[0].col_offset
            out += [f"{indent}### BEGIN SOLUTION", *lines[body[0].lineno - 1:node.end_lineno],
                    f"{indent}### END SOLUTION"]
        out.append("")
    rest = "\n".join(line for k, line in enumerate(lines) if k not in taken).strip()
    if rest and set(names) - set(functions):  # the rest computes a value answer; else it only demonstrates
        out += ["### BEGIN SOLUTION", rest, "### END SOLUTION"]
    return "\n".join(out).strip() + "\n"


# ------------------------------------------------------------------ the notebooks


def _grading(cell, grade_id, *, grade=False, solution=False, locked=False, points=None):
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": SCHEMA, "solution": solution}
    if points is not None:
        meta["points"] = points
    cell.metadata["nbgrader"] = meta
    cell.metadata.pop("tags", None) if cell.cell_type == "markdown" else None
    return cell


def record_expectations(nb, answers=None):
    """Run a solved page (as ``coursework.run`` does) and record what every ``check_answer`` call expects:
    ``{(cell, k): [value, ...]}``, one value per time the call ran.  A dict ``answers`` receives, per
    exercise label, the answers as the solution leaves them (``{name: value}``)."""
    import builtins

    recorded = {}

    def expect(cell, k, value):
        recorded.setdefault((cell, k), []).append(value)
        return value

    def keep(label, values):
        if answers is not None:
            answers[label] = copy.deepcopy(values)

    run = copy.deepcopy(nb)
    for exercise in coursework.exercises(nb):
        for i in exercise.checks:
            run.cells[i].source = instrumented(run.cells[i].source, i)
        last = next(i for i in reversed(exercise.solution) if nb.cells[i].cell_type == "code")
        names = coursework.answer_names(nb, exercise)
        run.cells[last].source += f"\n__answers__({exercise.label!r}, {{n: globals().get(n) for n in {names!r}}})\n"
    builtins.__expect__, builtins.__answers__ = expect, keep
    try:
        errors = coursework.run(run, seconds_per_cell=600)
    finally:
        del builtins.__expect__, builtins.__answers__
    if errors:
        cell, message = next(iter(errors.items()))
        raise CourseError(f"the solved page does not run cleanly: cell {cell}: {message.strip().splitlines()[0]}")
    return recorded


def shares(total, count):
    """``total`` points split into ``count`` shares of whole hundredths that add up to it exactly."""
    cents = round(Decimal(str(total)) * 100)
    base, extra = divmod(cents, count)
    return [float(Decimal(base + (k < extra)) / 100) for k in range(count)]


def assignment(nb, name, notebook):
    """The nbgrader source notebook of an exercise page, and its grading spec (see the module docstring).

    The spec says, per graded cell, which exercise it belongs to and what role it plays, and keeps
    each check cell's full text and each exercise's answer names: what ``tools/verdicts.py`` needs.
    """
    found = coursework.exercises(nb)
    recorded = record_expectations(nb)
    spec = {"assignment": name, "notebook": notebook, "roles": {}, "checks": {}, "answers": {}, "exercise_of": {},
            "points": {}}
    cells = []

    def add(cell, grade_id, role, exercise=None, **meta):
        cells.append(_grading(cell, grade_id, **meta))
        spec["roles"][grade_id] = role
        if meta.get("points") is not None:
            spec["points"][grade_id] = meta["points"]
        if exercise:
            spec["exercise_of"][grade_id] = exercise

    for index, cell in enumerate(nb.cells[:found[0].statement]):
        cell = copy.deepcopy(cell)
        if cell.cell_type == "markdown" and index == 0:
            heading = cell.source.strip().splitlines()
            title = next((line for line in heading if line.startswith("#")), "# Exercises")
            cell.source = f"{title}\n\n{STUDENT_INTRO}"
        add(cell, f"intro-{index}", "intro" if cell.cell_type == "code" else "text", locked=True)
    for exercise in found:
        label = exercise.label
        statement = nb.cells[exercise.statement].source
        spec["answers"][label] = coursework.answer_names(nb, exercise)
        add(copy.deepcopy(nb.cells[exercise.statement]), f"{label}-statement", "text", label, locked=True)
        for k, i in enumerate(exercise.setup):
            add(copy.deepcopy(nb.cells[i]), f"{label}-setup-{k}", "setup", label, locked=True)
        add(nbformat.v4.new_code_cell(answer_source(nb, exercise)), f"{label}-answer", "answer", label,
            solution=True)
        if "?" in statement:
            words = [nb.cells[i].source for i in exercise.solution if nb.cells[i].cell_type == "markdown"]
            points = float(WORDS.search(statement).group(1)) if WORDS.search(statement) else WORDS_POINTS
            text = "\n\n".join(words) if words else "(the solution gives no model answer in words)"
            cell = nbformat.v4.new_markdown_cell(
                f"**Model answer** (the release shows YOUR ANSWER HERE instead):\n\n{text}")
            add(cell, f"{label}-words", "words", label, grade=True, solution=True, points=points)
        total = float(POINTS.search(statement).group(1)) if POINTS.search(statement) else CHECK_POINTS
        for k, (i, points) in enumerate(zip(exercise.checks, shares(total, len(exercise.checks)))):
            source = nb.cells[i].source
            count = len(_expected_args(ast.parse(source)))
            visible = student_check(source, [fingerprint(recorded[(i, j)]) for j in range(count)])
            grade_id = f"{label}-check-{k}"
            add(nbformat.v4.new_code_cell(visible), grade_id, "check", label, grade=True, locked=True,
                points=points)
            spec["checks"][grade_id] = {"exercise": label, "source": source}
    out = nbformat.v4.new_notebook(cells=cells, metadata=copy.deepcopy(nb.metadata))
    out.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for cell in out.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nbformat.validator.normalize(out)
    return out, spec


# ------------------------------------------------------------------ what a student's copy gives away


def _comparable(value):
    """A value as a flat complex array, for comparing answers with what a check leaves behind (or None)."""
    import numpy as np
    import sympy as sp

    try:
        if isinstance(value, (sp.Basic, sp.MatrixBase)) or (isinstance(value, np.ndarray) and value.dtype == object):
            entries = list(sp.Matrix(value)) if not isinstance(value, sp.Basic) or isinstance(value, sp.MatrixBase) \
                else [value]
            names = sorted({str(x) for e in entries for x in getattr(e, "free_symbols", ())})
            point = {sp.Symbol(n): sp.Rational(700 + 37 * k, 1000) for k, n in enumerate(names)}
            return np.array([complex(sp.N(sp.sympify(e).subs({x: point[sp.Symbol(str(x))] for x in
                                                                 getattr(e, "free_symbols", ())}))) for e in entries])
        if isinstance(value, (bool, np.bool_, str)) or callable(value):
            return None
        array = np.asarray(value, dtype=complex).ravel()
        return array if array.size and np.all(np.isfinite(array)) else None
    except (TypeError, ValueError, AttributeError, NotImplementedError, sp.SympifyError):
        return None


def _same(a, b):
    import numpy as np

    scale = max(np.abs(b).max(), 1e-300)
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-6, atol=1e-9 * scale)


def _parts(name, value, depth=2):
    """``(name, value)`` for a value and for the items of the dicts, lists and tuples it holds (an answer
    kept in ``reference["rocker"]`` is kept as much as one in ``reference``)."""
    yield name, value
    if depth and isinstance(value, dict):
        for key, item in value.items():
            yield from _parts(f"{name}[{key!r}]", item, depth - 1)
    elif depth and isinstance(value, (list, tuple)) and len(value) <= 64:
        for k, item in enumerate(value):
            yield from _parts(f"{name}[{k}]", item, depth - 1)


def leaks(nb):
    """Names a student's copy of a page computes that hold an answer: ``[(exercise, name, answer)]``.

    The copy (its set-up cells, its answer stubs and its practice checks) is run in one namespace,
    with each exercise's answers set to slightly wrong values just before its practice checks and
    the check functions made harmless, so that every statement runs.  After each practice check,
    every value in the namespace is compared with every answer of the page (the values the solution
    defines and the values the checks expect, as the solved page gives them), except values the
    set-up cells already give and predictions among a few choices.
    """
    import numpy as np

    from dynlib.course.exercises import Withheld

    answers, targets = {}, {}
    recorded = record_expectations(nb, answers)
    named = {f"{label}: {n}": v for label, values in answers.items() for n, v in values.items()}
    named.update({f"cell {cell}, check {k}": v for (cell, k), values in recorded.items() for v in values})
    for name, value in named.items():
        for part in value if isinstance(value, tuple) else (value,):
            array = None if Withheld.applies(part) else _comparable(part)
            if array is not None and np.abs(array).max() > 0:
                targets.setdefault(name, []).append(array)
    student = coursework.student_version(nb, recorded)
    checks = coursework.check_cells(student)
    harmless = {name: (lambda *args, **kwargs: None) for name in CHECK_NAMES}
    namespace, given, leaked = {"__name__": "__main__", "perturbed": coursework.perturbed}, [], []
    for index, cell in enumerate(student.cells):
        if cell.cell_type != "code":
            continue
        if index in checks:
            namespace.update({n: coursework.perturbed(v) for n, v in answers[checks[index]].items()})
            namespace.update(harmless)
        try:
            with coursework.quiet():
                exec(compile(cell.source, f"<cell {index}>", "exec"), namespace)
        except Exception:  # a statement that needs a right answer: what ran before it counts
            pass
        values = {n: _comparable(v) for k, whole in namespace.items() if not k.startswith("_") and k != "perturbed"
                  for n, v in _parts(k, whole)  # counters are not answers: whole numbers are withheld
                  if not isinstance(v, (int, np.integer))}
        values = {k: v for k, v in values.items() if v is not None}
        if index not in checks:
            given += list(values.values())
            continue
        for name, array in values.items():
            if name in answers[checks[index]]:
                continue
            for answer, parts in targets.items():
                if any(_same(array, part) for part in parts) and not any(_same(g, array) for g in given):
                    leaked.append((checks[index], name, answer))
        given += list(values.values())  # what one check leaves behind is reported once, at that check
    return sorted(set(leaked))


# ------------------------------------------------------------------ the course


class CourseError(RuntimeError):
    """The course cannot be written or graded as asked; the message says why and what to do."""


CONFIG = '''\
# nbgrader configuration of the course generated by tools/assignments.py.  Grading runs the notebooks
# itself (tools/verdicts.py, in a sandbox) and hands nbgrader notebooks whose check cells already hold
# their verdicts: nbgrader's autograde only records the scores (it neither clears outputs nor executes).
from nbgrader.preprocessors import (AssignLatePenalties, CheckCellMetadata, DeduplicateIds, OverwriteCells,
                                    OverwriteKernelspec, SaveAutoGrades)

c = get_config()
c.CourseDirectory.root = {root!r}
c.CourseDirectory.course_id = "dynlib-course"
c.CourseDirectory.db_assignments = [{assignments}]
c.Autograde.sanitize_preprocessors = [DeduplicateIds, OverwriteKernelspec, OverwriteCells, CheckCellMetadata]
c.Autograde.autograde_preprocessors = [SaveAutoGrades, AssignLatePenalties, CheckCellMetadata]
c.ClearSolutions.code_stub = {{"python": "# YOUR CODE HERE\\nraise NotImplementedError()"}}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
'''


def nbgrader_api(root):
    """nbgrader's Python API on the course in ``root``, configured by its ``nbgrader_config.py``."""
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import PyFileConfigLoader

    bin_dir = str(Path(sys.executable).parent)  # nbgrader runs alembic, installed beside this Python
    if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
    config = PyFileConfigLoader("nbgrader_config.py", path=str(root)).load_config()
    return NbGraderAPI(coursedir=CourseDirectory(config=config, root=str(root)), config=config)


def _done(step, what):
    if not step["success"]:
        raise CourseError(f"nbgrader {what} failed: {(step.get('error') or step.get('log') or '')[-1500:]}")


def recorded_secret(root):
    path = Path(root) / "instructor" / "secret.json"
    return json.loads(path.read_text())["secret"] if path.exists() else None


def _graded_students(root):
    db = Path(root) / "gradebook.db"
    if not db.exists():
        return []
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{db}") as gradebook:
        return sorted({s.student.id for a in gradebook.assignments for s in a.submissions})


def _assignment_of(path, name):
    return assignment(nbformat.read(path, as_version=4), name, Path(path).name)


def write_course(root, secret=None, pages=None, verify=True, jobs=2):
    """An nbgrader course in ``root``: ``source/``, ``release/`` (nbgrader's) and ``instructor/``.

    ``secret`` moves the graded cases; without one, the course keeps the secret it was written with
    (or draws a new one).  Everything is written beside ``root`` first and moved in only when complete,
    so a failure leaves the previous course as it was; grades already in ``root`` are kept, and a new
    secret for a course that holds grades is refused.
    """
    root = Path(root).resolve()
    old = recorded_secret(root)
    secret = str(secret if secret is not None else old if old is not None else secrets.randbelow(10**12))
    if old is not None and secret != str(old) and _graded_students(root):
        raise CourseError(f"{root} holds grades made with another ASSIGNMENT_SEED: write the new course "
                          "elsewhere, or grade with the secret the course was written with")
    pages = [Path(p) for p in pages] if pages else sorted((ROOT / "exercises").glob("*.ipynb"))
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{root.name}-", dir=root.parent))
    try:
        if (root / "gradebook.db").exists():
            shutil.copy2(root / "gradebook.db", staging / "gradebook.db")
        instructor = staging / "instructor"
        instructor.mkdir(mode=0o700)
        names = [path.stem.removesuffix("_exercises") for path in pages]
        with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
            for name, (notebook, spec) in zip(names, pool.map(_assignment_of, pages, names)):
                folder = staging / "source" / name
                folder.mkdir(parents=True, exist_ok=True)
                nbformat.write(notebook, folder / spec["notebook"])
                (instructor / f"{name}.json").write_text(json.dumps(spec, indent=1))
        _private(instructor / "secret.json", json.dumps({"secret": secret}))
        assignments = ", ".join(f"dict(name={n!r})" for n in names)
        (staging / "nbgrader_config.py").write_text(CONFIG.format(root=str(staging), assignments=assignments))
        api = nbgrader_api(staging)
        for name in names:
            _done(api.generate_assignment(name, force=True), f"generate_assignment {name}")
        if verify:
            with concurrent.futures.ProcessPoolExecutor(jobs) as pool:
                list(pool.map(verify_solutions, [staging] * len(names), names))
        (staging / "nbgrader_config.py").write_text(CONFIG.format(root=str(root), assignments=assignments))
        root.mkdir(exist_ok=True)
        for entry in ("source", "release", "instructor", "nbgrader_config.py", "gradebook.db"):
            if (staging / entry).exists():
                if (root / entry).is_dir():
                    shutil.rmtree(root / entry)
                (staging / entry).replace(root / entry)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return names


def _private(path, text):
    with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as handle:
        handle.write(text)


def verify_solutions(root, name):
    """Grade the solutions of ``name`` with the course's secret, in this process: every check must pass."""
    import verdicts

    instructor = Path(root) / "instructor"
    spec = json.loads((instructor / f"{name}.json").read_text())
    release = nbformat.read(Path(root) / "release" / name / spec["notebook"], as_version=4)
    source = nbformat.read(Path(root) / "source" / name / spec["notebook"], as_version=4)
    session = verdicts.Session(verdicts.LocalKernel)
    try:
        _, result = verdicts.grade_notebook(spec, recorded_secret(root), release, filled(release, source), session,
                                            notebook_timeout=3600, run_practice_checks=False)
    finally:
        session.stop()
    failed = {g: c["lines"] for g, c in result["checks"].items() if c["score"] < c["max"]}
    if failed:
        shown = "; ".join(f"{g}: {' / '.join(lines)[:400]}" for g, lines in list(failed.items())[:3])
        raise CourseError(f"{name}: the solutions fail {len(failed)} graded checks on the cases this secret draws, "
                          f"so the checks or the cases need fixing (this is not the secret's fault): {shown}")


# ------------------------------------------------------------------ sample submissions


def _without_markers(source):
    """An answer cell's source with nbgrader's solution markers taken out (the solved answer)."""
    return "\n".join(line for line in source.splitlines()
                     if line.strip() not in ("### BEGIN SOLUTION", "### END SOLUTION")) + "\n"


def filled(release, source):
    """The release notebook with every answer cell filled from the instructor's source: a right submission."""
    answers = {c.metadata["nbgrader"]["grade_id"]: c for c in source.cells
               if c.metadata.get("nbgrader", {}).get("solution")}
    out = copy.deepcopy(release)
    for cell in out.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            text = answers[grade_id].source
            cell.source = _without_markers(text) if cell.cell_type == "code" else text.split("\n\n", 1)[-1]
    return out


def write_samples(root, out):
    """Two sample submissions per assignment of the course in ``root``: ``right`` (the solutions) and
    ``wrong`` (the release as handed out, every answer still missing)."""
    root, out = Path(root), Path(out)
    for folder in sorted((root / "release").iterdir()):
        for path in sorted(folder.glob("*.ipynb")):
            release = nbformat.read(path, as_version=4)
            source = nbformat.read(root / "source" / folder.name / path.name, as_version=4)
            for student, notebook in (("right", filled(release, source)), ("wrong", release)):
                target = out / student / folder.name
                target.mkdir(parents=True, exist_ok=True)
                nbformat.write(notebook, target / path.name)
    return out


# ------------------------------------------------------------------ grading


def kernel_cache(root):
    """Compiled kernels for the sandboxes, made in a sandbox and reused while dynlib is unchanged.

    The sandbox compiles every kernel (``dynlib.compile_kernels``) and runs each assignment's solutions,
    which compiles what the exercises use besides; assignments added later are run the next time.  The
    folder is copied into every sandbox, which may not write to it.  ``DYNLIB_KERNEL_CACHE`` names a
    folder to keep it in instead of the course's ``kernel-cache/`` (shared between courses).
    """
    import sandbox

    sources = sorted(p for p in (ROOT / "dynlib").rglob("*.py") if p.parent.name != "course")
    stamp = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()[:16]
    folder = Path(os.environ.get("DYNLIB_KERNEL_CACHE") or Path(root) / "kernel-cache")
    fresh = not (folder / f"stamp-{stamp}").exists()
    names = sorted(p.name for p in (Path(root) / "source").iterdir())
    cold = [n for n in names if fresh or not (folder / f"warm-{stamp}-{n}").exists()]
    if not cold:
        return folder
    why = "once per version of dynlib" if fresh else "for assignments new since then"
    print(f"compiling dynlib's kernels for the sandboxes ({why}, a few minutes)...", flush=True)
    box = sandbox.Sandbox(cache=None if fresh else folder).start()
    try:
        if fresh:
            done = box.execute("import dynlib\ndynlib.compile_kernels()", timeout=3600)
            if done.status != "ok":
                raise CourseError(f"compiling the kernels in the sandbox failed: {done.error} {box.log()[-1000:]}")
            (box.work / "numba-cache" / f"stamp-{stamp}").touch()
        for name in cold:
            source = next((Path(root) / "source" / name).glob("*.ipynb"))
            release = nbformat.read(Path(root) / "release" / name / source.name, as_version=4)
            for cell in filled(release, nbformat.read(source, as_version=4)).cells:
                if cell.cell_type == "code":
                    box.execute(cell.source, timeout=600)  # the course's own code: only warming the cache
            (box.work / "numba-cache" / f"warm-{stamp}-{name}").touch()
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(box.work / "numba-cache", folder)
    finally:
        box.stop()
    return folder


def _submissions(folder, assignments):
    """``{(student, assignment): notebook path}`` of a submissions folder, and what was skipped."""
    found, skipped = {}, []
    for student_dir in sorted(p for p in Path(folder).iterdir() if p.is_dir()):
        if not STUDENT_ID.fullmatch(student_dir.name):
            skipped.append(f"{student_dir.name}: not a student id (letters, digits, _ . @ + -)")
            continue
        for assignment_dir in sorted(p for p in student_dir.iterdir() if p.is_dir()):
            if assignment_dir.name not in assignments:
                skipped.append(f"{student_dir.name}/{assignment_dir.name}: no such assignment")
                continue
            notebook = assignment_dir / assignments[assignment_dir.name]
            if notebook.exists():
                found[student_dir.name, assignment_dir.name] = notebook
            else:
                skipped.append(f"{student_dir.name}/{assignment_dir.name}: no {notebook.name}")
    return found, skipped


def _grade_one(root, student, name, notebook, limits):
    """Grade one notebook in a worker process; its result (with a status) and the graded notebook's folder."""
    out = Path(root) / "results" / student / name
    shutil.rmtree(out, ignore_errors=True)
    command = [sys.executable, str(ROOT / "tools" / "verdicts.py"), str(root), name, str(notebook), str(out),
               "--notebook-timeout", str(limits["notebook"]), "--cell-timeout", str(limits["cell"])]
    env = dict(os.environ, DYNLIB_KERNEL_CACHE=str(limits["cache"]), MPLBACKEND="Agg")
    started = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=limits["notebook"] + 120, env=env,
                              start_new_session=True)
        reason = None if done.returncode == 0 else (done.stderr.strip().splitlines() or ["no message"])[-1][:300]
    except subprocess.TimeoutExpired:
        reason = f"the grader stopped after {limits['notebook'] + 120:.0f} s"
    if reason is None:
        result = {**json.loads((out / "result.json").read_text()), "status": "graded"}
    else:
        out.mkdir(parents=True, exist_ok=True)
        result = {"status": "failed to grade", "reason": reason, "checks": {},
                  "seconds": round(time.monotonic() - started, 1)}
    (out / "result.json").write_text(json.dumps(result, indent=1))
    return result


def grade(root, submissions, secret=None, jobs=2, notebook_timeout=600, cell_timeout=60):
    """Grade every submission under ``submissions`` (STUDENT/ASSIGNMENT/NOTEBOOK.ipynb) into ``root``:
    ``results/``, nbgrader's gradebook and ``feedback/``, and ``grades.csv``."""
    root, submissions = Path(root).resolve(), Path(submissions).resolve()
    if not (root / "instructor" / "secret.json").exists():
        raise CourseError(f"no course in {root}: write it first (make assignments)")
    if secret is not None and str(secret) != str(recorded_secret(root)):
        raise CourseError("ASSIGNMENT_SEED is not the secret this course was written with: grade with that one, "
                          "or leave ASSIGNMENT_SEED unset to use the secret recorded when the course was written")
    specs = {p.stem: json.loads(p.read_text()) for p in (root / "instructor").glob("*.json") if p.name != "secret.json"}
    found, skipped = _submissions(submissions, {n: s["notebook"] for n, s in specs.items()})
    for line in skipped:
        print(f"skipped {line}")
    dropped = _drop_stale(root, {a for _, a in found}, found)
    for student, name in dropped:
        print(f"dropped {student} / {name}: no longer among the submissions")
    limits = {"notebook": notebook_timeout, "cell": cell_timeout, "cache": kernel_cache(root)}
    started, lock, count = time.monotonic(), threading.Lock(), [0]

    def one(key):
        student, name = key
        result = _grade_one(root, student, name, found[key], limits)
        with lock:
            count[0] += 1
            score = sum(c["score"] for c in result["checks"].values())
            maximum = sum(_dec(p) for g, p in specs[name]["points"].items() if specs[name]["roles"][g] == "check")
            what = f"{_number(score)}/{_number(maximum)}" if result["status"] == "graded" else \
                f"FAILED TO GRADE ({result['reason']})"
            print(f"[{count[0]:>3}/{len(found)}] {student} / {name}: {what} in {result['seconds']:.0f} s "
                  f"(elapsed {time.monotonic() - started:.0f} s)", flush=True)
        return key, result

    print(f"grading {len(found)} notebooks, {jobs} at a time", flush=True)
    with concurrent.futures.ThreadPoolExecutor(max(1, jobs)) as pool:
        results = dict(pool.map(one, sorted(found)))
    for (student, name), result in sorted(results.items()):
        _record(root, student, name, found[student, name], specs[name], result)
    path = export(root)
    failed = [key for key, r in results.items() if r["status"] != "graded"]
    print(f"graded {len(results) - len(failed)} of {len(results)} notebooks in {time.monotonic() - started:.0f} s; "
          f"grades in {path}, feedback in {root / 'feedback'}" +
          (f"; failed to grade: {', '.join('/'.join(k) for k in sorted(failed))}" if failed else ""))
    return path


def _number(value):
    return _fmt(_dec(value))


def _drop_stale(root, graded_assignments, found):
    """Remove earlier results of the assignments graded now whose student is no longer submitted."""
    dropped = []
    results = Path(root) / "results"
    for path in sorted(results.glob("*/*/result.json")) if results.exists() else []:
        student, name = path.parent.parent.name, path.parent.name
        if name in graded_assignments and (student, name) not in found:
            shutil.rmtree(path.parent)
            _forget(root, student, name)
            dropped.append((student, name))
    return dropped


def _forget(root, student, name):
    from nbgrader.api import Gradebook, MissingEntry

    db = Path(root) / "gradebook.db"
    if db.exists():
        with Gradebook(f"sqlite:///{db}") as gradebook:
            try:
                gradebook.remove_submission(name, student)
            except MissingEntry:
                pass
    for folder in ("submitted", "autograded", "feedback"):
        shutil.rmtree(Path(root) / folder / student / name, ignore_errors=True)


def _record(root, student, name, original, spec, result):
    """Hand a graded notebook to nbgrader (scores from its outputs, manual grades kept) and make feedback."""
    if result["status"] != "graded":
        _forget(root, student, name)
        return
    target = Path(root) / "submitted" / student / name
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    shutil.copy(Path(root) / "results" / student / name / spec["notebook"], target / spec["notebook"])
    stamp = Path(original).parent / "timestamp.txt"
    if stamp.exists():
        shutil.copy(stamp, target / "timestamp.txt")
    try:
        from nbgrader.api import Gradebook

        with Gradebook(f"sqlite:///{Path(root) / 'gradebook.db'}") as gradebook:
            gradebook.update_or_create_student(student)
        api = nbgrader_api(root)
        _done(api.autograde(name, student, force=True, create=True), f"autograde {student} {name}")
        _done(api.generate_feedback(name, student, force=True), f"generate_feedback {student} {name}")
    except CourseError as exc:
        result.update(status="failed to grade", reason=f"nbgrader could not record it: {str(exc)[-300:]}")
        (Path(root) / "results" / student / name / "result.json").write_text(json.dumps(result, indent=1))
        _forget(root, student, name)


def export(root, feedback=False):
    """``grades.csv``: a row per student and assignment, from the results and nbgrader's gradebook.

    Columns: the student, the assignment, the status (graded, or failed to grade with the reason), when
    it was submitted (nbgrader's timestamp, when the collection gave one), the points of each exercise,
    the autograded and the manually graded points and their maxima apart, how many words answers wait
    for grading by hand, the total, and what the instructor may want to read (``review``).  With
    ``feedback``, the feedback pages are made again first (after grading words answers by hand).
    """
    from nbgrader.api import Gradebook

    root = Path(root).resolve()
    specs = {p.stem: json.loads(p.read_text()) for p in (root / "instructor").glob("*.json") if p.name != "secret.json"}
    exercises = [e for n in sorted(specs) for e in dict.fromkeys(specs[n]["exercise_of"].values())]
    rows = []
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        for path in sorted((root / "results").glob("*/*/result.json")):
            student, name = path.parent.parent.name, path.parent.name
            if name in specs:
                result = json.loads(path.read_text())
                if result["status"] == "graded" and feedback:
                    _done(nbgrader_api(root).generate_feedback(name, student, force=True), "generate_feedback")
                rows.append(_row(gradebook, student, name, specs[name], result))
    columns = ["student", "assignment", "status", "reason", "submitted", *exercises, "autograded", "autograded_max",
               "manual", "manual_max", "to_grade_by_hand", "total", "max", "review"]
    path = root / "grades.csv"
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, columns)
        writer.writeheader()
        writer.writerows(rows)
    return path


def _row(gradebook, student, name, spec, result):
    """One row of grades.csv (see :func:`export`)."""
    from nbgrader.api import MissingEntry

    manual = {g for g, role in spec["roles"].items() if role == "words"}
    maxima = {kind: sum((_dec(p) for g, p in spec["points"].items() if (g in manual) == (kind == "manual")),
                        Decimal(0)) for kind in ("auto", "manual")}
    row = {"student": student, "assignment": name, "status": result["status"], "reason": result.get("reason", ""),
           "autograded_max": _fmt(maxima["auto"]), "manual_max": _fmt(maxima["manual"]),
           "max": _fmt(maxima["auto"] + maxima["manual"])}
    if result["status"] != "graded":
        return row
    try:
        submission = gradebook.find_submission(name, student)
    except MissingEntry:
        return {**row, "status": "failed to grade", "reason": "not in nbgrader's gradebook"}
    totals, per, waiting = {"auto": Decimal(0), "manual": Decimal(0)}, {}, 0
    for grade_id in spec["points"]:
        grade = gradebook.find_grade(grade_id, spec["notebook"].removesuffix(".ipynb"), name, student)
        if grade_id in manual and grade.manual_score is None:
            waiting += 1
        score = grade.manual_score if grade.manual_score is not None else grade.auto_score
        points = _dec(score or 0)
        totals["manual" if grade_id in manual else "auto"] += points
        exercise = spec["exercise_of"][grade_id]
        per[exercise] = per.get(exercise, Decimal(0)) + points
    return {**row, **{e: _fmt(v) for e, v in per.items()},
            "submitted": submission.timestamp.isoformat(sep=" ") if submission.timestamp else "",
            "autograded": _fmt(totals["auto"]), "manual": _fmt(totals["manual"]), "to_grade_by_hand": waiting,
            "total": _fmt(totals["auto"] + totals["manual"]), "review": ", ".join(result.get("review", []))}


def _dec(value):
    return Decimal(str(round(float(value), 2)))


def _fmt(value):
    return f"{Decimal(value).normalize():f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    course = commands.add_parser("course", help="write the nbgrader course (source, release, instructor)")
    course.add_argument("root", type=Path)
    course.add_argument("--seed", default=os.environ.get("ASSIGNMENT_SEED") or None,
                        help="the secret that moves the graded cases (or ASSIGNMENT_SEED; default: the one the "
                             "course was written with, else a new one)")
    course.add_argument("pages", type=Path, nargs="*", help="exercise pages (default: all)")
    samples = commands.add_parser("samples", help="two sample submissions per assignment: right and wrong")
    samples.add_argument("root", type=Path)
    samples.add_argument("out", type=Path)
    graded = commands.add_parser("grade", help="grade submissions: results, feedback and grades.csv")
    graded.add_argument("root", type=Path)
    graded.add_argument("submissions", type=Path)
    graded.add_argument("--jobs", type=int, default=2, help="notebooks graded at once")
    graded.add_argument("--notebook-timeout", type=float, default=600, help="seconds for a whole notebook")
    graded.add_argument("--cell-timeout", type=float, default=60, help="seconds for one cell or call")
    exported = commands.add_parser("export", help="feedback and grades.csv again (after grading by hand)")
    exported.add_argument("root", type=Path)
    args = parser.parse_args(argv)
    try:
        if args.command == "course":
            names = write_course(args.root, args.seed, args.pages)
            print(f"nbgrader course in {args.root}: {len(names)} assignments, their solutions graded in full; "
                  f"hand out {args.root / 'release'}; the secret is kept in {args.root / 'instructor'}")
        elif args.command == "samples":
            print(f"sample submissions (right, wrong) in {write_samples(args.root, args.out)}")
        elif args.command == "grade":
            grade(args.root, args.submissions, os.environ.get("ASSIGNMENT_SEED") or None, jobs=args.jobs,
                  notebook_timeout=args.notebook_timeout, cell_timeout=args.cell_timeout)
        else:
            print(f"grades in {export(args.root, feedback=True)}, feedback in {args.root / 'feedback'}")
    except CourseError as exc:
        raise SystemExit(f"error: {exc}") from None


if __name__ == "__main__":
    sys.exit(main())
