"""The exercise pages' checks mean something: solutions pass, student versions and wrong answers fail.

tools/coursework.py writes the student versions and grades notebooks; these tests run every
exercise page three ways through its grader (in this process, so they are quick).
"""

import ast
import importlib.util
import sys
from pathlib import Path

import matplotlib
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted((ROOT / "exercises").glob("*.ipynb"))
FEEDBACK = ("check_function(", "check_answer(", "check_property(")

spec = importlib.util.spec_from_file_location("coursework", ROOT / "tools" / "coursework.py")
coursework = importlib.util.module_from_spec(spec)
sys.modules["coursework"] = coursework  # dataclasses look their module up here
spec.loader.exec_module(coursework)


@pytest.fixture(autouse=True)
def _headless_and_in_the_exercises_folder(monkeypatch):
    matplotlib.use("Agg")
    monkeypatch.chdir(ROOT / "exercises")


def read(path):
    return nbformat.read(path, as_version=4)


def failing(scores):
    return {label for label, (passed, total, _) in scores.items() if passed < total}


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_page_has_at_least_three_exercises_with_answers_and_feedback_checks(path):
    nb = read(path)
    found = coursework.exercises(nb)
    assert len(found) >= 3, f"{path.name}: {len(found)} exercises"
    functions = 0
    for exercise in found:
        names = coursework.answer_names(nb, exercise)
        assert names, f"{exercise.label}: its checks use nothing its solution defines"
        assert len(names) <= 4, f"{exercise.label}: too many answers for a student to fill in: {names}"
        checks = "\n".join(nb.cells[i].source for i in exercise.checks)
        assert any(call in checks for call in FEEDBACK), f"{exercise.label}: checks give no feedback"
        functions += "raise NotImplementedError" in coursework.stub(nb, exercise)
    assert functions >= 1, f"{path.name}: no exercise asks the reader to write a function"


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_every_solution_passes_every_check(path):
    scores = coursework.grade(read(path))
    assert not failing(scores), {label: scores[label][2] for label in failing(scores)}


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_student_version_holds_no_solution_and_fails_every_check(path):
    nb = read(path)
    student = coursework.student_version(nb)
    text = "\n".join(cell.source for cell in student.cells)
    leaked = [line for line in coursework.solution_lines(nb) if line in text]
    assert not leaked, leaked[:3]
    assert all(not cell.get("outputs") for cell in student.cells if cell.cell_type == "code")
    for cell in student.cells:
        if cell.cell_type == "code":
            ast.parse(cell.source)
    scores = coursework.grade(student)
    assert set(scores) == {e.label for e in coursework.exercises(nb)}
    assert failing(scores) == set(scores), f"checks passed with no answer: {set(scores) - failing(scores)}"
    for _, _, message in scores.values():  # the feedback says what to do, not only that it failed
        assert "ExerciseFeedback" in message and ("not written yet" in message or "no answer yet" in message)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_a_slightly_wrong_answer_is_caught(path):
    nb = read(path)
    scores = coursework.grade(coursework.with_wrong_answers(nb))
    assert failing(scores) == set(scores), f"a 1% error passed the checks of {set(scores) - failing(scores)}"


def test_grading_a_filled_in_student_notebook_counts_each_exercise():
    nb = read(PAGES[0])
    student = coursework.student_version(nb)
    first = coursework.exercises(nb)[0]
    solved = "\n".join(nb.cells[i].source for i in first.solution if nb.cells[i].cell_type == "code")
    stub_index = next(i for i, cell in enumerate(student.cells) if cell.cell_type == "code"
                      and cell.source == coursework.stub(nb, first))
    student.cells[stub_index].source = solved
    scores = coursework.grade(student)
    assert failing(scores) == set(scores) - {first.label}


def generators_borrowed(nb):
    """``(exercise, name)`` for each set-up cell that draws from a generator made outside its exercise.

    Grading runs the set-up cells twice, as the student's notebook and in the grader, and what ran
    before them differs between the two (practice checks, the student's own draws): givens drawn from
    an earlier generator would differ too.  A name counts as a generator when any cell of the page
    assigns it ``...default_rng(...)``.
    """
    generators = set()
    for cell in nb.cells:
        if cell.cell_type == "code":
            for node in ast.walk(ast.parse(cell.source)):
                if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                        getattr(node.value.func, "attr", getattr(node.value.func, "id", None)) == "default_rng":
                    generators |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    borrowed = []
    for exercise in coursework.exercises(nb):
        made = set()
        for index in exercise.setup:
            for statement in ast.parse(nb.cells[index].source).body:
                loads = {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
                borrowed += [(exercise.label, name) for name in sorted(loads & generators - made)]
                made |= {n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return borrowed


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_set_up_cells_draw_only_from_generators_their_exercise_makes(path):
    assert generators_borrowed(read(path)) == []


def test_a_set_up_cell_that_borrows_the_pages_generator_is_caught():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("rng = np.random.default_rng(7)"),
        nbformat.v4.new_markdown_cell("```{exercise} One\n:label: ex-one\n```"),
        nbformat.v4.new_code_cell("tree = dl.random_tree(4, rng)"),
        nbformat.v4.new_markdown_cell("```{solution-start} ex-one\n```"),
        nbformat.v4.new_code_cell("x = 1"),
        nbformat.v4.new_markdown_cell("```{solution-end}\n```"),
        nbformat.v4.new_code_cell("check_answer(x, 1, 'x')"),
        nbformat.v4.new_markdown_cell("```{exercise} Two\n:label: ex-two\n```"),
        nbformat.v4.new_code_cell("rng = np.random.default_rng(8)\ntree = dl.random_tree(4, rng)"),
        nbformat.v4.new_markdown_cell("```{solution-start} ex-two\n```"),
        nbformat.v4.new_code_cell("y = 1"),
        nbformat.v4.new_markdown_cell("```{solution-end}\n```"),
        nbformat.v4.new_code_cell("check_answer(y, 1, 'y')"),
    ])
    assert generators_borrowed(nb) == [("ex-one", "rng")]
