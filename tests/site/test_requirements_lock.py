"""requirements.txt names the direct requirements; requirements.lock, made from it by `./dev
lock`, pins the whole graph with hashes, and is what `./dev` installs. They must agree."""

from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]


def requirement_lines(path: Path) -> list[tuple[Requirement, list[str]]]:
    """Each requirement of a pip requirements file, with the hashes its line carries."""
    entries = []
    for line in path.read_text().replace("\\\n", " ").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        specifier, *options = line.split(" --hash=")
        entries.append((Requirement(specifier), [option.strip() for option in options]))
    return entries


def pinned_version(requirement: Requirement) -> str:
    (specifier,) = requirement.specifier
    assert specifier.operator == "==", f"{requirement} is not pinned to one version"
    return specifier.version


def locked_versions() -> dict[str, set[str]]:
    versions: dict[str, set[str]] = {}
    for requirement, _ in requirement_lines(ROOT / "requirements.lock"):
        versions.setdefault(canonicalize_name(requirement.name), set()).add(
            pinned_version(requirement)
        )
    return versions


def test_every_direct_requirement_is_locked_at_its_pinned_version() -> None:
    locked = locked_versions()
    disagreements = []
    for requirement, _ in requirement_lines(ROOT / "requirements.txt"):
        name = canonicalize_name(requirement.name)
        if locked.get(name) != {pinned_version(requirement)}:
            disagreements.append(f"{requirement}: locked {sorted(locked.get(name, ()))}")
    assert not disagreements, "run ./dev lock: " + "; ".join(disagreements)


def test_every_locked_package_is_pinned_with_hashes() -> None:
    entries = requirement_lines(ROOT / "requirements.lock")
    assert len(entries) > len(requirement_lines(ROOT / "requirements.txt"))
    for requirement, hashes in entries:
        pinned_version(requirement)
        assert hashes, f"{requirement} has no hash"
        assert all(value.startswith("sha256:") for value in hashes), requirement
