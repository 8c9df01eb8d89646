"""The Debian mirror the private apt state uses: read from deb822 `.sources` and
one-line `sources.list` alike, never from an Ubuntu machine's archive, overridable."""

import shutil
from pathlib import Path

import pytest

from harness.obtain import apt
from harness.errors import SourceError

DATA = Path(__file__).resolve().parents[1] / "data" / "apt"

pytestmark = pytest.mark.unit


class Etc:
    """An /etc/apt of our own, with sample files put in."""

    def __init__(self, root: Path):
        self.root = root
        (root / "sources.list.d").mkdir()

    def add(self, name: str) -> None:
        dest = self.root / "sources.list" if name == "sources.list" else \
            self.root / "sources.list.d" / name
        shutil.copy(DATA / name, dest)


@pytest.fixture
def etc(tmp_path, monkeypatch):
    monkeypatch.delenv(apt.MIRROR_VARIABLE, raising=False)
    return Etc(tmp_path)


def mirror(etc, system="debian"):
    return apt.debian_mirror(etc.root, DATA / f"os-release-{system}")


@pytest.mark.parametrize("files, want", [
    # a container image's deb822 file
    (["debian.sources"], "http://mirror.example/debian"),
    # what issue 13 found: with only debootstrap's one-line sources.list there was nothing
    (["sources.list"], "http://oneline.example/debian"),
    (["options.list"], "http://options.example/debian"),          # [options]; security skipped
    (["security-first.sources"], "http://second.example/debian"),  # security stanza skipped
    (["disabled.sources"], "http://continued.example/debian"),     # Enabled: no; continuation
    (["debian.sources", "sources.list"], "http://mirror.example/debian"),  # deb822 first
], ids=["deb822", "one-line", "one-line-options", "deb822-security-first",
        "deb822-disabled-continued", "deb822-before-one-line"])
def test_mirror_read_from(etc, files, want):
    for name in files:
        etc.add(name)
    assert mirror(etc) == want


def test_ubuntu_is_never_taken_for_debian(etc):
    etc.add("debian.sources")  # even a Debian-looking entry: the packages differ by release
    with pytest.raises(SourceError, match=r"not Debian's \(ubuntu\): set FFDNN_DEBIAN_MIRROR") as e:
        mirror(etc, "ubuntu")
    assert "\n" not in str(e.value)


def test_variable_wins_everywhere(etc, monkeypatch):
    monkeypatch.setenv(apt.MIRROR_VARIABLE, "http://chosen.example/debian/")
    assert mirror(etc, "ubuntu") == "http://chosen.example/debian"


def test_nothing_to_read_names_the_variable(etc):
    with pytest.raises(SourceError, match=r"no Debian mirror .* set FFDNN_DEBIAN_MIRROR"):
        mirror(etc)


def test_this_machine_has_a_mirror():
    """The real /etc/apt of the machine running the tests (Debian or the variable set)."""
    if apt.os_id() not in ("", "debian") and not apt.os.environ.get(apt.MIRROR_VARIABLE):
        pytest.skip(f"not a Debian machine ({apt.os_id()})")
    assert "://" in apt.debian_mirror()


def test_a_stable_suite_has_a_state_of_its_own(tmp_path):
    """sid's state (and experimental's, sid's binary packages) stays where it was; a stable
    suite's source packages (bookworm's 5.1.9) are read in apt-<suite>, sources only."""
    m = "http://mirror.example/debian"
    sid, stable = apt.state_for(tmp_path, "sid"), apt.state_for(tmp_path, "bookworm")
    assert sid.root == tmp_path / "apt" and stable.root == tmp_path / "apt-bookworm"
    assert sid.sources_list(m) == (f"deb-src {m} sid main\ndeb-src {m} experimental main\n"
                                   f"deb {m} sid main\n")
    assert stable.sources_list(m) == f"deb-src {m} bookworm main\n"
    assert apt.state_for(tmp_path, "bookworm") is stable
