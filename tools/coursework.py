"""Student versions and grading of the exercise pages.

An exercise page (``exercises/*.ipynb``) is a sequence of exercises.  Each one is

1. a markdown cell holding an ``{exercise}`` directive with a ``:label:``;
2. optional code cells that set it up (given data, symbols), kept for students;
3. the solution: every cell between the ``{solution-start}`` and ``{solution-end}`` markdown
   cells (hidden behind a toggle in the book);
4. check cells: the code cells after ``{solution-end}`` up to the next exercise.  They call
   :mod:`dynlib.course.exercises` and raise ``ExerciseFeedback`` when the answer is wrong.

The *answers* of an exercise are the names its solution defines and its check cells use.
The student version replaces the solution by a prompt and a stub that defines every answer:
a function keeps its signature and docstring and raises ``NotImplementedError``; a value
becomes ``...``.  Outputs are cleared and check cells are tagged ``check`` so a filled-in copy
can be graded even if the student added cells.

Usage::

    python tools/coursework.py student OUT_DIR         # student notebooks and a student HTML book
    python tools/coursework.py selfcheck NOTEBOOK ...  # which checks pass, per exercise

``selfcheck`` runs a filled-in notebook in this process, for a student checking their own work
or for the tests of this module.  It is not a grader: student code runs in the checking process
and can change what it reports.  Grading for credit goes through nbgrader (``tools/assignments.py``,
``make grade``), which runs each notebook in a kernel of its own and restores the checks.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import inspect
import io
import re
import shutil
import signal
import subprocess
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
LABEL = re.compile(r"^:label:\s*(\S+)", re.M)
PROMPT = (
    "**Your answer.** Work it out on paper first, then fill in the code cell below: it defines "
    "the names the check uses ({names}). Run the check after it; it tells you what is wrong "
    "without giving the answer away."
)


@dataclass
class Exercise:
    """Cell indices of one exercise in a notebook."""

    label: str
    statement: int
    setup: list = field(default_factory=list)
    solution: list = field(default_factory=list)
    checks: list = field(default_factory=list)


def _is_exercise(cell):
    return cell.cell_type == "markdown" and "{exercise}" in cell.source


def _is_marker(cell, kind):
    return cell.cell_type == "markdown" and "{" + kind + "}" in cell.source


def exercises(nb):
    """Split a notebook into its exercises (see the module docstring for the layout)."""
    found, state = [], None
    for index, cell in enumerate(nb.cells):
        if _is_exercise(cell):
            match = LABEL.search(cell.source)
            if not match:
                raise ValueError(f"cell {index}: an exercise without a :label:")
            found.append(Exercise(match.group(1), index))
            state = "setup"
        elif not found:
            continue
        elif _is_marker(cell, "solution-start"):
            state = "solution"
        elif _is_marker(cell, "solution-end"):
            state = "checks"
        elif state == "solution":
            found[-1].solution.append(index)
        elif cell.cell_type == "code" and state in ("setup", "checks"):
            getattr(found[-1], state).append(index)
    for exercise in found:
        if not exercise.solution or not exercise.checks:
            raise ValueError(f"exercise {exercise.label} needs a solution and at least one check cell")
    return found


def _stored_names(tree):
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def _loaded_names(tree):
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}


def answer_names(nb, exercise):
    """Names the solution defines and the check cells use without defining them first."""
    solution = ast.parse("\n".join(nb.cells[i].source for i in exercise.solution if nb.cells[i].cell_type == "code"))
    checks = ast.parse("\n".join(nb.cells[i].source for i in exercise.checks))
    free = _loaded_names(checks) - _stored_names(checks)
    return sorted(_stored_names(solution) & free, key=lambda name: _first_definition(solution, name))


def _first_definition(tree, name):
    for node in tree.body:
        if name in _stored_names(node):
            return node.lineno
    return 0


def stub(nb, exercise):
    """Source of the student's code cell: every answer defined, none of them written."""
    solution = ast.parse("\n".join(nb.cells[i].source for i in exercise.solution if nb.cells[i].cell_type == "code"))
    functions = {node.name: node for node in solution.body if isinstance(node, ast.FunctionDef)}
    lines = []
    for name in answer_names(nb, exercise):
        if name in functions:
            node = copy.deepcopy(functions[name])
            docstring = ast.get_docstring(node, clean=False)
            node.body = ([ast.Expr(ast.Constant(docstring))] if docstring else []) + [
                ast.parse('raise NotImplementedError("write this function")').body[0]]
            node.decorator_list = []
            lines += [ast.unparse(node), ""]
        else:
            lines.append(f"{name} = ...  # your answer")
    return "\n".join(lines).strip() + "\n"


STUDENT_INTRO = (
    "Write each answer in the code cell below its exercise, on paper first where it asks for a "
    "derivation; then run the check cells after it. They say what is wrong, with a hint, without "
    "giving the answer away: they hold no right answer, only a fingerprint of it."
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def student_intro(text):
    """The first cell of a page for students: its label, title, chapter and conventions, and how to work."""
    lines = text.strip().splitlines()
    head = [line for line in lines if line.startswith("(") and line.endswith(")=") or line.startswith("#")]
    body = " ".join(line for line in lines if line not in head).split("\n\n")[0]
    kept = [s for s in _SENTENCE.split(body.strip()) if s.startswith(("These exercises go with", "Conventions"))]
    first = [s for s in kept if s.startswith("These")]
    rest = [s for s in kept if not s.startswith("These")]
    return "\n".join(head) + "\n\n" + " ".join(first + [STUDENT_INTRO] + rest)


def student_version(nb, expectations=None):
    """A copy of an exercise notebook with the solutions replaced and the outputs cleared.

    With ``expectations`` (from ``tools/assignments.py``'s ``record_expectations``), every value
    a check cell expects is replaced by its fingerprint and the statements that computed it are
    dropped, so the student's check cells hold no answer.
    """
    found = exercises(nb)
    replaced = {i: exercise for exercise in found for i in exercise.solution}
    checks = {i for exercise in found for i in exercise.checks}
    cells = []
    for index, cell in enumerate(nb.cells):
        if _is_marker(cell, "solution-end"):
            continue
        if _is_marker(cell, "solution-start"):
            exercise = next(e for e in found if e.solution[0] == index + 1)
            names = ", ".join(f"`{name}`" for name in answer_names(nb, exercise))
            cells.append(nbformat.v4.new_markdown_cell(PROMPT.format(names=names)))
            cells.append(nbformat.v4.new_code_cell(stub(nb, exercise)))
            continue
        if index in replaced:
            continue
        cell = copy.deepcopy(cell)
        if index == 0 and cell.cell_type == "markdown":
            cell.source = student_intro(cell.source)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
            if index in checks:
                cell.metadata["tags"] = sorted(set(cell.metadata.get("tags", [])) | {"check"})
                if expectations is not None:
                    cell.source = _fingerprinted(cell.source, index, expectations)
        cells.append(cell)
    student = nbformat.v4.new_notebook(cells=cells, metadata=copy.deepcopy(nb.metadata))
    nbformat.validator.normalize(student)
    return student


def _fingerprinted(source, index, expectations):
    import assignments  # the nbgrader tool shares this step; imported here, it imports this module

    count = len(assignments._expected_args(ast.parse(source)))
    return assignments.student_check(source, [assignments.fingerprint(expectations[(index, k)]) for k in range(count)])


def solution_lines(nb):
    """Lines of solution text that must not reach a student (headers and docstrings excluded)."""
    lines = set()
    for exercise in exercises(nb):
        for i in exercise.solution:
            cell = nb.cells[i]
            text = cell.source
            if cell.cell_type == "code":
                kept = stub(nb, exercise)
                text = "\n".join(line for line in text.splitlines() if line.strip() not in kept)
            lines |= {line.strip() for line in text.splitlines() if len(line.strip()) > 20}
    return lines


@contextlib.contextmanager
def quiet():
    """Run notebook code without its printed output or its figures."""
    with contextlib.redirect_stdout(io.StringIO()):
        yield
    import matplotlib.pyplot as plt

    plt.close("all")


class CellTimeout(Exception):
    """A cell ran longer than the grader allows."""


def _time_out(signum, frame):
    raise CellTimeout("the cell ran too long (an endless loop?)")


def run(nb, seconds_per_cell=120):
    """Execute a notebook's code cells in one fresh namespace; return the error of each cell."""
    namespace, errors = {"__name__": "__main__"}, {}
    previous = signal.signal(signal.SIGALRM, _time_out)
    try:
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code":
                continue
            signal.alarm(seconds_per_cell)
            try:
                with contextlib.redirect_stdout(io.StringIO()):
                    exec(compile(cell.source, f"<cell {index}>", "exec"), namespace)
            except Exception as exc:  # a student's code can fail in any way: record it per cell
                errors[index] = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            finally:
                signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, previous)
    return errors


def check_cells(nb):
    """Exercise label of each check cell: from the layout in a solved page, else from the tags."""
    if any(_is_marker(cell, "solution-start") for cell in nb.cells):
        return {i: exercise.label for exercise in exercises(nb) for i in exercise.checks}
    found, label = {}, None
    for index, cell in enumerate(nb.cells):
        if _is_exercise(cell):
            label = LABEL.search(cell.source).group(1)
        elif label and cell.cell_type == "code" and "check" in cell.metadata.get("tags", []):
            found[index] = label
    return found


def grade(nb):
    """Score of each exercise: (check cells passed, check cells, first failure message or None)."""
    errors = run(nb)
    scores = {}
    for index, label in check_cells(nb).items():
        passed, total, first = scores.get(label, (0, 0, None))
        error = errors.get(index)
        scores[label] = (passed + (error is None), total + 1, first or error)
    return scores


def perturbed(value):
    """A slightly wrong version of an answer, to prove that its check can fail."""
    import numpy as np
    import sympy as sp

    if callable(value) and not isinstance(value, (sp.Basic, sp.MatrixBase)):
        return lambda *args, **kwargs: perturbed(value(*args, **kwargs))
    if isinstance(value, (bool, np.bool_)):
        return not value
    if isinstance(value, str):
        return value + " (altered)"
    if isinstance(value, tuple):
        return type(value)(*map(perturbed, value)) if hasattr(value, "_fields") else tuple(map(perturbed, value))
    if isinstance(value, list):
        return [perturbed(item) for item in value]
    if isinstance(value, dict):
        return {key: perturbed(item) for key, item in value.items()}
    if isinstance(value, sp.MatrixBase):
        return value.applyfunc(lambda entry: entry + sp.Rational(1, 100))
    if isinstance(value, sp.Basic):
        return value + sp.Rational(1, 100)
    array = np.asarray(value)
    if array.dtype == object:
        return array + sp.Rational(1, 100)
    if np.issubdtype(array.dtype, np.integer):
        return value + 1
    return value + 0.01 * (np.abs(array) + 1)


def with_wrong_answers(nb):
    """The solved notebook with every answer perturbed just before its checks run."""
    wrong = copy.deepcopy(nb)
    inserted = 0
    for exercise in exercises(nb):
        names = answer_names(nb, exercise)
        source = "\n".join(f"{name} = perturbed({name})" for name in names)
        wrong.cells.insert(exercise.checks[0] + inserted, nbformat.v4.new_code_cell(source))
        inserted += 1
    wrong.cells.insert(0, nbformat.v4.new_code_cell(inspect.getsource(perturbed)))
    return wrong


def write_student_book(out_dir):
    """Student notebooks in ``out_dir/exercises`` and the book built from them in ``out_dir/html``.

    The book's sources are copied to ``out_dir/source`` with every exercise page replaced by its
    student version, built with warnings as errors, and the HTML is searched for solution text.
    """
    import assignments
    import yaml

    source = out_dir / "source"
    shutil.rmtree(out_dir, ignore_errors=True)
    for name in ("_config.yml", "_toc.yml"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, source / name)
    config = yaml.safe_load((source / "_config.yml").read_text())
    config["sphinx"]["config"]["dynlib_launch_buttons"] = False  # no buttons to the solved notebooks
    config.pop("launch_buttons", None)
    (source / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
    for folder in ("book", "chapters", "benchmarks"):  # everything the pages include besides the exercises
        shutil.copytree(ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__"))
    leaks = set()
    for path in sorted((ROOT / "exercises").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        student = student_version(nb, assignments.record_expectations(nb))
        for folder in (out_dir / "exercises", source / "exercises"):
            folder.mkdir(parents=True, exist_ok=True)
            nbformat.write(student, folder / path.name)
        leaks |= solution_lines(nb)
    subprocess.run([str(Path(sys.executable).parent / "jupyter-book"), "build", str(source), "-W", "-n", "--keep-going",
                    "--all", "--path-output", str(out_dir)], check=True)
    shutil.move(out_dir / "_build" / "html", out_dir / "html")
    shutil.rmtree(out_dir / "_build")
    pages = {page: page.read_text() for page in (out_dir / "html" / "exercises").glob("*.html")}
    found = [(page.name, line) for page, text in pages.items() for line in leaks if line in text]
    if found:
        raise SystemExit(f"solution text in the student book: {found[:3]}")
    print(f"student notebooks in {out_dir / 'exercises'}; student book: {out_dir / 'html' / 'index.html'}")


def _print_grades(paths):
    total = 0.0
    for path in paths:
        scores = grade(nbformat.read(path, as_version=4))
        print(f"{path.name}")
        for label, (passed, count, first) in scores.items():
            print(f"  {label:40s} {passed}/{count}" + (f"   {first.splitlines()[0][:160]}" if first else ""))
        score = sum(passed / count for passed, count, _ in scores.values())
        print(f"  score: {score:.1f} of {len(scores)}")
        total += score
    return total


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    student = commands.add_parser("student", help="write the student notebooks and the student book")
    student.add_argument("out_dir", type=Path)
    graded = commands.add_parser("selfcheck", help="which checks a filled-in notebook passes (not for credit)")
    graded.add_argument("notebooks", type=Path, nargs="+")
    args = parser.parse_args(argv)
    if args.command == "student":
        write_student_book(args.out_dir.resolve())
    else:
        _print_grades(args.notebooks)


if __name__ == "__main__":
    sys.exit(main())
