"""The built site in a real browser: Debian's Chromium, headless, driven by selenium
through the OS's chromedriver (never a browser download), over a local http.server.
Each page the issue names renders (its title, every image loaded: naturalWidth > 0, and
a figure where the page has one), and the search page finds "HHCART". Screenshots go to
``OBLIQ_DOCS_SHOTS`` (default: a temporary folder). Skips, saying why, where Chromium or
its driver is not installed (``apt-get install -y chromium chromium-driver``)."""

import functools
import os
import tempfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
DRIVER = Path("/usr/bin/chromedriver")
# page, a word its title holds, whether it shows a figure
PAGES = [("index", "obliq", False), ("tutorial", "Tutorial", True),
         ("reference/cli", "Command-line reference", False),
         ("reproduced/hhcart", "HHCART", False), ("benchmark", "Benchmark", True)]


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server(site):
    handler = functools.partial(_Quiet, directory=str(site))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    if not CHROMIUM.is_file() or not DRIVER.is_file():
        pytest.skip(f"no {CHROMIUM} and {DRIVER} (apt-get install -y chromium "
                    f"chromium-driver)")
    webdriver = pytest.importorskip("selenium.webdriver", reason="make docs installs "
                                    "selenium (the docs extra)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    profile = tmp_path_factory.mktemp("chromium-profile")
    for flag in ("--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync", "--disable-dev-shm-usage",
                 f"--user-data-dir={profile}", "--window-size=1280,1600"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=str(DRIVER)), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def shots():
    folder = Path(os.environ.get("OBLIQ_DOCS_SHOTS")
                  or tempfile.mkdtemp(prefix="obliq-docs-shots-"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _images(driver) -> list[dict]:
    return driver.execute_script(
        "return Array.from(document.images).map(i => ({src: i.currentSrc || i.src, "
        "complete: i.complete, width: i.naturalWidth}))")


def _wait(driver, condition, seconds=30.0):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds, poll_frequency=0.2).until(condition)


@pytest.mark.parametrize("page, word, figure", PAGES, ids=[p[0] for p in PAGES])
def test_a_page_renders_with_its_figures(browser, server, shots, page, word, figure):
    browser.get(f"{server}/{page}.html")
    _wait(browser, lambda d: d.execute_script("return document.readyState") == "complete")
    _wait(browser, lambda d: all(i["complete"] for i in _images(d)))
    assert word in browser.title, browser.title
    heading = browser.execute_script("return document.querySelector('h1').textContent")
    assert heading.strip(), page
    images = _images(browser)
    unloaded = [i["src"] for i in images if i["width"] == 0]
    assert not unloaded, f"{page}: images not loaded: {unloaded}"
    if figure:
        content = browser.execute_script(
            "return Array.from(document.querySelectorAll('article img'))"
            ".filter(i => i.naturalWidth > 0).length")
        assert content >= 1, f"{page}: no figure shown"
    browser.save_screenshot(str(shots / f"{page.replace('/', '_')}.png"))


def test_search_finds_hhcart(browser, server, shots):
    browser.get(f"{server}/search.html?q=HHCART")

    def results(driver):
        return driver.execute_script(
            "const r = document.querySelectorAll('#search-results li');"
            "return r.length ? Array.from(r).map(li => li.textContent) : null")

    found = _wait(browser, results)
    assert any("HHCART" in text for text in found), found[:5]
    browser.save_screenshot(str(shots / "search_HHCART.png"))

