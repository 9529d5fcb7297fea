"""nbgrader assignments from the exercise pages, and grading through nbgrader.

Each exercise page (``exercises/NN_*.ipynb``, laid out as ``tools/coursework.py`` describes)
becomes one nbgrader assignment ``NN_*`` whose notebook holds, per exercise:

- the statement and the set-up cells, locked;
- one **autograded answer cell**: each answer the checks use, defined as in the student stubs (a
  function keeps its signature and docstring), with the solution between ``### BEGIN SOLUTION`` and
  ``### END SOLUTION`` (nbgrader replaces it by ``raise NotImplementedError()`` in the release);
- a **manually graded answer cell** (Markdown) when the statement asks a question in words, holding
  the solution's explanation as the model answer;
- the check cells as **locked autograder tests**.  What a student sees of a check holds no right
  answer: every ``expected`` value of ``check_answer`` is replaced by its
  :class:`dynlib.course.exercises.Fingerprint`, and statements that only computed it are dropped.
  After it, between ``### BEGIN HIDDEN TESTS`` and ``### END HIDDEN TESTS`` (in the instructor's
  copy only), the full check runs again with check functions loaded afresh from their files (a
  student who patched them patched other objects) and with every random seed moved by the
  instructor's secret ``--seed``, so that cases read off the visible checks are not the graded ones.
  The solutions are run against these hidden tests when the course is written: a seed under
  which a solution would fail a graded case (a degenerate random draw) is refused.

Points: an exercise's check cells share ``CHECK_POINTS`` points, its words answer is worth
``WORDS_POINTS``; a statement can set its own with a Markdown comment ``<!-- points: 3 -->``
(checks) or ``<!-- words points: 2 -->``.

Usage (``make assignments`` and ``make grade`` run these in the grading environment)::

    python tools/assignments.py course OUT_DIR [--seed N]     # nbgrader course: source/, release/
    python tools/assignments.py samples OUT_DIR SUBMISSIONS   # two sample submissions: right, wrong
    python tools/assignments.py grade OUT_DIR SUBMISSIONS     # autograde, feedback/, grades.csv

``SUBMISSIONS`` holds ``STUDENT/ASSIGNMENT/NOTEBOOK.ipynb``, nbgrader's ``submitted`` layout.
"""

from __future__ import annotations

import argparse
import ast
import copy
import os
import re
import shutil
import subprocess
import sys
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
DROPPABLE = (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.FunctionDef, ast.ClassDef)
MUTATORS = {"append", "extend", "insert", "update", "add", "setdefault", "pop", "remove", "clear", "sort",
            "fill", "discard"}  # methods that change the object they are called on
SEEDED = {"default_rng": 0, "random_tree": 1}  # call name -> position of its seed argument

STUDENT_INTRO = (
    "Fill in each **answer cell**: write the code between the function's docstring and its end, or the "
    "values the exercise names, replacing `raise NotImplementedError()`. Questions in words have a "
    "Markdown cell of their own. Run the check cells below an answer to see whether it is right; they say "
    "what is wrong without giving the answer away. The graded checks run more cases than these."
)

FRESH_CHECKS = '''\
import importlib.util as _iu, os as _os, sys as _sys
_course = _os.path.join(_os.path.dirname(_iu.find_spec("dynlib").origin), "course")
def _fresh(name, file):
    spec = _iu.spec_from_file_location(name, _os.path.join(_course, file))
    module = _iu.module_from_spec(spec)
    module.__package__ = "dynlib.course"
    spec.loader.exec_module(module)
    return module
_saved = _sys.modules.get("dynlib.course.checks")
_sys.modules["dynlib.course.checks"] = _fresh("dynlib.course.checks", "checks.py")
try:
    _graded = _fresh("dynlib.course._graded_exercises", "exercises.py")
finally:
    _sys.modules["dynlib.course.checks"] = _saved
answered, check_answer = _graded.answered, _graded.check_answer
check_function, check_property = _graded.check_function, _graded.check_property
'''


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
    return _with_fingerprint_import(body, bool(loops)) if fingerprints else body


def fingerprint(values):
    """The fingerprint of the values one ``check_answer`` call expected (several when it sits in a loop)."""
    from dynlib.course.exercises import Fingerprint, Fingerprints

    if len(values) == 1:
        return Fingerprint.of(values[0])
    return Fingerprints(*(Fingerprint.of(value).code for value in values))


def _inside(node, statement):
    return any(node is sub for sub in ast.walk(statement))


def _with_fingerprint_import(body, several=False):
    names = "Fingerprint, Fingerprints" if several else "Fingerprint"
    return f"from dynlib.course.exercises import {names}\n" + body


def reseeded(source, offset):
    """``source`` with every seed of ``default_rng(...)`` and ``random_tree(n, seed, ...)`` moved by ``offset``."""
    tree = ast.parse(source)
    edits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _call_name(node) in SEEDED:
            position = SEEDED[_call_name(node)]
            if len(node.args) > position:
                arg = node.args[position]
                edits.append((arg, f"({ast.get_source_segment(source, arg)}) + {offset}"))
    return _replace(source, edits)


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


def record_expectations(nb):
    """Run a solved page (as ``coursework.run`` does) and record what every ``check_answer`` call expects:
    ``{(cell, k): [value, ...]}``, one value per time the call ran."""
    import builtins

    recorded = {}

    def expect(cell, k, value):
        recorded.setdefault((cell, k), []).append(value)
        return value

    run = copy.deepcopy(nb)
    for exercise in coursework.exercises(nb):
        for i in exercise.checks:
            run.cells[i].source = instrumented(run.cells[i].source, i)
    builtins.__expect__ = expect
    try:
        errors = coursework.run(run, seconds_per_cell=600)
    finally:
        del builtins.__expect__
    if errors:
        raise RuntimeError(f"the solved page does not run cleanly: {errors}")
    return recorded


def check_hidden_tests(nb, seed):
    """Run the solved page with every check cell replaced by its hidden part (fresh check functions,
    seeds moved by ``seed``): the solutions must pass the graded cases too, or the seed is refused."""
    run = copy.deepcopy(nb)
    for exercise in coursework.exercises(nb):
        for i in exercise.checks:
            run.cells[i].source = FRESH_CHECKS + reseeded(run.cells[i].source, seed)
    errors = coursework.run(run, seconds_per_cell=600)
    if errors:
        first = next(iter(errors.values())).strip().splitlines()[-1][:300]
        raise RuntimeError(f"with the seed shift {seed} the hidden tests of cells {sorted(errors)} fail on the "
                           f"solutions themselves (a degenerate random case): choose another ASSIGNMENT_SEED. "
                           f"First message: {first}")


def assignment(nb, seed):
    """The nbgrader source notebook of an exercise page (see the module docstring)."""
    found = coursework.exercises(nb)
    recorded = record_expectations(nb)
    check_hidden_tests(nb, seed)
    first_statement = found[0].statement
    cells = []
    for index, cell in enumerate(nb.cells[:first_statement]):
        cell = copy.deepcopy(cell)
        if cell.cell_type == "markdown" and index == 0:
            heading = cell.source.strip().splitlines()
            title = next((line for line in heading if line.startswith("#")), "# Exercises")
            cell.source = f"{title}\n\n{STUDENT_INTRO}"
        cells.append(_grading(cell, f"intro-{index}", locked=True))
    for exercise in found:
        label = exercise.label
        statement = nb.cells[exercise.statement].source
        cells.append(_grading(copy.deepcopy(nb.cells[exercise.statement]), f"{label}-statement", locked=True))
        for k, i in enumerate(exercise.setup):
            cells.append(_grading(copy.deepcopy(nb.cells[i]), f"{label}-setup-{k}", locked=True))
        answer = nbformat.v4.new_code_cell(answer_source(nb, exercise))
        cells.append(_grading(answer, f"{label}-answer", solution=True))
        if "?" in statement:
            words = [nb.cells[i].source for i in exercise.solution if nb.cells[i].cell_type == "markdown"]
            points = float(WORDS.search(statement).group(1)) if WORDS.search(statement) else WORDS_POINTS
            text = "\n\n".join(words) if words else "(the solution gives no model answer in words)"
            cell = nbformat.v4.new_markdown_cell(
                f"**Model answer** (the release shows YOUR ANSWER HERE instead):\n\n{text}")
            cells.append(_grading(cell, f"{label}-words", grade=True, solution=True, points=points))
        total = float(POINTS.search(statement).group(1)) if POINTS.search(statement) else CHECK_POINTS
        for k, i in enumerate(exercise.checks):
            source = nb.cells[i].source
            count = len(_expected_args(ast.parse(source)))
            fingerprints = [fingerprint(recorded[(i, j)]) for j in range(count)]
            visible = student_check(source, fingerprints)
            hidden = FRESH_CHECKS + reseeded(source, seed)
            check = nbformat.v4.new_code_cell(f"{visible}\n### BEGIN HIDDEN TESTS\n{hidden}### END HIDDEN TESTS\n")
            cells.append(_grading(check, f"{label}-check-{k}", grade=True, locked=True,
                                  points=round(total / len(exercise.checks), 3)))
    out = nbformat.v4.new_notebook(cells=cells, metadata=copy.deepcopy(nb.metadata))
    out.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for cell in out.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nbformat.validator.normalize(out)
    return out


CONFIG = '''\
# nbgrader configuration of the course generated by tools/assignments.py
c = get_config()
c.CourseDirectory.root = {root!r}
c.CourseDirectory.course_id = "dynlib-course"
c.CourseDirectory.db_assignments = [{assignments}]
c.ExecutePreprocessor.timeout = {timeout}          # seconds per cell; an endless loop is stopped
c.Execute.interrupt_on_timeout = True
c.Execute.raise_on_iopub_timeout = False
c.ClearSolutions.code_stub = {{"python": "# YOUR CODE HERE\\nraise NotImplementedError()"}}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
'''


def nbgrader(root, *args):
    """Run an nbgrader command in the course directory ``root`` (its config file sits there)."""
    exe = Path(sys.executable).parent / "nbgrader"
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    done = subprocess.run([str(exe), *args], cwd=root, env=env, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"nbgrader {' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done


def write_course(root, seed, pages=None, timeout=120):
    """An nbgrader course in ``root``: ``source/`` from the exercise pages and ``release/`` from nbgrader."""
    root = Path(root).resolve()
    pages = [Path(p) for p in pages] if pages else sorted((ROOT / "exercises").glob("*.ipynb"))
    shutil.rmtree(root / "source", ignore_errors=True)
    names = []
    for path in pages:
        name = path.stem.removesuffix("_exercises")
        folder = root / "source" / name
        folder.mkdir(parents=True, exist_ok=True)
        nbformat.write(assignment(nbformat.read(path, as_version=4), seed), folder / path.name)
        names.append(name)
    config = CONFIG.format(root=str(root), timeout=timeout,
                           assignments=", ".join(f"dict(name={n!r})" for n in names))
    (root / "nbgrader_config.py").write_text(config)
    for name in names:
        nbgrader(root, "generate_assignment", name, "--force")
    return names


def grade(root, submissions):
    """Autograde every submission under ``submissions`` (STUDENT/ASSIGNMENT/*.ipynb), write feedback and grades.csv."""
    root, submissions = Path(root).resolve(), Path(submissions).resolve()
    shutil.rmtree(root / "submitted", ignore_errors=True)
    shutil.copytree(submissions, root / "submitted")
    students = sorted(p.name for p in (root / "submitted").iterdir() if p.is_dir())
    for student in students:
        nbgrader(root, "db", "student", "add", student)
    for assignment_dir in sorted({p.name for s in students for p in (root / "submitted" / s).iterdir()}):
        nbgrader(root, "autograde", assignment_dir, "--force")
        nbgrader(root, "generate_feedback", assignment_dir, "--force")
    nbgrader(root, "export", "--to", str(root / "grades.csv"))
    print((root / "grades.csv").read_text())
    print(f"feedback for each student in {root / 'feedback'}")
    return root / "grades.csv"


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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    course = commands.add_parser("course", help="write the nbgrader course (source and release)")
    course.add_argument("root", type=Path)
    course.add_argument("--seed", type=int, default=int(os.environ.get("ASSIGNMENT_SEED", "1000")),
                        help="the secret shift of the hidden tests' random seeds (or ASSIGNMENT_SEED)")
    course.add_argument("--timeout", type=int, default=120, help="seconds a cell may run when graded")
    course.add_argument("pages", type=Path, nargs="*", help="exercise pages (default: all)")
    samples = commands.add_parser("samples", help="two sample submissions per assignment: right and wrong")
    samples.add_argument("root", type=Path)
    samples.add_argument("out", type=Path)
    graded = commands.add_parser("grade", help="autograde submissions, write feedback and grades.csv")
    graded.add_argument("root", type=Path)
    graded.add_argument("submissions", type=Path)
    args = parser.parse_args(argv)
    if args.command == "course":
        names = write_course(args.root, args.seed, args.pages, timeout=args.timeout)
        print(f"nbgrader course in {args.root}: {len(names)} assignments; release copies in {args.root / 'release'}")
    elif args.command == "samples":
        print(f"sample submissions (right, wrong) in {write_samples(args.root, args.out)}")
    else:
        grade(args.root, args.submissions)


if __name__ == "__main__":
    sys.exit(main())
