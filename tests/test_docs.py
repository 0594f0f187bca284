"""The project explains itself: every rule id cited is defined in docs/rules.md, every
document the code and docs point to exists in the repository, the README stays a short
front page whose commands are CI's, the docs' tables are what the code says (the action
table, the observation layout, the twin table) and the package metadata says which
Pythons it supports."""

from __future__ import annotations

import re
import sys
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
RULES = ROOT / "docs" / "rules.md"
API = ROOT / "docs" / "api.md"
DESIGN = ROOT / "docs" / "design.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
README_LIMIT = 10_240
"""The README's size in bytes: the pitch, the set-up, a quick start, tables and links."""

RULE_ID = re.compile(r"\b(?:UA|SRD|EP|SR|IC)(?:-[A-Z0-9]+)+\b")
"""A rule id: ``UA-FACE-02``, ``UA-FEAT-CLV``, ``SRD-AOO-04``, ``EP-5FT-01``, ``IC-07``."""
RANGE = re.compile(r"\b((?:UA|SRD|EP|SR|IC)(?:-[A-Z0-9]+)*-)(\d+)(?:\.\.|/)(\d+)\b")
"""Shorthands for several ids: ``UA-MOVE-01..06``, ``UA-FCL-01/02``."""
DOC_REFERENCE = re.compile(r"(?<![\w/.-])((?:docs/[\w./-]*\w)|(?:[A-Z][A-Z0-9_]*\.md))\b")
"""A file of the repository named in prose: ``docs/...`` or an upper-case ``NAME.md``."""
MD_LINK = re.compile(r"\]\(([^)\s]+)\)")
COMMIT_HASH = re.compile(
    r"(?<![#\w])(?!\d+d\d+\b)(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}(?!\w)"
)
"""A commit-like word: 7 to 40 hex digits with a letter and a digit, not a colour (``#...``),
a ``0x`` literal or dice (``1000000000d6``)."""


def _sources() -> list[Path]:
    """The package, its scenario files, the tests, the scripts and the top-level docs."""
    files = [*sorted((ROOT / "facing_env").rglob("*.py")), *sorted((ROOT / "agents").rglob("*.py"))]
    files += sorted((ROOT / "facing_env" / "configs").glob("*.yaml"))
    files += sorted((ROOT / "tests").rglob("*.py"))
    files += [ROOT / n for n in ("train.py", "train_rllib.py", "setup.py", "README.md")]
    files += [ROOT / n for n in ("CHANGELOG.md", "pyproject.toml", "mkdocs.yml")]
    files += [*DOCS, *sorted((ROOT / "docs" / "reference").glob("*.md"))]
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


@pytest.mark.parametrize("doc", ["README.md", *(str(d.relative_to(ROOT)) for d in DOCS)])
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


def _section(text: str, heading: str) -> str:
    """The body of the ``## heading`` section, up to the next ``## `` heading."""
    assert f"\n## {heading}\n" in text, f"no section '## {heading}'"
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def test_readme_is_a_short_front_page():
    """The README is at most 10 KB; the reference, the measurements and the history live
    in docs/ and CHANGELOG.md."""
    size = README.stat().st_size
    assert size <= README_LIMIT, f"README.md is {size} bytes, over {README_LIMIT}"


def test_every_docs_page_linked_from_the_readme_exists():
    """Each ``docs/`` page the README links to exists, and every page of docs/ is linked
    from the README (the front page leads to all of them)."""
    linked = {t.partition("#")[0] for t in MD_LINK.findall(_text(README)) if "://" not in t}
    pages = {t for t in linked if t.startswith("docs/") and t.endswith(".md")}
    assert pages, "the README links no docs page"
    assert [p for p in sorted(pages) if not (ROOT / p).is_file()] == []
    unlinked = {str(d.relative_to(ROOT)) for d in DOCS} - pages - {"docs/index.md"}
    assert unlinked == set(), f"docs pages the README does not link: {unlinked}"


@pytest.mark.parametrize(
    "path",
    [README, ROOT / "mkdocs.yml", *DOCS, *sorted((ROOT / "docs" / "reference").glob("*.md"))],
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_no_commit_hashes_in_readme_or_docs(path):
    """History lives in CHANGELOG.md: the README and the docs name no commit (measurements
    carry dates)."""
    assert COMMIT_HASH.findall(_text(path)) == []


def test_commit_hash_pattern_is_commit_like():
    """The hash check finds abbreviated and full hashes and leaves colours, ``0x`` literals,
    dice and plain numbers alone."""
    found = COMMIT_HASH.findall(
        "at 5e8ff20, at b3d3f95 and ec9b7d706fecffdf3885e2fc1ff3b45e81bdd2b9; "
        "#1f77b4 0xdeadbeef1 1000000000d6 2d6 1600000 facade1x"
    )
    assert found == ["5e8ff20", "b3d3f95", "ec9b7d706fecffdf3885e2fc1ff3b45e81bdd2b9"]


def _slot_expression(term: str, k: int) -> int:
    """``35``, ``35+K``, ``34+2K`` at ``K = k``."""
    match = re.fullmatch(r"(\d+)(?:\+(\d*)K)?", term.strip())
    assert match, f"bad index {term!r} in docs/api.md's action table"
    base, times = match.groups()
    return int(base) + (0 if times is None else int(times or 1) * k)


def _index_range(cell: str, k: int) -> range:
    """The indices of an action table row (``0``, ``1-8``, ``35+K..34+2K``)."""
    first, _, last = cell.replace("..", "-").partition("-")
    last = last or first
    return range(_slot_expression(first, k), _slot_expression(last, k) + 1)


def _action_rows() -> list[tuple[str, str, str, str]]:
    """(indices, action, argument, notes) of docs/api.md's action table."""
    section = _section(_text(API), "Actions")
    return re.findall(r"^\| ([\d.+K-]+) \| `([A-Z_]+)(?:\((\w+)\))?` \| (.*) \|$", section, re.M)


@pytest.mark.parametrize("n_slots", [1, 2, 4, 7])
def test_action_table_of_the_api_doc_is_the_action_layout(n_slots):
    """docs/api.md's action table, index by index, is ``actions.action_names()`` on both
    grids, and each row starts at its layout constant of ``facing_env/actions.py``
    (``MOVE_BASE``, ..., ``ATTACK_BASE`` and the slot blocks after it)."""
    from facing_env import actions
    from facing_env.rules import geometry

    rows = _action_rows()
    assert [r[1] for r in rows] == [
        "END_TURN",
        "MOVE",
        "STEP_KEEP_FACING",
        "FIVE_FOOT_STEP",
        "TURN",
        "RUN",
        "READY",
        *(kind.upper() for kind in actions.SLOT_KINDS),
    ]
    n_actions = actions.ATTACK_BASE + len(actions.SLOT_KINDS) * n_slots
    first = {
        "END_TURN": actions.END_TURN_INDEX,
        "MOVE": actions.MOVE_BASE,
        "STEP_KEEP_FACING": actions.STEP_BASE,
        "FIVE_FOOT_STEP": actions.FIVE_FOOT_BASE,
        "TURN": actions.TURN_BASE,
        "RUN": actions.RUN_INDEX,
        "READY": actions.READY_INDEX,
        **{
            kind.upper(): actions.ATTACK_BASE + block * n_slots
            for block, kind in enumerate(actions.SLOT_KINDS)
        },
    }
    size = re.search(r"`Discrete\((\d+) \+ (\d+)K\)`", _section(_text(API), "Actions"))
    assert size and int(size[1]) + int(size[2]) * n_slots == n_actions
    covered: list[int] = []
    for grid in ("square", "hex"):
        names = actions.action_names(grid, n_slots)
        dirs = geometry.direction_names(geometry.GridKind(grid))
        assert len(names) == n_actions
        covered = []
        for cell, label, arg, _notes in rows:
            span = _index_range(cell, n_slots)
            assert span.start == first[label], (label, span, first[label])
            covered += list(span)
            for j, index in enumerate(span):
                if arg == "dir":
                    assert len(span) == actions.N_DIRECTIONS
                    want = f"{label}({dirs[j]})" if j < len(dirs) else f"{label}(unused)"
                elif arg == "slot":
                    want = f"{label}(slot {j})"
                else:
                    assert arg == "" and len(span) == 1
                    want = label
                assert names[index] == want, (grid, index, names[index], want)
        assert covered == list(range(n_actions))
    move_notes = next(notes for _, label, _, notes in rows if label == "MOVE")
    for grid in ("square", "hex"):
        dirs = " ".join(geometry.direction_names(geometry.GridKind(grid)))
        assert f"{grid} `{dirs}`" in move_notes
    hex_dirs = len(geometry.direction_names(geometry.GridKind.HEX))
    assert f"({hex_dirs + 1}-{actions.N_DIRECTIONS} unused)" in move_notes


def test_observation_table_of_the_api_doc_is_the_layout():
    """docs/api.md's observation parts name the layout's channels, columns, scalars and
    tactics in order, with their counts."""
    from facing_env import observation as o

    section = _section(_text(API), "Observations")
    parts = dict(re.findall(r"^\| ([\w ()]+?) \| `([\w ]+)`", section, re.M))
    assert parts["window channels"].split() == list(o.CHANNELS)
    assert parts["table columns"].split() == list(o.FEATURES)
    assert parts["scalars"].split() == list(o.SCALARS)
    assert parts["tactics (per slot)"].split() == list(o.TACTICS)
    assert parts["tactic scalars"].split() == list(o.TACTIC_SCALARS)
    assert f"`W x W x {len(o.CHANNELS)}`" in section
    assert f"`K x {len(o.FEATURES)}`" in section and f"{len(o.SCALARS)} turn" in section
    assert f"(`K x {len(o.TACTICS)}` plus {len(o.TACTIC_SCALARS)} values)" in section


def _twin_rows() -> list[list[str]]:
    """The cells of docs/design.md's twin table (the first table of the page)."""
    section = _section(
        _text(DESIGN), "Twins: every concept in readable form, as a kernel, and its tests"
    )
    lines = [line for line in section.splitlines() if line.startswith("| ")]
    assert lines[0] == "| concept | readable | kernel | tests |"
    return [[c.strip() for c in line.strip("|").split(" | ")] for line in lines[1:]]


def test_design_opens_with_the_twin_table():
    """docs/design.md starts with the twin table: each readable module under
    ``facing_env/`` (``rules/`` or top level), each kernel under ``facing_env/fast/`` and
    each test file exists; every rule module and every kernel module has its row."""
    headings = re.findall(r"^## (.+)$", _text(DESIGN), re.M)
    assert headings[0].startswith("Twins")
    path = re.compile(r"`([\w/]+\.py)`")
    readable, kernels, missing = set(), set(), []
    for concept, mine, fast, tests in _twin_rows():
        assert concept and tests
        for name in path.findall(mine):
            assert name.startswith("rules/") or "/" not in name, name
            readable.add(name)
            if not (ROOT / "facing_env" / name).is_file():
                missing.append(name)
        for name in path.findall(fast):
            assert name.startswith("fast/"), name
            kernels.add(name)
            if not (ROOT / "facing_env" / name).is_file():
                missing.append(name)
        test_files = path.findall(tests)
        assert test_files, concept
        missing += [t for t in test_files if not (ROOT / "tests" / t).is_file()]
    assert missing == []
    package = ROOT / "facing_env"
    rules = {f"rules/{p.name}" for p in (package / "rules").glob("*.py")}
    fast = {f"fast/{p.name}" for p in (package / "fast").glob("*.py")}
    assert rules - readable == {"rules/__init__.py", "rules/_common.py"}
    assert fast - kernels == {"fast/__init__.py", "fast/jit.py", "fast/cache.py"}


INFRASTRUCTURE = {"__init__", "jit", "cache", "state", "batch", "lookup"}
"""Modules of ``fast/`` that are the array engine's machinery, not a rule concept."""


def test_every_kernel_module_has_a_readable_twin_of_its_name():
    """Issue 32: ``fast/X.py`` is the kernel of ``rules/X.py`` (or of the top-level
    ``X.py``: the observation, the rewards, the events)."""
    package = ROOT / "facing_env"
    lonely = [
        p.name
        for p in sorted((package / "fast").glob("*.py"))
        if p.stem not in INFRASTRUCTURE
        and not (package / "rules" / p.name).is_file()
        and not (package / p.name).is_file()
    ]
    assert lonely == []


def test_readme_commands_are_ci_commands():
    """The README's two set-up commands: the main job ends in ``python train.py``, and the
    test command is what ``.ci/run`` runs, step for step and in order (the CPU torch
    first)."""
    commands = re.findall(r"```bash\n(python3 -m venv .*)\n```", _section(_text(README), "Set up"))
    assert len(commands) == 2
    main_job, tests = (c.split(" && ") for c in commands)
    assert main_job[2:4] == ["pip install torch==2.13.0", 'pip install -e ".[train,render]"']
    assert main_job[-1] == "python train.py"
    assert tests[2] == "pip install torch==2.13.0" and tests[-1] == "python -m pytest -n 2"
    assert "docs" in re.search(r'"\.\[([\w,]+)\]"', tests[3])[1].split(",")
    ci = [line.strip() for line in _text(ROOT / ".ci" / "run").splitlines()]
    ci_steps = [line for line in ci if line in tests[2:]]
    assert ci_steps == tests[2:]


def test_site_config_covers_the_docs():
    """mkdocs.yml's navigation lists every page of docs/ and the API reference pages, and
    the built site is not committed."""
    config = _text(ROOT / "mkdocs.yml")
    nav = set(re.findall(r":\s*([\w/]+\.md)\s*$", config, re.M))
    pages = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    assert nav == pages
    assert "site/" in _text(ROOT / ".gitignore").splitlines()
