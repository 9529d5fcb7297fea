"""Find stored notebook outputs and checks that depend on the machine's round-off.

nbval compares every stored text output exactly, so a notebook may only print what is the same
on every IEEE-754 machine, whatever BLAS kernel it picks. Two rules catch what is not:

1. **Digits of tiny numbers.** A compared text output (stream, text/plain, HTML, LaTeX, Markdown,
   an error's message) holds a non-zero number below ``1e-9`` in magnitude printed with its
   digits (``4.8e-17``, ``3e-13``, ``0.0000000002``, ``2.5 \\cdot 10^{-12}``). What is allowed is a
   bound: a power of ten after a word or sign that makes it one (``below 1e-12``,
   ``< 1e-15``, ``to 1e-12``, ``rtol=1e-10``).
2. **Tolerances counted in units in the last place.** An ``assert`` in a code cell that bounds
   an error by ``ulp``, ``np.spacing`` or machine epsilon without a condition number
   (``cond``) in the same comparison: round-off is not a count of ulps once a problem is
   ill-conditioned, and the count changes with the kernel.

Cells tagged ``nbval-ignore-output`` are not compared by nbval, so rule 1 skips them (their
checks still count under rule 2). Run ``python tools/portable_outputs.py [paths...]``; the tests
run it on every notebook of the book and on copies of cells that once broke this way.
"""

import json
import pathlib
import re
import sys

TINY = 1e-9
TEXT_TYPES = ("text/plain", "text/html", "text/latex", "text/markdown")

_NUMBER = re.compile(
    r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)"      # 4.8e-17, 3E-13
    r"|(?<![\w.])[-+]?0\.0{8,}\d+"                              # 0.0000000002 (eight or more zeros)
    r"|(?<![\w.])[-+]?\d+(?:\.\d+)?\s*\\(?:cdot|times)\s*10\^\{-?\d+\}"  # 2.5 \cdot 10^{-12}
)
_BOUND_BEFORE = re.compile(
    r"(?:below|under|above|over|than|within|to|most|least|tolerance|tol|rtol|atol|"
    r"[<>≤≥=]|\\le|\\ge|\\lt|\\gt|<=|>=)\s*[=:]?\s*$",
    re.IGNORECASE,
)
_MACHINE_ROUND_OFF = re.compile(r"\bulp\w*|np\.spacing\(|finfo\([^)]*\)\.eps\b")


def _value(token):
    """The number a token spells (LaTeX ``a \\cdot 10^{b}`` included)."""
    latex = re.match(r"([-+]?\d+(?:\.\d+)?)\s*\\(?:cdot|times)\s*10\^\{(-?\d+)\}", token)
    if latex:
        return float(latex[1]) * 10.0 ** int(latex[2])
    return float(token)


def _is_power_of_ten(token):
    mantissa = re.split(r"[eE]|\\cdot|\\times", token)[0].strip().lstrip("+-")
    return re.fullmatch(r"1(?:\.0*)?", mantissa) is not None


def tiny_digits(text):
    """Numbers in ``text`` below ``TINY`` printed with their digits, each with its context."""
    found = []
    for match in _NUMBER.finditer(text):
        token = match.group(0)
        value = abs(_value(token))
        if value == 0 or value >= TINY:
            continue
        before = text[max(0, match.start() - 16) : match.start()]
        if _is_power_of_ten(token) and _BOUND_BEFORE.search(before):
            continue
        line_start = text.rfind("\n", 0, match.start()) + 1
        line_end = text.find("\n", match.end())
        found.append((token, text[line_start : line_end if line_end >= 0 else None][:160]))
    return found


def compared_texts(cell):
    """The text of a code cell's outputs that nbval compares."""
    for out in cell.get("outputs", []):
        kind = out["output_type"]
        if kind == "stream":
            yield "".join(out["text"])
        elif kind in ("execute_result", "display_data"):
            for mime in TEXT_TYPES:
                if mime in out.get("data", {}):
                    yield "".join(out["data"][mime])
        elif kind == "error":
            yield f"{out.get('ename', '')}: {out.get('evalue', '')}"


def ulp_assertions(source, round_off_names=()):
    """Lines of ``source`` that assert a bound counted in ulps or machine epsilons, without ``cond``."""
    names = set(round_off_names)
    for line in source.splitlines():  # names bound to machine epsilon or spacings: eps = np.finfo(float).eps
        assigned = re.match(r"\s*(\w+)\s*=\s*(.+)", line)
        if assigned and _MACHINE_ROUND_OFF.search(assigned[2]):
            names.add(assigned[1])
    words = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(names))) + r")\b") if names else None
    bad = []
    for line in source.splitlines():
        code = line.split("#", 1)[0]
        if not re.search(r"\bassert\b", code):
            continue
        for clause in re.split(r"\b(?:and|or)\b|,", code):  # each comparison needs its own cond
            if "cond" not in clause and (_MACHINE_ROUND_OFF.search(clause) or (words and words.search(clause))):
                bad.append(line.strip())
                break
    return bad, names


def cell_findings(cell, round_off_names=()):
    """Findings of one cell: (rule, excerpt) pairs, and the round-off names it defines."""
    findings = []
    tags = cell.get("metadata", {}).get("tags", [])
    if cell.get("cell_type") != "code":
        return findings, set(round_off_names)
    if "nbval-ignore-output" not in tags:
        for text in compared_texts(cell):
            for token, context in tiny_digits(text):
                findings.append(("digits of a number below 1e-9", f"{token!r} in: {context}"))
    bad, names = ulp_assertions("".join(cell.get("source", "")), round_off_names)
    findings += [("an assertion counted in ulps or machine epsilons, without cond", line) for line in bad]
    return findings, names


def notebook_findings(notebook):
    """Findings of a notebook (a parsed .ipynb): (code cell index, rule, excerpt)."""
    found, names, index = [], set(), -1
    for cell in notebook["cells"]:
        if cell["cell_type"] != "code":
            continue
        index += 1
        cell_found, names = cell_findings(cell, names)
        found += [(index, rule, excerpt) for rule, excerpt in cell_found]
    return found


def main(paths):
    files = []
    for path in map(pathlib.Path, paths or ["chapters", "exercises", "book"]):
        files += sorted(path.rglob("*.ipynb")) if path.is_dir() else [path]
    failures = 0
    for path in files:
        for index, rule, excerpt in notebook_findings(json.loads(path.read_text())):
            print(f"{path} code cell {index}: {rule}: {excerpt}")
            failures += 1
    if failures:
        print(f"{failures} stored outputs or checks depend on round-off; print bounds or exact values instead "
              "(see CONTRIBUTING.md, 'Portable outputs')")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
