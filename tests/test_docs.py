"""The project explains itself: every rule id cited is defined in docs/rules.md, every
document the code and docs point to exists in the repository, and the package metadata
says which Pythons it supports."""

from __future__ import annotations

import re
import sys
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules.md"

RULE_ID = re.compile(r"\b(?:UA|SRD|EP|SR|IC)(?:-[A-Z0-9]+)+\b")
"""A rule id: ``UA-FACE-02``, ``UA-FEAT-CLV``, ``SRD-AOO-04``, ``EP-5FT-01``, ``IC-07``."""
RANGE = re.compile(r"\b((?:UA|SRD|EP|SR|IC)(?:-[A-Z0-9]+)*-)(\d+)(?:\.\.|/)(\d+)\b")
"""Shorthands for several ids: ``UA-MOVE-01..06``, ``UA-FCL-01/02``."""
DOC_REFERENCE = re.compile(r"(?<![\w/.-])((?:docs/[\w./-]*\w)|(?:[A-Z][A-Z0-9_]*\.md))\b")
"""A file of the repository named in prose: ``docs/...`` or an upper-case ``NAME.md``."""
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _sources() -> list[Path]:
    """The package, its scenario files, the tests, the scripts and the top-level docs."""
    files = [*sorted((ROOT / "facing_env").rglob("*.py")), *sorted((ROOT / "agents").rglob("*.py"))]
    files += sorted((ROOT / "facing_env" / "configs").glob("*.yaml"))
    files += sorted((ROOT / "tests").rglob("*.py"))
    files += [ROOT / n for n in ("train.py", "train_rllib.py", "setup.py", "README.md")]
    files += [ROOT / n for n in ("CHANGELOG.md", "pyproject.toml")]
    return [f for f in files if f.is_file()]


def _cited(text: str) -> set[str]:
    ids = set(RULE_ID.findall(text))
    for prefix, first, last in RANGE.findall(text):
        width = len(first)
        ids |= {f"{prefix}{n:0{width}d}" for n in range(int(first), int(last) + 1)}
    return ids


@cache
def _documented() -> frozenset[str]:
    """The ids with an entry (a ``### ID`` heading) in docs/rules.md."""
    heading = re.compile(r"^### ((?:UA|SRD|EP|SR|IC)(?:-[A-Z0-9]+)+)\s*$", re.M)
    return frozenset(heading.findall(_text(RULES)))


@cache
def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _slug(heading: str) -> str:
    """GitHub's anchor of a markdown heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_cited_rule_id_is_documented():
    """Each id the package, the tests, the scenarios or the README cite has an entry (a
    family name such as ``UA-SNK`` stands for its entries)."""
    families = {rule.rsplit("-", 1)[0] for rule in _documented()}  # "UA-SNK", "EP-FLANK"
    missing = {}
    for path in _sources():
        for rule in _cited(_text(path)) - _documented() - families:
            missing.setdefault(rule, []).append(str(path.relative_to(ROOT)))
    assert not missing, f"rule ids without an entry in docs/rules.md: {missing}"


def test_every_documented_rule_is_tested():
    """No stale entries: every id of docs/rules.md is cited by at least one test."""
    tested: set[str] = set()
    for path in sorted((ROOT / "tests").rglob("*.py")):
        tested |= _cited(_text(path))
    assert _documented() - tested == set()


def test_rules_doc_sections_and_sources():
    """Every entry names its source (or is an interpretation choice), its code and tests."""
    entries = re.split(r"^### ", _text(RULES), flags=re.M)[1:]
    by_id = {e.split("\n", 1)[0].strip(): e for e in entries}
    for rule in _documented():
        body = by_id[rule]
        if not rule.startswith("IC-"):
            assert "Source: S" in body, rule
        assert "Code:" in body and "Tests:" in body, rule
    assert len(_documented()) >= 120


def test_paths_in_rules_doc_exist():
    """Modules and test files named in docs/rules.md exist (paths relative to the package,
    the tests folder or the repository)."""
    named = set(re.findall(r"`([\w/]+\.(?:py|yaml))`", _text(RULES)))
    bases = (ROOT / "facing_env", ROOT / "tests", ROOT)
    assert named
    assert [n for n in sorted(named) if not any((b / n).is_file() for b in bases)] == []


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_referenced_documents_exist(path):
    """``docs/...`` paths and ``NAME.md`` files named anywhere exist in the repository
    (internal documents that are not shipped must not be cited)."""
    if path == Path(__file__).resolve():
        return
    text = _text(path)
    assert "../shared/" not in text  # the project's internal folder, not in the repository
    for ref in DOC_REFERENCE.findall(text):
        candidates = [ROOT / ref, ROOT / "docs" / ref]
        assert any(c.exists() for c in candidates), f"{path.name} cites {ref}, not in the repo"


@pytest.mark.parametrize("doc", ["README.md", "docs/rules.md", "docs/design.md"])
def test_markdown_links_resolve(doc):
    """Relative links of the docs reach existing files, and their anchors existing
    headings."""
    source = ROOT / doc
    for target in MD_LINK.findall(_text(source)):
        if "://" in target:
            continue
        file, _, anchor = target.partition("#")
        dest = (source.parent / file).resolve() if file else source
        assert dest.exists(), f"{doc}: link to {target}"
        if anchor and dest.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", _text(dest), re.M)
            assert anchor in {_slug(h) for h in headings}, f"{doc}: no heading for #{anchor}"


def test_pyproject_declares_supported_pythons():
    """``requires-python`` and the version classifiers agree, and this interpreter is one."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads(_text(ROOT / "pyproject.toml"))["project"]
    floor = re.fullmatch(r">=\s*3\.(\d+)", project["requires-python"])
    assert floor is not None
    minors = sorted(
        int(c.rsplit(".", 1)[1])
        for c in project["classifiers"]
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    )
    assert minors and minors[0] == int(floor.group(1))
    assert minors == list(range(minors[0], minors[-1] + 1))
    assert sys.version_info >= (3, minors[0])


def _drawn_rings() -> list[tuple[str, str, str]]:
    """(rule set, facing, picture) of every ring drawn in docs/rules.md: code blocks whose
    first line names pictures as ``<size> <facing>``, side by side; ``#`` is the creature."""
    title = re.compile(r"(\S+) (N|NE|E|SE|S|SW|W|NW)\b")
    rings = []
    for block in re.findall(r"^```\n(.*?)^```", _text(RULES), re.M | re.S):
        header, *lines = block.splitlines()
        starts = [m.start() for m in title.finditer(header)]
        if not starts or "#" not in block:
            continue
        for m, start, end in zip(title.finditer(header), starts, [*starts[1:], None], strict=True):
            rows = [line[start:end].strip() for line in lines]
            picture = "\n".join(row.replace("#", "C") for row in rows if row)
            ruleset = "side_rear" if "S" in picture.replace(" ", "") else "ua35"
            rings.append((ruleset, m.group(2), picture))
    return rings


def test_drawn_rings_of_the_rules_doc_are_what_the_code_computes():
    """The pictures of IC-01 and IC-11 in docs/rules.md, redrawn square by square from
    ``rules.areas``."""
    from tests.test_geometry import _ring_picture, _squash

    rings = _drawn_rings()
    assert len(rings) == 10
    for ruleset, facing, picture in rings:
        assert _ring_picture(picture, ruleset, facing) == _squash(picture), (ruleset, facing)
