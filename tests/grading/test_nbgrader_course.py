"""The instructor's path with nbgrader on one assignment, and what students try to fool it.

generate (tools/assignments.py course) -> release -> submissions -> autograde -> feedback -> export.
Each submission below is graded in one batch; nbgrader runs every notebook in a kernel of its own
with a per-cell timeout, restores the locked check cells from the instructor's copy and runs their
hidden part, so what one student's notebook does cannot reach another's.
"""

import copy
import csv
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import assignments  # noqa: E402

PAGE = ROOT / "exercises" / "05_inverse_dynamics_exercises.ipynb"
NAME = "05_inverse_dynamics"
TIMEOUT = 20  # seconds per cell when graded: the endless loop below is stopped after this


def answer_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")]


def check_cells(nb):
    return [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"]


def exercise_of(grade_id):
    return grade_id.split("-check-")[0].split("-answer")[0]


def unanswered(release):
    """The release with every function answer returning None instead of raising: wrong but running."""
    nb = copy.deepcopy(release)
    for cell in answer_cells(nb):
        cell.source = "\n".join(
            line.replace("raise NotImplementedError()", "return None" if line.startswith(" ") else "pass")
            for line in cell.source.splitlines())
    return nb


def prefixed(nb, index, text):
    nb = copy.deepcopy(nb)
    cell = answer_cells(nb)[index]
    cell.source = text + "\n" + cell.source
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    assignments.write_course(root, seed=4242, pages=[PAGE], timeout=TIMEOUT)
    release = nbformat.read(root / "release" / NAME / PAGE.name, as_version=4)
    source = nbformat.read(root / "source" / NAME / PAGE.name, as_version=4)
    right, wrong = assignments.filled(release, source), unanswered(release)
    first, second = (exercise_of(c.metadata["nbgrader"]["grade_id"]) for c in answer_cells(release)[:2])

    edited = copy.deepcopy(wrong)
    checks = check_cells(edited)
    checks[0].source = "pass"
    del checks[1].metadata["nbgrader"]
    with_magics = copy.deepcopy(right)
    with_magics.cells.insert(1, nbformat.v4.new_code_cell(
        "%timeit -n 1 -r 1 sum(range(10))\nfrom IPython.display import display\ndisplay('a display call')"))
    submissions = {
        "right": right,
        "wrong": wrong,
        "patched_names": prefixed(wrong, 0, "check_answer = check_function = check_property = answered = "
                                            "lambda *a, **k: None"),
        "patched_module": prefixed(wrong, 0, "import dynlib.course.exercises as E\n"
                                             "E.check_answer = E.check_function = E.check_property = E.answered = "
                                             "lambda *a, **k: None\n"
                                             "from dynlib.course.exercises import *"),
        "edited_checks": edited,
        "system_exit": prefixed(right, 0, "raise SystemExit(0)"),
        "endless_loop": prefixed(right, 1, "try:\n    while True:\n        pass\nexcept Exception:\n    pass"),
        "with_magics": with_magics,
    }
    folder = tmp_path_factory.mktemp("submitted")
    for student, nb in submissions.items():
        (folder / student / NAME).mkdir(parents=True)
        nbformat.write(nb, folder / student / NAME / PAGE.name)
    csv_path = assignments.grade(root, folder)

    from nbgrader.api import Gradebook

    scores = {}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gradebook:
        for student in submissions:
            for cell in check_cells(source):
                grade_id = cell.metadata["nbgrader"]["grade_id"]
                grade = gradebook.find_grade(grade_id, PAGE.stem, NAME, student)
                scores[student, grade_id] = (grade.auto_score, grade.max_score)
    rows = {row["student_id"]: row for row in csv.DictReader(csv_path.open())}
    return dict(root=root, scores=scores, rows=rows, checks=[c.metadata["nbgrader"]["grade_id"]
                                                             for c in check_cells(source)],
                first=first, second=second, students=list(submissions), release=release, source=source)


def auto(graded, student, only=None, skip=()):
    return [graded["scores"][student, g] for g in graded["checks"]
            if (only is None or exercise_of(g) == only) and exercise_of(g) not in skip]


def test_every_submission_is_graded_in_one_batch_and_exported(graded):
    assert set(graded["rows"]) == set(graded["students"])
    maxima = {float(row["max_score"]) for row in graded["rows"].values()}
    assert len(maxima) == 1, "a submission changed the assignment's total"
    feedback = graded["root"] / "feedback"
    assert all(list((feedback / s / NAME).glob("*.html")) for s in graded["students"])


def test_the_right_submission_gets_every_autograded_point(graded):
    assert all(score == maximum > 0 for score, maximum in auto(graded, "right"))


@pytest.mark.parametrize("student", ["wrong", "patched_names", "patched_module", "edited_checks"])
def test_wrong_answers_score_zero_however_the_checks_are_tampered_with(graded, student):
    # a test cell whose metadata was removed is restored ungraded (no score): it counts as zero
    assert all((score or 0) == 0 for score, _ in auto(graded, student)), auto(graded, student)


def test_a_system_exit_costs_only_its_own_exercise(graded):
    assert all(score == 0 for score, _ in auto(graded, "system_exit", only=graded["first"]))
    assert all(score == m for score, m in auto(graded, "system_exit", skip=[graded["first"]]))


def test_an_endless_loop_is_stopped_and_costs_only_its_own_exercise(graded):
    assert all(score == 0 for score, _ in auto(graded, "endless_loop", only=graded["second"]))
    assert all(score == m for score, m in auto(graded, "endless_loop", skip=[graded["second"]]))


def test_ipython_magics_and_display_calls_are_fine(graded):
    assert all(score == m for score, m in auto(graded, "with_magics"))


def test_the_release_leaks_no_solution_and_no_expected_value(graded):
    release_text = "\n".join(c.source for c in graded["release"].cells)
    assert "BEGIN SOLUTION" not in release_text and "HIDDEN TESTS" not in release_text
    for cell in graded["source"].cells:
        if cell.metadata.get("nbgrader", {}).get("solution") and cell.cell_type == "code":
            solution = cell.source.split("### BEGIN SOLUTION")[1].split("### END SOLUTION")[0].strip()
            assert solution.splitlines()[0] not in release_text
    for cell in check_cells(graded["release"]):
        assert "dl.rnea(" not in cell.source or "check_function" in cell.source
        assert "np.argmax" not in cell.source  # the predicted joints are computed only in the hidden part
