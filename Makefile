# `make book` builds the HTML book; `make test` runs every check.  Both create a local
# virtual environment in .venv and install what they need first.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
BOOK_FLAGS := -W -n --keep-going --all

.PHONY: book pdf test unit notebooks kernels lint student assignments grade export grading browser fuzz bench clean help

help:
	@echo "make book   build the HTML book into _build/html"
	@echo "make pdf    build the whole book as a PDF (LaTeX) into _build/latex/book.pdf"
	@echo "make test   run every check (lint, unit tests and docstring examples, notebooks, book build)"
	@echo "make browser  visit every built page in headless Chromium (screenshots at a desktop and a phone width"
	@echo "            in _build/screenshots)"
	@echo "make student  student notebooks and a student book without solutions, in _build/student"
	@echo "make assignments  an nbgrader course from the exercises, in _build/course (release/ to hand out;"
	@echo "            ASSIGNMENT_SEED=<secret> moves the graded cases, kept in _build/course/instructor)"
	@echo "make grade [SUBMISSIONS=dir]  grade submissions, each in a sandbox (default: a right and a wrong sample):"
	@echo "            grades.csv and per-student feedback in _build/course"
	@echo "make export  feedback and grades.csv again, after grading the words answers by hand"
	@echo "make fuzz   fuzz the public API with 20,000 seeded bad and edge-case inputs (a 2,000-case slice runs in make unit)"
	@echo "make bench  time dynlib against Pinocchio, MuJoCo and Modern Robotics (not part of make test)"
	@echo "make clean  remove the build and the virtual environment"

$(VENV)/.installed: requirements.txt pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11 or newer is needed"'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.installed-test: $(VENV)/.installed requirements-test.txt
	$(BIN)/python -m pip install --quiet -r requirements-test.txt
	touch $@

# The widget manager and require.js, served from the book itself so saved widgets render
# offline; fetched once from the npm registry.  html-manager 1.0.15 is the release made with
# ipywidgets 8.1.9 / jupyterlab_widgets 3.0.17 (widget state 2.0, base 2.0.0, controls 2.0.0,
# output 1.0.0).  Changing a version re-fetches (the stamp file names both versions).
# book/extensions/offline_widgets points require.js at these files and bridges MathJax 3.
HTML_MANAGER := 1.0.15
REQUIREJS := 2.3.4
WIDGETS_JS := book/vendor/widgets
$(WIDGETS_JS)/embed-amd.js: $(WIDGETS_JS)/.html-manager-$(HTML_MANAGER)-requirejs-$(REQUIREJS) ;
$(WIDGETS_JS)/.html-manager-$(HTML_MANAGER)-requirejs-$(REQUIREJS):
	rm -rf $(WIDGETS_JS) _build/npm && mkdir -p $(WIDGETS_JS) _build/npm
	cd _build/npm && npm pack --silent @jupyter-widgets/html-manager@$(HTML_MANAGER) requirejs@$(REQUIREJS) >/dev/null
	tar xzf _build/npm/jupyter-widgets-html-manager-$(HTML_MANAGER).tgz -C _build/npm
	tar xzf _build/npm/requirejs-$(REQUIREJS).tgz -C _build/npm
	cp _build/npm/package/dist/embed-amd.js _build/npm/package/dist/*.woff* _build/npm/package/dist/*.ttf \
		_build/npm/package/dist/*.eot _build/npm/package/dist/*.svg $(WIDGETS_JS)/
	cp _build/npm/package/require.js $(WIDGETS_JS)/require.js
	touch $@

# After each build, tools/check_rendered.py reads the built text as a reader sees it and fails on
# raw TeX, MyST roles or Markdown tables in the prose (and on code lines broken across lines in print).
book: $(VENV)/.installed $(WIDGETS_JS)/embed-amd.js
	$(BIN)/jupyter-book build . $(BOOK_FLAGS)
	$(BIN)/python tools/check_rendered.py html _build/html
	@echo
	@echo "The book is built: open $(CURDIR)/_build/html/index.html in a browser."

# ruff for the Python; the GitHub Actions workflow against the workflow schema (vendored by check-jsonschema)
lint: $(VENV)/.installed-test
	$(BIN)/ruff check dynlib tests tools benchmarks
	$(BIN)/check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml

# numba compiles dynlib's kernels on first use and caches them beside the sources (any change to dynlib
# recompiles them all, about three minutes on two cores); compiling once here lets the parallel
# test workers and notebook kernels load the cache instead of each compiling its own copy.
kernels: $(VENV)/.installed
	$(BIN)/python -c "import dynlib; dynlib.compile_kernels()"

unit: $(VENV)/.installed-test /usr/bin/chromium /usr/bin/latexmk /usr/bin/pdftohtml kernels
	$(BIN)/python -m pytest -q -n 2

# The notebooks run with no network (tools/offline.sh): a stored output cannot depend on one.
notebooks: $(VENV)/.installed-test kernels
	tools/offline.sh $(BIN)/python -m pytest -q -n 2 --dist loadfile --nbval --nbval-current-env \
		--nbval-sanitize-with tests/nbval_sanitize.cfg chapters exercises book

student: $(VENV)/.installed $(WIDGETS_JS)/embed-amd.js
	$(BIN)/python tools/coursework.py student _build/student

# Grading with nbgrader, in a virtual environment of its own (.venv-grading, requirements-grading.txt).
# ASSIGNMENT_SEED is the instructor's secret: it moves the graded cases.  `make assignments` records it in
# _build/course/instructor (never handed out); without it, the course keeps the secret it was written with,
# or draws a new one.  `make grade` grades with the recorded secret and refuses another one.
GRADING := .venv-grading
GBIN := $(GRADING)/bin
COURSE := _build/course
$(GRADING)/.installed: requirements-grading.txt pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11 or newer is needed"'
	$(PYTHON) -m venv $(GRADING)
	$(GBIN)/python -m pip install --quiet --upgrade pip
	$(GBIN)/python -m pip install --quiet -r requirements-grading.txt
	touch $@

# bubblewrap from Debian: each submission runs in a sandbox (tools/sandbox.py); installed here when missing.
/usr/bin/bwrap:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap

assignments: $(GRADING)/.installed kernels
	$(GBIN)/python tools/assignments.py course $(COURSE)

grade: $(GRADING)/.installed kernels /usr/bin/bwrap
	@if [ -z "$(SUBMISSIONS)" ]; then \
		$(GBIN)/python tools/assignments.py samples $(COURSE) $(COURSE)/samples && \
		$(GBIN)/python tools/assignments.py grade $(COURSE) $(COURSE)/samples; \
	else $(GBIN)/python tools/assignments.py grade $(COURSE) $(SUBMISSIONS); fi

export: $(GRADING)/.installed
	$(GBIN)/python tools/assignments.py export $(COURSE)

# Grading one assignment with a right, a wrong and every adversarial submission of tests/grading, and the
# instructors' page followed word for word in a fresh clone; their courses share the sandboxes' compiled kernels.
grading: $(GRADING)/.installed kernels /usr/bin/bwrap
	DYNLIB_KERNEL_CACHE=$(CURDIR)/_build/kernel-cache $(GBIN)/python -m pytest -q tests/grading

# XeLaTeX and fonts from Debian for the PDF; installed here when missing.
TEX_PACKAGES := texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended texlive-xetex \
	latexmk lmodern tex-gyre fonts-freefont-otf
/usr/bin/latexmk:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(TEX_PACKAGES)

# poppler-utils reads the built PDF's text back (tools/check_rendered.py).
/usr/bin/pdftohtml:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends poppler-utils

pdf: $(VENV)/.installed /usr/bin/latexmk /usr/bin/pdftohtml $(WIDGETS_JS)/embed-amd.js
	$(BIN)/jupyter-book build . --builder pdflatex $(BOOK_FLAGS)
	@if grep -q "There were undefined references" _build/latex/book.log; then \
		grep "Reference .* undefined" _build/latex/book.log | sort -u; echo "undefined cross-references in the PDF"; exit 1; fi
	$(BIN)/python tools/check_rendered.py pdf _build/latex/book.pdf
	@test -s _build/latex/book.pdf && echo "The PDF is built: $(CURDIR)/_build/latex/book.pdf"

# Headless Chromium from Debian (never a downloaded browser); installed here when missing.
/usr/bin/chromium:
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium

browser: $(VENV)/.installed-test /usr/bin/chromium book
	$(BIN)/python tools/check_pages.py _build/html

test: lint unit grading notebooks book browser student pdf

fuzz: $(VENV)/.installed
	$(BIN)/python tools/fuzz.py --cases 20000 --seed 0

# The reference libraries for the benchmark only (MuJoCo, Modern Robotics); not part of make test.
$(VENV)/.installed-bench: $(VENV)/.installed-test requirements-bench.txt
	$(BIN)/python -m pip install --quiet -r requirements-bench.txt
	touch $@

bench: $(VENV)/.installed-bench
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf _build $(VENV) $(GRADING)
