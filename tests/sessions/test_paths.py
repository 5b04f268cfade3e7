"""PathMapper: recorded paths (local, relative, other repositories, other machines) onto work-tree paths."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from git_intent.sessions.path_mapping import PathMapper

TRACKED = ["src/app.py", "README.md", "CLAUDE.md", "lib/a/util.py", "lib/b/util.py", "docs/guide.md"]
FOREIGN = "/Users/nobody/x"  # a machine path that does not exist here

pytestmark = pytest.mark.skipif(
    os.path.exists("/Users/nobody"), reason="/Users/nobody exists on this machine"
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    (path / "src").mkdir(parents=True)
    return path


@pytest.fixture
def mapper(root: Path) -> PathMapper:
    return PathMapper(root, TRACKED)


def test_absolute_path_inside_root(mapper: PathMapper, root: Path) -> None:
    assert mapper.to_repo(str(root / "src" / "app.py")) == "src/app.py"
    assert mapper.to_repo(str(root / "src" / "app.py"), cwd="/somewhere/else") == "src/app.py"
    # inside the work tree counts even for a file git does not track yet
    assert mapper.to_repo(str(root / "new" / "dir" / "file.txt")) == "new/dir/file.txt"


def test_relative_path_is_resolved_against_cwd(mapper: PathMapper, root: Path) -> None:
    assert mapper.to_repo("app.py", cwd=str(root / "src")) == "src/app.py"
    assert mapper.to_repo("src/app.py", cwd=str(root)) == "src/app.py"
    assert mapper.to_repo("./src/../README.md", cwd=str(root)) == "README.md"
    assert mapper.to_repo("../README.md", cwd=str(root / "src")) == "README.md"


def test_relative_path_without_cwd(mapper: PathMapper) -> None:
    assert mapper.to_repo("src/app.py") == "src/app.py"
    assert mapper.to_repo("checkout/src/app.py") == "src/app.py"
    assert mapper.to_repo("app.py") is None


def test_path_in_another_local_directory_is_not_ours(mapper: PathMapper, tmp_path: Path) -> None:
    other = tmp_path / "other"
    (other / "src").mkdir(parents=True)
    # same suffix as a tracked file, but it exists here, in another repository
    assert mapper.to_repo(str(other / "src" / "app.py"), cwd=str(other)) is None
    assert mapper.to_repo(str(other / "src" / "app.py")) is None
    assert mapper.to_repo("src/app.py", cwd=str(other)) is None


def test_dot_dot_out_of_root_is_not_ours(mapper: PathMapper, root: Path, tmp_path: Path) -> None:
    (tmp_path / "repo2" / "src").mkdir(parents=True)
    assert mapper.to_repo(str(root / ".." / "repo2" / "src" / "app.py")) is None
    assert mapper.to_repo("../repo2/src/app.py", cwd=str(root)) is None


def test_symlinked_root_and_symlinked_path(root: Path, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(root, target_is_directory=True)
    assert PathMapper(link, TRACKED).to_repo(str(root / "src" / "app.py")) == "src/app.py"
    assert PathMapper(root, TRACKED).to_repo(str(link / "src" / "app.py")) == "src/app.py"


def test_foreign_path_is_mapped_by_cwd_and_suffix(mapper: PathMapper) -> None:
    assert mapper.to_repo(f"{FOREIGN}/src/app.py", cwd=FOREIGN) == "src/app.py"
    assert mapper.to_repo(f"{FOREIGN}/README.md", cwd=FOREIGN) == "README.md"
    assert mapper.to_repo("src/app.py", cwd=FOREIGN) == "src/app.py"
    assert mapper.to_repo(f"{FOREIGN}/src/app.py") == "src/app.py"
    # the session ran in the folder above the checkout
    assert mapper.to_repo("/Users/nobody/work/checkout/src/app.py", cwd="/Users/nobody/work") == "src/app.py"
    # the session ran in a subfolder of the checkout
    assert mapper.to_repo(f"{FOREIGN}/lib/a/util.py", cwd=f"{FOREIGN}/lib") == "lib/a/util.py"


def test_foreign_path_with_unique_longer_suffix(mapper: PathMapper) -> None:
    assert mapper.to_repo(f"{FOREIGN}/lib/a/util.py") == "lib/a/util.py"
    assert mapper.to_repo("/home/someone/elsewhere/lib/b/util.py") == "lib/b/util.py"


def test_ambiguous_suffix_is_not_mapped(mapper: PathMapper) -> None:
    assert mapper.to_repo(f"{FOREIGN}/util.py", cwd=FOREIGN) is None
    assert mapper.to_repo(f"{FOREIGN}/lib/c/util.py", cwd=FOREIGN) is None
    assert mapper.to_repo("util.py") is None


def test_one_component_suffix_never_maps_to_a_nested_file(mapper: PathMapper) -> None:
    assert mapper.to_repo(f"{FOREIGN}/guide.md") is None
    assert mapper.to_repo(f"{FOREIGN}/notes/app.py", cwd=FOREIGN) is None


def test_foreign_session_in_a_subfolder(mapper: PathMapper) -> None:
    assert mapper.to_repo(f"{FOREIGN}/docs/guide.md", cwd=f"{FOREIGN}/docs") == "docs/guide.md"
    assert mapper.to_repo("guide.md", cwd=f"{FOREIGN}/docs") == "docs/guide.md"


def test_empty_path(mapper: PathMapper) -> None:
    assert mapper.to_repo("") is None
    assert mapper.to_repo("", cwd=FOREIGN) is None


def test_foreign_global_memory_file_is_not_the_repositorys(mapper: PathMapper) -> None:
    assert mapper.to_repo("/Users/nobody/.claude/CLAUDE.md", cwd=FOREIGN) is None


def test_windows_path_is_mapped_by_suffix(mapper: PathMapper) -> None:
    assert mapper.to_repo(r"C:\Users\me\proj\src\app.py", cwd=r"C:\Users\me\proj") == "src/app.py"
