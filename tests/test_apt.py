"""The Debian mirror the private apt state uses: read from deb822 `.sources` and
one-line `sources.list` alike, never from an Ubuntu machine's archive, overridable."""

import shutil
from pathlib import Path

import pytest

from harness.obtain import apt
from harness.errors import SourceError

DATA = Path(__file__).resolve().parent / "data" / "apt"

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


def test_deb822_container_image(etc):
    etc.add("debian.sources")
    assert mirror(etc) == "http://mirror.example/debian"


def test_one_line_sources_list_as_debootstrap_writes_it(etc):
    """What issue 13 found: with only a one-line sources.list there was nothing to read."""
    etc.add("sources.list")
    assert mirror(etc) == "http://oneline.example/debian"


def test_one_line_with_bracketed_options_skips_security(etc):
    etc.add("options.list")
    assert mirror(etc) == "http://options.example/debian"


def test_deb822_security_stanza_first_is_skipped(etc):
    etc.add("security-first.sources")
    assert mirror(etc) == "http://second.example/debian"


def test_deb822_disabled_stanza_and_continuation_line(etc):
    etc.add("disabled.sources")
    assert mirror(etc) == "http://continued.example/debian"


def test_deb822_comes_before_one_line(etc):
    etc.add("debian.sources")
    etc.add("sources.list")
    assert mirror(etc) == "http://mirror.example/debian"


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
