"""Visit every page of the built book in headless Chromium and fail on anything a reader would see broken.

For each HTML page of ``_build/html`` (served on 127.0.0.1) it records page errors, console
errors, failed requests and any request that leaves the machine (those are blocked), then
checks that every equation was typeset by MathJax without an error or an undefined command, that
every image loaded, that every animation player has its frames, that saved widgets rendered, that
nothing outside a code block is wider than the page (at a desktop width no equation, table or
figure may need a horizontal scrollbar; at a phone width the page itself must not scroll
sideways, every display equation of the text must fit once the book's screen style has fitted it,
no formula in a sentence may run past its line, and whatever scrolls sideways in its own box must
say so; widened again to the desktop width, the page must fit as it did), that chapters and exercises
offer their notebook for download and that Binder buttons,
where the build made them, open the page's own notebook; then it searches the book for a word.
Screenshots of each whole page at both widths go to ``_build/screenshots/desktop`` and
``_build/screenshots/phone`` (a long page in parts, ``NAME-1.jpg``, ``NAME-2.jpg``, ...).  Uses
Debian's ``/usr/bin/chromium`` through Playwright (never a downloaded browser).

Usage: ``python tools/check_pages.py [BUILD_HTML_DIR]``; exit status 1 when a page has problems.
"""

from __future__ import annotations

import functools
import http.server
import sys
import tempfile
import threading
from pathlib import Path
from urllib.parse import urljoin, urlparse
from urllib.request import urlopen

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_rendered import html_pages  # noqa: E402  (the same pages as the check of the text)

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

INSPECT = """async () => {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) { await MathJax.startup.promise; }
  // Each saved widget view must become widget DOM: the manager inserts a .widget-subarea just
  // before the view's script and displays the widget in it (after the "load" event: allow 15 s).
  const views = [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')];
  const rendered = view => {
    const area = view.previousElementSibling;
    return !!(area && area.classList.contains('widget-subarea') && area.querySelector('.jupyter-widgets, .lm-Widget'));
  };
  for (const deadline = Date.now() + 15000; views.some(v => !rendered(v)) && Date.now() < deadline;) {
    await new Promise(r => setTimeout(r, 100));
  }
  const images = [...document.querySelectorAll('img')];  // after the widgets: their outputs' images too
  await Promise.all(images.map(img => img.complete ? null : new Promise(r => { img.onload = img.onerror = r; })));
  return {
    math: document.querySelectorAll('.math, span.math, div.math').length,
    typeset: document.querySelectorAll('mjx-container').length,
    mathErrors: [...document.querySelectorAll('mjx-merror')]
      .map(e => e.getAttribute('data-mjx-error') || e.textContent),
    // MathJax's noundefined extension sets an unknown command in red instead of failing
    undefinedTex: (window.MathJax && MathJax.startup && MathJax.startup.document
                   ? [...MathJax.startup.document.math] : [])
      .filter(item => item.typesetRoot && item.typesetRoot.querySelector('mjx-mtext[style*="color: red"]'))
      .map(item => item.math.trim()),
    rawTex: [...document.querySelectorAll('.math')].filter(d => !d.querySelector('mjx-container')).length,
    brokenImages: images.filter(img => !(img.naturalWidth > 0)).map(img => img.src.slice(0, 80)),
    players: [...document.querySelectorAll('img[id^="_anim_img"]')].filter(img => !(img.naturalWidth > 0)).length,
    widgetsSaved: views.length,
    widgetsShown: views.filter(rendered).length,
  };
}"""


# What is wider than the page outside code blocks.  At a desktop width every element that needs its
# own horizontal scrollbar (a display equation, a table) is reported; at any width, whatever makes
# the page itself scroll sideways.  Code blocks (inputs, listings, text outputs) may scroll.
OVERFLOW = """(scrollbars) => {
  const root = document.documentElement, width = root.clientWidth;
  const code = 'pre, code, .highlight, .cell_input, .output.text_plain, .output.stream, .output.traceback';
  // the TeX of the (first) formula within an element, shortened
  const texOf = el => {
    const items = window.MathJax && MathJax.startup && MathJax.startup.document
      ? MathJax.startup.document.getMathItemsWithin(el) : [];
    return items.length ? items[0].math.replace(/\\s+/g, ' ').trim().slice(0, 50) : '';
  };
  const name = el => {
    const eq = el.closest('div.math');
    if (eq) {
      const number = eq.querySelector('.eqno');
      return 'equation ' + (number ? number.textContent.replace(/[^0-9.()]/g, '') + ' ' : '') + '"' + texOf(eq) + '"';
    }
    const table = el.closest('table') || el.querySelector('table');
    const text = (table || el).innerText.replace(/\\s+/g, ' ').trim().slice(0, 60);
    return (table ? 'table' : el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ')[0] : ''))
           + ' "' + text + '"';
  };
  // the nearest box around an element that does not let it overflow (overflow does not apply to an inline box)
  const clippingBox = el => {
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (style.display !== 'inline' && style.overflowX !== 'visible') return up;
    }
    return null;
  };
  const found = [];
  const article = document.querySelector('article') || document.body;
  if (!scrollbars) {
    // at a phone width every display equation of the text must fit once the screen style has fitted
    // it (number below, lines broken at wide spaces, set smaller down to a floor); the math that
    // code prints (a sympy matrix in an output) may scroll, as the outputs do
    for (const el of article.querySelectorAll('div.math mjx-container[display="true"]')) {
      if (el.closest('.cell_output') || el.clientWidth === 0) continue;
      if (el.scrollWidth > el.clientWidth + 2) {
        const scale = el.getAttribute('data-math-scale');
        found.push(`${name(el)} does not fit${scale ? ' even at ' + Math.round(100 * scale) + ' % of its size' : ''}`
                   + ` (${el.scrollWidth} px in ${el.clientWidth} px)`);
      }
    }
    // a formula in a sentence must not run past the end of its line (a clipped formula is lost)
    for (const el of article.querySelectorAll('mjx-container:not([display="true"])')) {
      if (el.closest(code + ', table, .cell_output')) continue;
      const line = el.parentElement.closest('p, li, dd, dt, td, th, figcaption, div');
      const box = el.getBoundingClientRect();
      if (line && box.width > 0 && box.right > line.getBoundingClientRect().right + 2) {
        found.push(`the formula "${texOf(el)}" runs ${Math.round(box.right - line.getBoundingClientRect().right)} px`
                   + ' past the end of its line');
      }
    }
    // a formula in a table stays on one line, as code does (the table scrolls instead)
    for (const el of article.querySelectorAll('table mjx-container:not([display="true"])')) {
      const lines = new Set([...el.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (lines.size > 1) found.push(`the formula "${texOf(el)}" in a table is broken over ${lines.size} lines`);
    }
    // nothing may be cut off at the right edge of the screen by a box that hides its overflow (the
    // theme's link to the next page did that); what a scrolling box holds can be reached
    const cutBy = (el, right) => {
      for (let box = clippingBox(el); box; box = clippingBox(box)) {
        if (['auto', 'scroll'].includes(getComputedStyle(box).overflowX)) return null;
        if (right > box.getBoundingClientRect().right + 1) return box;
      }
      return null;
    };
    for (const el of document.body.querySelectorAll('*')) {
      if (el.closest('mjx-assistive-mml') || el.closest(code)) continue;
      if (el.children.length && !['IMG', 'svg', 'MJX-CONTAINER', 'CANVAS', 'A'].includes(el.tagName)) continue;
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || box.right <= width + 1 || box.left >= width) continue;
      if (getComputedStyle(el).visibility === 'hidden') continue;
      if (cutBy(el, box.right)) {
        found.push(`${name(el)} is cut off at the right edge of the screen`
                   + ` (${Math.round(box.right)} px in ${width} px)`);
      }
    }
    // whatever scrolls sideways outside a code block must show that it does (the screen style marks it)
    for (const el of article.querySelectorAll('*')) {
      if (el.closest(code) || el.clientWidth === 0 || el.classList.contains('scrolls-sideways')) continue;
      if (['auto', 'scroll'].includes(getComputedStyle(el).overflowX) && el.scrollWidth > el.clientWidth + 2) {
        found.push(`${name(el)} scrolls sideways without saying so (${el.scrollWidth} px in ${el.clientWidth} px)`);
      }
    }
  }
  if (scrollbars) {
    for (const el of article.querySelectorAll('*')) {
      if (el.closest(code) || el.clientWidth === 0) continue;
      const style = getComputedStyle(el);
      if (['auto', 'scroll'].includes(style.overflowX) && el.scrollWidth > el.clientWidth + 2) {
        found.push(`${name(el)} needs a horizontal scrollbar (${el.scrollWidth} px in ${el.clientWidth} px)`);
      }
    }
  }
  if (root.scrollWidth > width + 1) {
    // name the outermost element that sticks out, leaving out what a scrolling box clips
    const clipped = el => clippingBox(el) !== null;
    let widest = null;
    for (const el of document.body.querySelectorAll('*')) {
      if (el.closest('mjx-assistive-mml')) continue;  // MathJax's copy for screen readers, never shown
      const box = el.getBoundingClientRect();
      if (box.right > width + 1 && box.width > 0 && !clipped(el)) { widest = el; break; }
    }
    found.push(`the page is ${root.scrollWidth} px wide in a ${width} px window`
               + (widest ? ` (${name(widest)})` : ''));
  }
  return [...new Set(found)];
}"""


def serve(folder):
    """Serve a folder on 127.0.0.1 in a background thread; return the server and its base URL."""
    handler = functools.partial(QuietHandler, directory=str(folder))
    server = QuietServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        if not isinstance(sys.exc_info()[1], ConnectionError):  # the browser hung up: not a page problem
            super().handle_error(request, client_address)


def pages(html):
    """Every page of the book, without Sphinx's index pages and redirects (the root index.html)."""
    return [p.relative_to(html).as_posix() for p in html_pages(html)]


def check_page(context, base, page, shots):
    """Problems found on one page (an empty list when it is fine)."""
    problems = []
    browser_page = context.new_page()
    browser_page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    browser_page.on("console", lambda msg: problems.append(f"console {msg.type}: {msg.text[:200]}")
                    if msg.type == "error" else None)
    browser_page.on("requestfailed", lambda req: problems.append(f"request failed: {req.url[:120]}")
                    if urlparse(req.url).hostname == "127.0.0.1" else None)
    browser_page.on("response", lambda res: problems.append(f"HTTP {res.status}: {res.url[:120]}")
                    if res.status >= 400 else None)
    browser_page.goto(base + page, wait_until="load")
    found = browser_page.evaluate(INSPECT)
    problems += [f"MathJax error: {error[:120]}" for error in found["mathErrors"]]
    problems += [f"undefined TeX command in an equation: {tex[:60]}" for tex in found["undefinedTex"]]
    if found["rawTex"] or (found["math"] and not found["typeset"]):
        problems.append(f"math not typeset ({found['rawTex']} equations left as TeX)")
    problems += [f"image did not load: {src}" for src in found["brokenImages"]]
    if found["players"]:
        problems.append(f"{found['players']} animation players without frames")
    if found["widgetsShown"] < found["widgetsSaved"]:
        missing = found["widgetsSaved"] - found["widgetsShown"]
        problems.append(f"{missing} of {found['widgetsSaved']} saved widgets did not render")
    if page.startswith(("chapters/", "exercises/")):
        link = browser_page.locator('a[href$=".ipynb"]:not([href*="://"])')  # the download, not Binder
        if not link.count():
            problems.append("no .ipynb download link")
        elif urlopen(urljoin(base + page, link.first.get_attribute("href"))).status != 200:
            problems.append("the .ipynb download link is broken")
    binder = browser_page.locator('a[href*="mybinder.org/v2/"]').all()  # launch buttons, not prose links
    problems += binder_problems(page, [a.get_attribute("href") for a in binder])
    problems += browser_page.evaluate(OVERFLOW, True)
    name = page.replace("/", "__").removesuffix(".html")
    problems += screenshot(browser_page, shots / "desktop", name)
    on_phone = resize(browser_page, PHONE) + browser_page.evaluate(OVERFLOW, False)
    problems += [f"at phone width: {problem}" for problem in on_phone + screenshot(browser_page, shots / "phone", name)]
    # a tablet turned, a window widened: the page must be as it was at desktop width
    widened = [problem for problem in resize(browser_page, DESKTOP) + browser_page.evaluate(OVERFLOW, True)
               if problem not in problems]
    problems += [f"at desktop width again, after phone width: {problem}" for problem in widened]
    browser_page.close()
    return problems


def resize(browser_page, viewport):
    """Give the page a new window size and wait until the book's screen style has fitted it again."""
    browser_page.evaluate("document.documentElement.removeAttribute('data-math-fitted')")
    browser_page.set_viewport_size(viewport)
    browser_page.wait_for_timeout(300)  # let the theme lay the page out again
    if browser_page.locator('script[src*="narrow_screen.js"]').count():
        try:  # book/extensions/screen_style/static/narrow_screen.js measures and fits the equations again
            browser_page.wait_for_selector("html[data-math-fitted]", state="attached", timeout=10000)
        except PlaywrightTimeout:
            return [f"narrow_screen.js did not fit the equations to a width of {viewport['width']} px"]
    return []


# A JPEG is at most 65,535 pixels high (Chromium writes an empty file for a taller page): a long page is
# shot in parts of at most this many CSS pixels, NAME-1.jpg, NAME-2.jpg, ...
SHOT_HEIGHT = 30000


def screenshot(browser_page, folder, name):
    """Save the whole page as NAME.jpg, or in parts; return the problems (a shot that came out empty)."""
    height = browser_page.evaluate("document.documentElement.scrollHeight")
    width = browser_page.evaluate("document.documentElement.scrollWidth")
    if height <= SHOT_HEIGHT:
        parts = [(folder / f"{name}.jpg", None)]
    else:
        parts = [(folder / f"{name}-{k}.jpg",
                  {"x": 0, "y": top, "width": width, "height": min(SHOT_HEIGHT, height - top)})
                 for k, top in enumerate(range(0, height, SHOT_HEIGHT), start=1)]
    problems = []
    for path, clip in parts:
        browser_page.screenshot(path=str(path), full_page=True, clip=clip, type="jpeg", quality=70)
        if path.stat().st_size == 0:
            problems.append(f"the screenshot {path.name} is empty")
    return problems


def binder_problems(page, hrefs):
    """Binder launch buttons (present when the book was built from a GitHub clone) must open this page's notebook."""
    notebook = "urlpath=tree/" + page.removesuffix(".html") + ".ipynb"
    return [f"a Binder button opens another notebook: {href[:160]}" for href in hrefs
            if not (href.startswith("https://mybinder.org/v2/gh/") and href.endswith(notebook))]


def check_search(context, base, word="articulated"):
    """Problems with the search page: it must list results for a word every chapter uses."""
    page = context.new_page()
    page.goto(f"{base}search.html?q={word}", wait_until="load")
    try:
        page.wait_for_selector("#search-results li", timeout=20000)
    except PlaywrightTimeout:
        return [f"searching for {word!r} found nothing"]
    finally:
        page.close()
    return []


def check_book(html, shots):
    """Visit every page; return {page: problems} and the off-site URLs that were requested."""
    for width in ("desktop", "phone"):
        (Path(shots) / width).mkdir(parents=True, exist_ok=True)
        for old in (Path(shots) / width).glob("*.jpg"):  # a page that is now shot in parts leaves no stale whole
            old.unlink()
    server, base = serve(html)
    offsite, failures = [], {}
    try:
        with sync_playwright() as playwright, tempfile.TemporaryDirectory() as profile:
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, headless=True, args=FLAGS, viewport=DESKTOP)

            def block_offsite(route):
                if urlparse(route.request.url).hostname == "127.0.0.1":
                    return route.continue_()
                offsite.append(route.request.url)
                return route.abort()

            context.route("**/*", block_offsite)
            for page in pages(html):
                problems = [p for p in check_page(context, base, page, shots)
                            if "net::ERR_FAILED" not in p]  # the blocked off-site requests, reported below
                if problems:
                    failures[page] = problems
            if problems := check_search(context, base):
                failures["search.html"] = problems
            context.close()
    finally:
        server.shutdown()
    return failures, sorted(set(offsite))


def main(html=ROOT / "_build" / "html"):
    html = Path(html).resolve()
    if not (html / "index.html").exists():
        raise SystemExit(f"no built book in {html}: run `make book` first")
    shots = html.parent / "screenshots"
    shots.mkdir(exist_ok=True)
    failures, offsite = check_book(html, shots)
    for page, problems in failures.items():
        print(f"{page}:")
        for problem in problems:
            print(f"  {problem}")
    for url in offsite:
        print(f"off-site request (blocked): {url}")
    print(f"checked {len(pages(html))} pages in Chromium: {len(failures)} with problems, "
          f"{len(offsite)} off-site requests; screenshots in {shots}")
    return 1 if failures or offsite else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
