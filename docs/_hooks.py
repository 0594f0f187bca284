"""MkDocs hook of the documentation site (mkdocs.yml ``hooks``).

The docstrings use reST roles (``:func:`x```, ``:class:`~a.b.C```), which the Markdown of
mkdocstrings renders as the role's name before a code span, and reST's ``::`` before a
literal block. This drops the role and, as Sphinx does for ``~``, shows only the last part
of a ``~``-prefixed path; a paragraph's closing ``::`` becomes ``:``, as Sphinx shows it.
"""

from __future__ import annotations

import re

LITERAL_MARKER = re.compile(r"::</p>")
ROLE = re.compile(r":(?:func|class|meth|mod|data|attr|exc|obj|const):<code>(~?)([^<]*)</code>")


def _code(match: re.Match[str]) -> str:
    tilde, path = match.groups()
    return f"<code>{path.rsplit('.', 1)[-1] if tilde else path}</code>"


def on_page_content(html: str, **_: object) -> str:
    """The page's HTML with the reST roles and literal-block markers of the docstrings
    shown as Sphinx shows them."""
    return LITERAL_MARKER.sub(":</p>", ROLE.sub(_code, html))
