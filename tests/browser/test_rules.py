"""The rules every browser test enforces (conftest.PageRules) catch what they should, and only that."""

from __future__ import annotations

import pytest

from tests.browser.conftest import is_local


@pytest.mark.parametrize("url, local", [
    ("http://127.0.0.1:8888/voila/render/laplace.ipynb", True),
    ("http://localhost:1234/lab", True),
    ("ws://127.0.0.1:8888/api/kernels/x/channels", True),
    ("http://[::1]:8888/", True),
    ("data:image/svg+xml,%3csvg%3e", True),
    ("blob:http://127.0.0.1:8888/24d1908c", True),
    ("https://cdn.jsdelivr.net/npm/@fortawesome/fontawesome-free@%5E5/css/all.min.css", False),
    ("http://192.0.2.1/font.woff2", False),
    ("http://localhost.example.com/", False),
    ("file:///tmp/exports/LaplaceExplorer.html", True),     # an exported page opened from this disk
    ("file://fileserver.example.com/share/page.html", False),
])
def test_local_addresses(url, local):
    assert is_local(url) is local


def test_rules_record_console_warnings_errors_and_outside_requests(browser, page_rules):
    page = browser.new_page()
    # answer every request here, so nothing waits on a network this machine does not have
    page.route("**/*", lambda route: route.fulfill(status=200, body=""))
    page.set_content("<script>console.log('fine'); console.info('fine');"
                     "console.warn('a warning'); console.error('an error');</script>"
                     "<img src='http://192.0.2.1/icon.png'>")
    page.wait_for_timeout(300)
    seen = page_rules.take()   # taken here, so this test itself passes
    page.close()
    assert any("console warning" in p and "a warning" in p for p in seen), seen
    assert any("console error" in p and "an error" in p for p in seen), seen
    assert any("non-local" in p and "192.0.2.1" in p for p in seen), seen
    assert not any("fine" in p for p in seen), seen
