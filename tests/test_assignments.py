"""tools/assignments.py without nbgrader: what a student's check cell keeps, what the hidden tests change."""

import ast
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

import assignments  # noqa: E402
import verdicts  # noqa: E402

from dynlib.course.exercises import ExerciseFeedback, Fingerprint, Fingerprints, Withheld, check_answer  # noqa: E402

CHECK = '''\
answered(tip=tip)
reference = 2 * np.pi * radius
check_answer(tip, reference + 1, "the tip", hint="think")
for k, case in enumerate(cases):
    hardest = int(np.argmax(case))
    check_answer(picks[k], hardest, f"case {k}")
mine(cases)
log.append(1)
'''


def test_a_student_check_keeps_the_checks_and_drops_what_only_computed_the_answer():
    fingerprints = [Fingerprint.of(3.0), Fingerprints(Fingerprint.of(0).code, Fingerprint.of(2).code)]
    text = assignments.student_check(CHECK, fingerprints)
    ast.parse(text)
    assert "2 * np.pi" not in text and "np.argmax" not in text and "reference" not in text
    assert "answered(tip=tip)" in text and "mine(cases)" in text and "log.append(1)" in text
    assert "_expected_1 = Fingerprints(" in text and "check_answer(picks[k], _expected_1.next()" in text
    assert text.startswith("from dynlib.course.exercises import Fingerprint, Fingerprints\n")


def test_fingerprints_of_a_loop_are_handed_out_in_turn():
    expected = assignments.fingerprint([1.5, 3.25, 2.0])
    for value in (1.5, 3.25, 2.0):
        check_answer(value, expected.next(), "a value")
    with pytest.raises(ExerciseFeedback, match="not right yet"):
        check_answer(2.0, expected.next(), "a value")
    assert isinstance(assignments.fingerprint([0.5]), Fingerprint)


def test_a_prediction_among_few_choices_is_only_checked_for_its_form(capsys):
    expected = assignments.fingerprint([1, 3, 2])  # "which joint": trying 1, 2, 3 would find it
    assert isinstance(expected, Withheld) and "Fingerprint" not in repr(expected)
    check_answer(2, expected, "situation 1")
    assert "graded after you hand it in" in capsys.readouterr().out
    with pytest.raises(ExerciseFeedback, match="expected a whole number"):
        check_answer(2.5, expected, "situation 1")
    sequence = assignments.fingerprint([(1, 2, 2)])
    with pytest.raises(ExerciseFeedback, match="of length 3"):
        check_answer((1, 2), sequence, "the three predictions")
    assert isinstance(assignments.fingerprint([True]), Withheld)


def test_graded_checks_move_every_seed_a_generator_included():
    import numpy as np

    import dynlib as dl

    source = ("rng = np.random.default_rng(7)\ntree = dl.random_tree(5, 3, branching=0.5)\n"
              "other = dl.random_tree(4, rng)\nfresh = np.random.default_rng()\n")
    moved = verdicts.hidden_source(source)
    assert "default_rng(__hidden_seed__(7, 1))" in moved and "random_tree(5, __hidden_seed__(3, 2)" in moved
    assert "random_tree(4, __hidden_seed__(rng, 3))" in moved and "default_rng(__hidden_seed__(None, 4))" in moved
    secret = verdicts.Secret(1234, "05_inverse_dynamics")
    space = {"np": np, "dl": dl, "__hidden_seed__": lambda seed, site: seed if isinstance(seed, np.random.Generator)
             else secret.number("cell", site, repr(seed)) % 2**32}
    exec(moved, space)  # a generator passed as the seed (the bug of page 02) is used as it is
    assert space["tree"].n_bodies == 5 and space["other"].n_bodies == 4


def test_each_assignment_draws_its_own_cases_from_the_secret():
    one, other = verdicts.Secret(1234, "01_screws"), verdicts.Secret(1234, "02_rigid_motion")
    assert one.number("cell", 1) != other.number("cell", 1)
    assert one.number("cell", 1) == verdicts.Secret(1234, "01_screws").number("cell", 1)
    assert one.number("cell", 1) != verdicts.Secret(1235, "01_screws").number("cell", 1)


def test_an_answer_cell_keeps_the_signature_and_docstring_and_marks_the_solution():
    import nbformat

    page = nbformat.read(Path(__file__).resolve().parents[1] / "exercises" / "05_inverse_dynamics_exercises.ipynb",
                         as_version=4)
    exercise = assignments.coursework.exercises(page)[0]
    text = assignments.answer_source(page, exercise)
    head, solution = text.split("### BEGIN SOLUTION")
    assert head.lstrip().startswith("def inward_pass(model, s, f_body):") and '"""' in head
    assert "### END SOLUTION" in solution and "raise NotImplementedError" not in text


PAGES = sorted((Path(__file__).resolve().parents[1] / "exercises").glob("*.ipynb"))


def page_of(setup, solution, check):
    import nbformat

    cells = [nbformat.v4.new_code_cell("import numpy as np\nfrom dynlib.course.exercises import *"),
             nbformat.v4.new_markdown_cell("```{exercise} One\n:label: ex-one\n```"),
             nbformat.v4.new_code_cell(setup),
             nbformat.v4.new_markdown_cell("```{solution-start} ex-one\n```"),
             nbformat.v4.new_code_cell(solution),
             nbformat.v4.new_markdown_cell("```{solution-end}\n```"),
             nbformat.v4.new_code_cell(check)]
    return nbformat.v4.new_notebook(cells=cells)


def test_a_practice_check_that_keeps_an_answer_in_a_variable_is_caught():
    leaky = page_of("side = 1.25", "area = side ** 2 * 3.0",
                    "answered(area=area)\nreference = 3.0 * side ** 2\n"
                    "check_property(abs(area - reference) < 1e-9, 'the area is right')")
    assert assignments.leaks(leaky) == [("ex-one", "reference", "ex-one: area")]
    kept_in_a_dict = page_of("side = 1.25", "area = side ** 2 * 3.0",
                             "answered(area=area)\nreference = {'area': 3.0 * side ** 2, 'side': side}\n"
                             "check_property(abs(area - reference['area']) < 1e-9, 'the area is right')")
    assert assignments.leaks(kept_in_a_dict) == [("ex-one", "reference['area']", "ex-one: area")]
    tight = page_of("side = 1.25", "area = side ** 2 * 3.0",
                    "answered(area=area)\ncheck_answer(area, 3.0 * side ** 2, 'the area')")
    assert assignments.leaks(tight) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.stem)
def test_no_practice_check_leaves_an_answer_behind(page):
    """The student's copies (release and student book) run with wrong answers keep no right one."""
    import nbformat

    assert assignments.leaks(nbformat.read(page, as_version=4)) == []


def test_a_sandbox_started_from_a_symlinked_environment_runs_its_real_python(tmp_path):
    """A course cloned beside its environments (``.venv-grading`` a link to another folder) grades too: the
    sandbox sees only the environment's real folder, so it must start the python found there."""
    import sandbox

    real = tmp_path / "environments" / "grading" / "bin"
    real.mkdir(parents=True)
    (real / "python").write_text("")
    (tmp_path / "clone").mkdir()
    (tmp_path / "clone" / ".venv-grading").symlink_to(real.parent)
    box = sandbox.Sandbox(python=tmp_path / "clone" / ".venv-grading" / "bin" / "python")
    assert box.python == str(real.resolve() / "python")
