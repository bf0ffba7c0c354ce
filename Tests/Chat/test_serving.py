"""How parleyd serves the page: gzip when asked (made once at start), ETag revalidation, a strict CSP
that lets websites frame the page, and a first load of at most 100 KB transferred."""
import gzip
import urllib.error
import urllib.request

from test_chat import start_chat


def fetch(url, headers=None):
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def test_files_are_gzipped_revalidated_and_under_a_strict_frameable_csp(world):
    status, headers, body = fetch(f"{world.base}/chat/?app={world.app_id}", {"Accept-Encoding": "gzip, br"})
    assert status == 200 and headers["Content-Encoding"] == "gzip" and headers["Vary"] == "Accept-Encoding"
    html = gzip.decompress(body).decode()
    # The page names its files under their version (cached for good); the page itself is revalidated.
    import re
    version = re.search(r'<script type="module" src="v/([0-9a-f]{24})/js/main\.js">', html).group(1)
    assert f'href="v/{version}/css/chat.css"' in html
    status, versioned, _ = fetch(f"{world.base}/chat/v/{version}/js/chat.js")
    assert status == 200 and versioned["Cache-Control"] == "public, max-age=31536000, immutable"
    assert headers["Cache-Control"] == "no-cache" and headers["ETag"].endswith('-gz"')
    csp = headers["Content-Security-Policy"]
    directives = dict((part.strip().split(" ", 1) + [""])[:2] for part in csp.split(";"))
    assert directives["default-src"] == "'none'" and directives["script-src"] == "'self'" and directives["style-src"] == "'self'"
    assert directives["frame-ancestors"] == "*" and directives["frame-src"] == "'none'"
    assert directives["connect-src"].startswith("'self'") and "ws://" in directives["connect-src"]
    assert "unsafe-inline" not in csp and "X-Frame-Options" not in headers
    assert headers["X-Content-Type-Options"] == "nosniff"

    # Revalidation: the same representation is a 304; the plain one has its own validator.
    status, again, _ = fetch(f"{world.base}/chat/js/chat.js", {"Accept-Encoding": "gzip", "If-None-Match": headers["ETag"]})
    status, js_headers, _ = fetch(f"{world.base}/chat/js/chat.js", {"Accept-Encoding": "gzip"})
    assert status == 200
    status, _, _ = fetch(f"{world.base}/chat/js/chat.js", {"Accept-Encoding": "gzip", "If-None-Match": js_headers["ETag"]})
    assert status == 304
    status, plain_headers, plain = fetch(f"{world.base}/chat/js/chat.js")
    assert status == 200 and "Content-Encoding" not in plain_headers and plain.startswith(b"//")
    assert plain_headers["ETag"] != js_headers["ETag"]

    # /chat keeps its query on the way to /chat/; unknown files are 404s; the desk stays unframeable.
    request = urllib.request.Request(f"{world.base}/chat?app={world.app_id}", method="GET")
    opener = urllib.request.build_opener(NoRedirect)
    try:
        opener.open(request)
        raise AssertionError("no redirect")
    except urllib.error.HTTPError as error:
        assert error.code == 308 and error.headers["Location"] == f"/chat/?app={world.app_id}"
    assert fetch(f"{world.base}/chat/../desk/index.html")[0] == 404
    assert fetch(f"{world.base}/chat/README.md")[0] == 404
    desk = fetch(f"{world.base}/desk/")[1]
    assert "frame-ancestors 'none'" in desk["Content-Security-Policy"]


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def test_the_avatar_origin_is_the_only_other_image_source(world):
    world.admin.put(f"/v1/admin/apps/{world.app_id}/appearance", {"title": "Acme help", "avatar_url": "https://cdn.acme.test/a.png",
                                                                   "welcome_message": {"en": "Hi! How can we help?", "de": "Hallo! Wie können wir helfen?"},
                                                                   "theme_color": "#0B6E4F", "visitor_display_name": "You"})
    try:
        csp = fetch(f"{world.base}/chat/?app={world.app_id}")[1]["Content-Security-Policy"]
        assert "img-src 'self' data: blob: https://cdn.acme.test;" in csp
    finally:
        world.admin.put(f"/v1/admin/apps/{world.app_id}/appearance", {"title": "Acme help", "theme_color": "#0B6E4F", "visitor_display_name": "You",
                                                                       "welcome_message": {"en": "Hi! How can we help?", "de": "Hallo! Wie können wir helfen?"}})


def test_first_load_is_at_most_100_kb(pages, world, agent):
    page, _ = start_chat(pages, world, agent)
    sizes = page.js("""
        const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
        return entries.map((e) => [e.name, e.transferSize, e.encodedBodySize, e.decodedBodySize]);
    """)
    transferred = sum(entry[1] for entry in sizes)
    decoded = sum(entry[3] for entry in sizes)
    static = sum(entry[1] for entry in sizes if "/chat/" in entry[0])
    print(f"\nfirst load of the chat page up to the chatting screen: {transferred / 1024:.1f} KB transferred "
          f"({static / 1024:.1f} KB of page files, gzipped; {decoded / 1024:.1f} KB decoded), {len(sizes)} requests")
    assert all(entry[1] > 0 for entry in sizes if "/chat/" in entry[0]), "every page file came over the network"
    assert transferred <= 100 * 1024
