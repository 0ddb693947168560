#!/usr/bin/env python3
"""Relative links and #anchors in the repository's Markdown files resolve.

Every [text](target) and ![alt](target) outside code blocks and code spans
whose target is relative (not http:, https:, mailto: or absolute) must name
an existing file or folder; a #fragment on a Markdown target (or a bare
#fragment) must match one of that file's headings, slugged as GitHub does:
lowercase, punctuation other than '-' and '_' dropped, each space a '-',
and a repeated heading suffixed -1, -2, ...

usage: tests/tools/check_doc_links.py [REPO]   (exit 1, listing file:line and
the link, when one does not resolve; CTest runs it as test doc_links)
"""
import os
import re
import sys

# Not documentation: third-party trees, fuzz inputs, build and hidden folders.
SKIP_DIRS = {"thirdparty", "node_modules", "shared", "corpus"}
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
LINK = re.compile(r"!?\[((?:[^\[\]]|\[[^\]]*\])*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
INLINE_LINK_TEXT = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")


def markdown_files(root):
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS
                         and not d.startswith(("build", ".")))
        for f in sorted(files):
            if f.endswith(".md"):
                yield os.path.join(top, f)


def lines_outside_code(path):
    """(line number, text) of the lines outside fenced code blocks."""
    fence = None
    with open(path, encoding="utf-8", errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            m = FENCE.match(line)
            if m:
                if fence is None:
                    fence = m.group(1)
                elif m.group(1) == fence:
                    fence = None
                continue
            if fence is None:
                yield n, line.rstrip("\n")


def slug(heading):
    text = INLINE_LINK_TEXT.sub(r"\1", heading)
    # HTML tags vanish, but a tag-like text inside a code span is text
    parts = re.split(r"(`+[^`]*`+)", text)
    text = "".join(p if p.startswith("`") else re.sub(r"<[^>]+>", "", p)
                   for p in parts).strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in "-_ ")
    return text.replace(" ", "-")


_anchors = {}


def anchors(path):
    if path not in _anchors:
        seen = {}
        out = set()
        for _, line in lines_outside_code(path):
            m = HEADING.match(line)
            if not m:
                continue
            s = slug(m.group(2))
            if s in seen:
                seen[s] += 1
                out.add("%s-%d" % (s, seen[s]))
            else:
                seen[s] = 0
                out.add(s)
        _anchors[path] = out
    return _anchors[path]


def check(root):
    bad = []
    for path in markdown_files(root):
        for n, line in lines_outside_code(path):
            for m in LINK.finditer(CODE_SPAN.sub("", line)):
                target = m.group(2)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("/"):
                    continue
                file_part, _, frag = target.partition("#")
                dest = (os.path.normpath(os.path.join(os.path.dirname(path), file_part))
                        if file_part else path)
                where = "%s:%d: %s" % (os.path.relpath(path, root), n, target)
                if not os.path.exists(dest):
                    bad.append(where + " (no such file)")
                elif frag and dest.endswith(".md") and frag.lower() not in anchors(dest):
                    bad.append(where + " (no such heading)")
    return bad


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), "..", ".."))
    bad = check(root)
    for b in bad:
        print(b)
    print("%d broken link%s" % (len(bad), "" if len(bad) == 1 else "s"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
