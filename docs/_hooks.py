"""MkDocs hook of the documentation site (mkdocs.yml ``hooks``).

The docstrings use reST roles (``:func:`x```, ``:class:`~a.b.C```), which the Markdown of
mkdocstrings renders as the role's name before a code span. This drops the role and, as
Sphinx does for ``~``, shows only the last part of a ``~``-prefixed path.
"""

from __future__ import annotations

import re

ROLE = re.compile(r":(?:func|class|meth|mod|data|attr|exc|obj|const):<code>(~?)([^<]*)</code>")


def _code(match: re.Match[str]) -> str:
    tilde, path = match.groups()
    return f"<code>{path.rsplit('.', 1)[-1] if tilde else path}</code>"


def on_page_content(html: str, **_: object) -> str:
    """The page's HTML with every reST role shown as its code span alone."""
    return ROLE.sub(_code, html)
