#!/usr/bin/env python3
"""test_trouble_browser.py - no request of the live table page fails
silently (issue 32): in a real Chromium on a phone and a laptop against a
real 'tabletrack track --http' on the breach sample (browser_trouble.js),
the ruleset's profile refused twice, and the table's picture once, show a
card while the page tries again (and go when it works); a question answered
500 shows a card that says it was not asked and why; the server going away
shows a card that the table is lost, and a question asked then says the
table did not answer.
Screenshots in the build folder: {phone,laptop}-trouble-{retrying,500,gone}.png.

usage: test_trouble_browser.py TABLETRACK SOURCE_ROOT OUT_DIR
Exit 77 (skipped) without Chromium or node ('make deps' installs both)."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tt_checks import HANG_S, Checks, browser_missing, page_result  # noqa: E402
from tt_server import Server  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def judge(check, name, r):
    rules = r.get("rules_card") or {}
    check(rules.get("retrying") is True and "Could not read the ruleset" in rules.get("big", "")
          and "busy" in rules.get("small", "") and "Trying again" in rules.get("small", ""),
          "%s: the profile refused, a card says why and that the page tries again: %s" % (name, rules))
    check(r.get("rules_failed") == 2 and "grape" in (r.get("gun_menu") or []),
          "%s: tried again, it came (refused %s times), the menus follow the ruleset: %s"
          % (name, r.get("rules_failed"), r.get("gun_menu")))
    photo = r.get("photo_card") or {}
    check(r.get("picture_failed") == 1 and photo.get("big") == "Could not load the table's picture" and
          "500" in photo.get("small", "") and photo.get("retrying") is True,
          "%s: the table's picture refused once: a card while the page tries again, then the picture: %s"
          % (name, photo))
    ask = r.get("ask_card") or {}
    check(r.get("query_failed") == 1 and ask.get("big") == "Not asked: fire gren1" and
          "500 Internal Server Error" in ask.get("small", "") and ask.get("retrying") is False and ask.get("visible"),
          "%s: a question answered 500: a card says it was not asked, and why: %s" % (name, ask))
    check(ask.get("in_view") is True, "%s: the card is on the screen without scrolling" % name)
    check(not any(q.get("q") == "fire" for q in r.get("shown_after_500") or [{}]),
          "%s: the table shows no answer to it: %s" % (name, r.get("shown_after_500")))
    check(r.get("ask_card_dismissed") is True and r.get("asked_again") is True,
          "%s: the card is dismissed, and asked again the question is answered" % name)
    check(r.get("troubles_before_gone") == {}, "%s: no card while all is well: %s" % (name, r.get("troubles_before_gone")))
    live = r.get("live_card") or {}
    check(live.get("big") == "Lost the table" and live.get("retrying") is True and "reconnecting" in r.get("status", ""),
          "%s: the server gone, a card says so while the page reconnects: %s, status %r"
          % (name, live, r.get("status")))
    gone = (r.get("gone") or {}).get("ask") or {}
    check(gone.get("big") == "Not asked: los gren1" and "did not answer" in gone.get("small", ""),
          "%s: a question asked then says the table did not answer: %s" % (name, gone))
    check(sorted(r.get("gone") or {}) == ["ask", "live"],
          "%s: one card for the table lost, one for the question, none more: %s" % (name, sorted(r.get("gone") or {})))
    check("reconnecting" in (r.get("status_after") or ""),
          "%s: the status still says it is reconnecting after the page redrew: %r" % (name, r.get("status_after")))


def main():
    binary, root, out = sys.argv[1], sys.argv[2], sys.argv[3]
    missing = browser_missing()
    if missing is not None:
        return missing
    os.makedirs(out, exist_ok=True)
    srv = Server(binary, root)
    check = Checks()
    try:
        p = subprocess.run(["node", os.path.join(HERE, "browser_trouble.js"), srv.url, str(srv.proc.pid), out],
                           capture_output=True, text=True, timeout=2 * HANG_S, cwd=HERE)
        r = page_result(p)
        check("error" not in r, "the page could be used to the end: %s" % r.get("error", ""))
        for name in ("phone", "laptop"):
            judge(check, name, r.get(name) or {})
        check(r.get("page_errors") == [], "no script errors: %s" % r.get("page_errors"))
        check.screenshots(out, ["%s-trouble-%s" % (n, s) for n in ("phone", "laptop")
                                for s in ("retrying", "500", "gone")])
    finally:
        srv.end(check)  # it was stopped by SIGINT, as a player would: it ended cleanly
    return check.verdict()


if __name__ == "__main__":
    sys.exit(main())
