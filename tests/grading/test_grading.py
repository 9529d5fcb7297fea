"""Grading one assignment as a class would hand it in: right, wrong, and every cheat and failure found.

The course is written from one exercise page (generate -> release), a submission is made for each
kind of student below, and all of them are graded in one run (``tools/assignments.py grade``: each
notebook in a sandboxed kernel, the verdicts computed in the grading process).  Each test asserts
the fair score of one kind: a cheat scores what its honest work is worth, never more; a student's
notebook cannot change anyone else's grade, the gradebook, the library or the course.
"""

import copy
import csv
import hashlib
import json
import sys
import time
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import assignments  # noqa: E402

PAGE = ROOT / "exercises" / "05_inverse_dynamics_exercises.ipynb"
NAME = "05_inverse_dynamics"
SECRET = 4242
CELL_TIMEOUT = 20  # seconds per cell when graded: the endless loops below are stopped after this
LIBRARY_FILE = ROOT / "dynlib" / "course" / "exercises.py"


def answer_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")]


def check_cells(nb):
    return [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"]


def grade_id(cell):
    return cell.metadata["nbgrader"]["grade_id"]


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


def with_cell(nb, after, text, metadata=None):
    """``nb`` with a code cell of the student's own after its cell number ``after``."""
    nb = copy.deepcopy(nb)
    cell = nbformat.v4.new_code_cell(text)
    cell.metadata.update(metadata or {})
    nb.cells.insert(after + 1, cell)
    return nb


FAKE_SPEC = """\
import os, dynlib, importlib.util
os.makedirs('fake/course', exist_ok=True)
open('fake/course/exercises.py', 'w').write('def check_answer(*a, **k): pass\\n'
                                            'check_function = check_property = answered = check_answer\\n')
dynlib.__spec__ = importlib.util.spec_from_file_location('dynlib', 'fake/__init__.py')"""

READS_CHECK_VARIABLES = """\
    import inspect
    frame = inspect.currentframe()
    while frame is not None:
        if 'expected' in frame.f_globals:
            return frame.f_globals['expected'][id(model)]
        frame = frame.f_back
    f = f_body.copy()"""

READS_THE_COURSE = """\
import glob, os
places = ['{root}', '{root}/source', '{root}/instructor/secret.json', '{root}/gradebook.db', os.path.dirname('{root}')]
found = [p for p in places if os.path.exists(p)] + glob.glob('/tmp/**/instructor', recursive=True)
print('found', found)"""

BACKGROUND = """\
import subprocess, sys
attack = '''
import sqlite3, time
time.sleep(2)
db = sqlite3.connect({gradebook!r})
db.execute('update grade set manual_score = 100')
db.commit()
open({classmate!r}, 'w').write('{{}}')
open({library!r}, 'a').write('raise SystemExit')
'''
subprocess.Popen([sys.executable, '-c', attack], start_new_session=True)"""


def digest(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("course") / "course"
    assignments.write_course(root, secret=SECRET, pages=[PAGE])
    release = nbformat.read(root / "release" / NAME / PAGE.name, as_version=4)
    source = nbformat.read(root / "source" / NAME / PAGE.name, as_version=4)
    right, wrong = assignments.filled(release, source), unanswered(release)
    answers = answer_cells(right)
    exercise = {i: grade_id(c).removesuffix("-answer") for i, c in enumerate(answers)}
    columns = next(i for i, c in enumerate(answers) if "mass_matrix_by_columns" in c.source)
    folder = tmp_path_factory.mktemp("submitted")
    paths = {s: folder / s / NAME / PAGE.name for s in ("right", "wrong", "background", "classmate")}
    gradebook = root / "gradebook.db"

    def right_but(index, old, new):
        nb = copy.deepcopy(right)
        cell = answer_cells(nb)[index]
        assert old in cell.source
        cell.source = cell.source.replace(old, new)
        return nb

    renamed, ungraded, extra = copy.deepcopy(right), copy.deepcopy(right), copy.deepcopy(right)
    check_cells(renamed)[0].metadata["nbgrader"]["grade_id"] = "my-own-check"
    check_cells(ungraded)[0].metadata["nbgrader"]["grade"] = False
    extra.cells.insert(3, nbformat.v4.new_code_cell("print('full marks please')", metadata={"nbgrader": {
        "grade": True, "grade_id": "bonus", "locked": False, "points": 100, "schema_version": 3, "solution": False}}))
    library_before = digest(LIBRARY_FILE)
    submissions = {
        "right": right,
        "wrong": wrong,
        "blank": release,
        "patched_names": prefixed(wrong, 0, "check_answer = check_function = check_property = answered = "
                                            "lambda *a, **k: None"),
        "patched_module": prefixed(wrong, 0, "import dynlib.course.exercises as E\n"
                                             "E.check_answer = E.check_function = E.check_property = E.answered = "
                                             "lambda *a, **k: None\nfrom dynlib.course.exercises import *"),
        "fake_spec": prefixed(wrong, 0, FAKE_SPEC),
        "input_transformer": prefixed(wrong, 0, "get_ipython().input_transformers_cleanup.append("
                                                "lambda lines: ['pass\\n'])"),
        "replaced_reference": prefixed(wrong, 0, "import numpy as np\ndl.crba = lambda model, q: None\n"
                                                 "dl.rnea = lambda *a, **k: None\ndl.joint_wrenches = dl.rnea"),
        "reads_check_variables": right_but(0, "    f = f_body.copy()", READS_CHECK_VARIABLES),
        "reads_the_course": prefixed(release, 0, READS_THE_COURSE.format(root=str(root))),
        "background": prefixed(release, 0, BACKGROUND.format(gradebook=str(gradebook), library=str(LIBRARY_FILE),
                                                             classmate=str(paths["classmate"]))),
        "classmate": right,
        "overwrites_classmate": prefixed(release, 0, f"open({str(paths['classmate'])!r}, 'w').write('{{}}')"),
        "library_append": prefixed(release, 0, f"open({str(LIBRARY_FILE)!r}, 'a').write("
                                               "'\\ncheck_answer = check_function = lambda *a, **k: None\\n')"),
        "network": prefixed(right, 0, "import socket\ntry:\n    socket.create_connection(('127.0.0.1', 22), 2)\n"
                                      "    print('network reached')\nexcept OSError as exc:\n"
                                      "    print('no network', exc)"),
        "forbidden_default": right_but(columns, "def mass_matrix_by_columns(model, q):",
                                       "def mass_matrix_by_columns(model, q, _keep=dl.crba):\n"
                                       "    return _keep(model, q)"),
        "forbidden_list": with_cell(right_but(columns, "def mass_matrix_by_columns(model, q):",
                                              "def mass_matrix_by_columns(model, q):\n    return kept[0](model, q)"),
                                    2, "kept = [dl.crba]"),
        "os_exit": prefixed(right, 0, "import os\nos._exit(0)"),
        "swallows_interrupts": prefixed(right, 1, "while True:\n    try:\n        pass\n"
                                                  "    except BaseException:\n        pass"),
        "renamed_check": renamed,
        "ungraded_check": ungraded,
        "extra_graded_cell": extra,
        "with_magics": with_cell(right, 1, "%timeit -n 1 -r 1 sum(range(10))\nfrom IPython.display import display\n"
                                           "display('a display call')"),
    }
    for student, nb in submissions.items():
        path = folder / student / NAME / PAGE.name
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)
    (paths["right"].parent / "timestamp.txt").write_text("2026-11-20 09:30:00.000000 UTC")
    corrupt = folder / "corrupt" / NAME / PAGE.name
    corrupt.parent.mkdir(parents=True)
    corrupt.write_text('{"cells": [')
    classmate_before = digest(paths["classmate"])
    started = time.monotonic()
    csv_path = assignments.grade(root, folder, jobs=2, cell_timeout=CELL_TIMEOUT)
    seconds = time.monotonic() - started
    rows = {row["student"]: row for row in csv.DictReader(csv_path.open())}
    results = {p.parent.parent.name: json.loads(p.read_text())
               for p in (root / "results").glob(f"*/{NAME}/result.json")}
    return dict(root=root, rows=rows, results=results, release=release, source=source, exercise=exercise,
                columns=exercise[columns], students=[*submissions, "corrupt"], folder=folder, seconds=seconds,
                classmate_before=classmate_before, classmate=paths["classmate"], library_before=library_before)


def scores(graded, student):
    """The autograded points of each exercise, from the check cells' results."""
    out = {}
    for check in graded["results"][student]["checks"].values():
        out[check["exercise"]] = out.get(check["exercise"], 0) + check["score"]
    return out


def full(graded):
    return scores(graded, "right")


def test_every_submission_is_graded_in_one_run_and_exported(graded):
    assert set(graded["rows"]) == set(graded["students"])
    assert {row["max"] for row in graded["rows"].values()} == {"17"}
    assert {row["autograded_max"] for row in graded["rows"].values()} == {"12"}
    feedback = graded["root"] / "feedback"
    assert all(list((feedback / s / NAME).glob("*.html")) for s in graded["students"] if s != "corrupt")


def test_the_right_submission_gets_every_autograded_point(graded):
    row = graded["rows"]["right"]
    assert row["status"] == "graded" and row["autograded"] == "12" and row["to_grade_by_hand"] == "5"
    assert row["submitted"].startswith("2026-11-20 09:30:00")
    assert all(float(row[e]) == 2 for e in graded["exercise"].values())


@pytest.mark.parametrize("student", ["wrong", "blank", "patched_names", "patched_module", "fake_spec",
                                     "input_transformer", "replaced_reference", "reads_the_course", "background",
                                     "overwrites_classmate", "library_append"])
def test_wrong_or_blank_work_scores_zero_however_it_tampers(graded, student):
    assert graded["rows"][student]["status"] == "graded"
    assert graded["rows"][student]["autograded"] == "0", graded["results"][student]["checks"]


def test_reading_the_checks_own_variables_gives_nothing(graded):
    mine = scores(graded, "reads_check_variables")
    first = graded["exercise"][0]
    assert mine[first] == 0 and all(mine[e] == full(graded)[e] for e in mine if e != first)


def test_nothing_a_notebook_does_reaches_the_gradebook_a_classmate_or_the_library(graded):
    time.sleep(3)  # the background process would have struck by now
    assert digest(graded["classmate"]) == graded["classmate_before"]
    assert digest(LIBRARY_FILE) == graded["library_before"]
    assert graded["rows"]["classmate"]["autograded"] == "12"
    assert graded["rows"]["background"]["manual"] == "0"
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{graded['root'] / 'gradebook.db'}") as gradebook:
        assert all(g.manual_score is None for s in gradebook.find_assignment(NAME).submissions
                   for n in s.notebooks for g in n.grades)


def outputs(graded, student):
    nb = nbformat.read(graded["root"] / "results" / student / NAME / PAGE.name, as_version=4)
    return "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))


def test_the_course_cannot_be_read_from_a_notebook(graded):
    assert "found []" in outputs(graded, "reads_the_course")


def test_the_sandbox_has_no_network(graded):
    text = outputs(graded, "network")
    assert "no network" in text and "network reached" not in text
    assert graded["rows"]["network"]["autograded"] == "12"


@pytest.mark.parametrize("student", ["forbidden_default", "forbidden_list"])
def test_a_kept_copy_of_a_forbidden_function_is_caught_and_said(graded, student):
    mine, columns = scores(graded, student), graded["columns"]
    assert mine[columns] == 0 and all(mine[e] == full(graded)[e] for e in mine if e != columns)
    lines = [line for c in graded["results"][student]["checks"].values() if c["exercise"] == columns
             for line in c["lines"]]
    assert any("`dl.crba`" in line and "do without" in line for line in lines), lines


def test_a_notebook_that_kills_its_kernel_loses_only_that_exercise(graded):
    mine, first = scores(graded, "os_exit"), graded["exercise"][0]
    assert mine[first] == 0 and all(mine[e] == full(graded)[e] for e in mine if e != first)
    assert graded["results"]["os_exit"]["restarts"] >= 1


def test_a_loop_that_swallows_interrupts_is_killed_and_costs_only_its_exercise(graded):
    mine, second = scores(graded, "swallows_interrupts"), graded["exercise"][1]
    assert mine[second] == 0 and all(mine[e] == full(graded)[e] for e in mine if e != second)
    assert graded["results"]["swallows_interrupts"]["seconds"] < 6 * CELL_TIMEOUT


@pytest.mark.parametrize("student", ["renamed_check", "ungraded_check", "extra_graded_cell", "with_magics"])
def test_edited_cell_metadata_and_notebook_extras_change_nothing(graded, student):
    assert graded["rows"][student]["status"] == "graded"
    assert graded["rows"][student]["autograded"] == "12" and graded["rows"][student]["max"] == "17"


def test_a_notebook_that_cannot_be_read_is_failed_to_grade_never_zero(graded):
    row = graded["rows"]["corrupt"]
    assert row["status"] == "failed to grade" and row["reason"] and row["autograded"] == "" and row["total"] == ""


def test_no_score_exceeds_its_maximum(graded):
    for result in graded["results"].values():
        assert all(0 <= c["score"] <= c["max"] for c in result["checks"].values())


def test_feedback_shows_results_and_hints_never_hidden_checks_or_the_secret(graded):
    hidden = [line.strip() for c in nbformat.read(PAGE, as_version=4).cells if c.cell_type == "code"
              for line in c.source.splitlines() if "np.argmax" in line or "expected[id(tree)] =" in line]
    assert hidden
    for page in (graded["root"] / "feedback").rglob("*.html"):
        text = page.read_text()
        assert str(SECRET) not in text and "__hidden_seed__" not in text
        assert not any(line in text for line in hidden), page
    wrong = next((graded["root"] / "feedback" / "wrong" / NAME).glob("*.html")).read_text()
    assert "Hint" in wrong and "0 of 2 points" in wrong


def test_grading_again_drops_students_no_longer_submitted(graded, tmp_path, capsys):
    folder = tmp_path / "again"
    (folder / "right" / NAME).mkdir(parents=True)
    (folder / "right" / NAME / PAGE.name).write_bytes((graded["folder"] / "right" / NAME / PAGE.name).read_bytes())
    capsys.readouterr()
    path = assignments.grade(graded["root"], folder, jobs=1, cell_timeout=CELL_TIMEOUT)
    out = capsys.readouterr().out
    assert "dropped wrong / 05_inverse_dynamics: no longer among the submissions" in out
    assert "[  1/1] right / 05_inverse_dynamics: 12/12" in out and "elapsed" in out
    assert {row["student"] for row in csv.DictReader(path.open())} == {"right"}


def test_grading_with_another_secret_is_refused(graded, tmp_path):
    with pytest.raises(assignments.CourseError, match="not the secret this course was written with"):
        assignments.grade(graded["root"], tmp_path, secret=SECRET + 1)


def test_a_course_that_cannot_be_written_says_why_and_keeps_the_previous_one(graded, tmp_path):
    page = nbformat.read(PAGE, as_version=4)
    for cell in page.cells:
        cell.source = cell.source.replace("predictions = (1, 1, 2)", "predictions = (1, 1, 1)")
    broken = tmp_path / PAGE.name
    nbformat.write(page, broken)
    before = digest(graded["root"] / "source" / NAME / PAGE.name)
    with pytest.raises(assignments.CourseError, match="does not run cleanly: cell 22: .*situation 3"):
        assignments.write_course(graded["root"], secret=SECRET, pages=[broken])
    assert digest(graded["root"] / "source" / NAME / PAGE.name) == before
    assert not list(graded["root"].parent.glob(".course-*"))
