"""Hostile users and a flaky world against the files we write (issue 11, items 1 and 2).

A command writes only what it owns: ``--out`` names a new path, an empty folder or an earlier output of the
same command (its manifest lists every file); anything else is refused with one line, exit 2, and nothing
is touched or created. Every failure to write is one line naming the path; nothing half-written stays.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shutbox.base.errors import ShutboxError
from shutbox.base.output import OutputError, check_out_folder, out_file, out_folder, sweep_stale
from shutbox.firmware.host.bundle import MANIFEST, bundle_files
from tests.conftest import first_fast


def tree(root: Path) -> dict[str, bytes | str]:
    """Everything under ``root`` (files by content, links by target, folders as '/'), for before/after checks."""
    found: dict[str, bytes | str] = {}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(dirpath) / name
            rel = str(path.relative_to(root))
            if path.is_symlink():
                found[rel] = "-> " + os.readlink(path)
            elif path.is_dir():
                found[rel] = "/"
            else:
                found[rel] = path.read_bytes()
    return found


def one_line_error(proc: subprocess.CompletedProcess[str], *parts: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    for part in parts:
        assert part in proc.stderr, proc.stderr


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    """One real firmware build, to stand for "an earlier output"."""
    out = tmp_path_factory.mktemp("fw") / "fw"
    proc = subprocess.run([sys.executable, "-m", "shutbox", "firmware", "build", "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return out


# -- --out folders -------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_folder_holding_someone_elses_files_is_refused_untouched(cli, tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "thesis.txt").write_text("two years of work")
    before = tree(tmp_path)
    for args in (["firmware", "build"], ["kit"], ["cad"]):
        proc = cli(*args, "--out", str(proj))
        one_line_error(proc, f"--out {proj}", "nothing was changed")
    assert tree(tmp_path) == before


@pytest.mark.slow
def test_a_regular_file_is_not_turned_into_a_folder(cli, tmp_path):
    target = tmp_path / "notes.txt"
    target.write_text("keep me")
    for args in (["firmware", "build"], ["kit"], ["cad"]):
        one_line_error(cli(*args, "--out", str(target)), "is a file, not a folder")
    assert target.read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


@pytest.mark.slow
def test_a_dangling_link_is_refused_and_nothing_is_created_at_its_target(cli, tmp_path):
    elsewhere = tmp_path / "elsewhere" / "deep" / "out"
    (tmp_path / "link").symlink_to(elsewhere)
    (tmp_path / "link.pdf").symlink_to(elsewhere)
    for args in (["firmware", "build"], ["kit"]):
        one_line_error(cli(*args, "--out", str(tmp_path / "link")), "link to nothing")
    one_line_error(cli("scorepad", "--out", str(tmp_path / "link.pdf")), "link to nothing")
    assert not (tmp_path / "elsewhere").exists()
    one_line_error(cli("firmware", "build", "--out", str(tmp_path / "link" / "sub")), "link to nothing")
    assert not (tmp_path / "elsewhere").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "link.pdf"]


@pytest.mark.slow
def test_a_path_under_a_file_is_one_line(cli, tmp_path):
    (tmp_path / "afile").write_text("x")
    one_line_error(cli("firmware", "build", "--out", str(tmp_path / "afile" / "fw")), "is a file, not a folder")
    one_line_error(cli("scorepad", "--out", str(tmp_path / "afile" / "pad.pdf")), "is a file, not a folder")
    assert (tmp_path / "afile").read_text() == "x"


@pytest.mark.slow
def test_an_earlier_output_is_replaced_and_an_added_file_protects_it(cli, tmp_path, bundle):
    out = tmp_path / "fw"
    assert cli("firmware", "build", "--out", str(out)).returncode == 0
    first = tree(out)
    proc = cli("firmware", "build", "--out", str(out), "--tiles", "10")
    assert proc.returncode == 0, proc.stderr
    assert tree(out) != first and (out / MANIFEST).is_file()
    assert [p.name for p in tmp_path.iterdir()] == ["fw"]  # no staging or old copy left beside it
    (out / "my-notes.md").write_text("mine")
    second = tree(out)
    one_line_error(cli("firmware", "build", "--out", str(out)), "my-notes.md", "did not write")
    assert tree(out) == second


def test_an_output_of_another_command_is_not_replaced(cli, tmp_path, bundle):
    proc = cli("kit", "--out", str(bundle))
    one_line_error(proc, "not an earlier output of `shutbox kit`")
    assert (bundle / MANIFEST).is_file()


@pytest.mark.slow
def test_a_link_to_an_earlier_output_replaces_the_real_folder_and_keeps_the_link(cli, tmp_path):
    real = tmp_path / "real"
    assert cli("firmware", "build", "--out", str(real)).returncode == 0
    (tmp_path / "alias").symlink_to(real)
    assert cli("firmware", "build", "--out", str(tmp_path / "alias"), "--tiles", "12").returncode == 0
    assert (tmp_path / "alias").is_symlink() and "tiles" in (real / MANIFEST).read_text()
    assert '"tiles": 12' in (real / MANIFEST).read_text()


def test_stale_staging_of_a_killed_run_is_swept_but_a_live_ones_is_not(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    stale = tmp_path / f".fw.tmp-{dead_pid}-abc"
    (stale / "device").mkdir(parents=True)
    live = tmp_path / f".fw.tmp-{os.getpid()}-xyz"
    live.mkdir()
    other = tmp_path / ".other.tmp-1-abc"
    other.mkdir()
    with out_folder(tmp_path / "fw", "firmware build", MANIFEST, bundle_files) as staging:
        (staging / MANIFEST).write_text('{"device_files": ["main.py"]}')
        (staging / "device").mkdir()
        (staging / "device" / "main.py").write_text("pass")
    assert not stale.exists() and live.exists() and other.exists()
    assert sweep_stale(tmp_path, "fw") == []


def test_staging_from_before_pids_were_in_its_name_is_swept_once_it_is_an_hour_old(tmp_path):
    old = tmp_path / ".fw.tmp-k3j4h5"
    old.mkdir()
    os.utime(old, (time.time() - 7200, time.time() - 7200))
    recent = tmp_path / ".fw.tmp-a1b2c3"
    recent.mkdir()
    assert sweep_stale(tmp_path, "fw") == [old]
    assert recent.exists()


@pytest.mark.slow
@pytest.mark.parametrize("after_s", [0.2, 0.8, 1.5, 3.0])
def test_sigterm_during_a_build_is_one_line_and_leaves_no_staging(tmp_path, after_s):
    proc = subprocess.Popen([sys.executable, "-m", "shutbox", "firmware", "build", "--out", str(tmp_path / "fw")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(after_s)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode in (0, 143, -15), err
    assert "Traceback" not in err and err.count("\n") <= 1, err
    assert [p.name for p in tmp_path.iterdir()] in ([], ["fw"])


def test_a_killed_build_leaves_no_staging_behind_after_the_next_run(tmp_path):
    code = ("import os, sys; from pathlib import Path; from shutbox.base.output import out_folder;"
            "from shutbox.firmware.host.bundle import MANIFEST, bundle_files\n"
            "with out_folder(Path(sys.argv[1]), 'firmware build', MANIFEST, bundle_files) as t:\n"
            "    (t / 'half').write_text('x'); os.kill(os.getpid(), 9)\n")
    subprocess.run([sys.executable, "-c", code, str(tmp_path / "fw")], timeout=60)
    assert [p.name.split("-")[0] for p in tmp_path.iterdir()] == [".fw.tmp"]  # what kill -9 leaves
    with out_folder(tmp_path / "fw", "firmware build", MANIFEST, bundle_files) as staging:
        (staging / MANIFEST).write_text('{"device_files": ["main.py"]}')
    assert [p.name for p in tmp_path.iterdir()] == ["fw"]


# -- a failing body or a failing disk: nothing half-written ---------------------------------------------------


@pytest.mark.parametrize("err", [errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EDQUOT])
def test_a_write_failure_in_the_middle_is_one_line_and_leaves_nothing(tmp_path, err):
    out = tmp_path / "fw"
    with pytest.raises(OutputError, match=rf"--out {out}: cannot write part \({os.strerror(err)}\)"):
        with out_folder(out, "firmware build", MANIFEST, bundle_files) as staging:
            (staging / "part").write_text("half")
            raise OSError(err, os.strerror(err), str(staging / "part"))
    assert list(tmp_path.iterdir()) == []
    pad = tmp_path / "pad.pdf"
    pad.write_text("%PDF-1.4 old pad")
    with pytest.raises(OutputError, match=r"pad.pdf: cannot write"):
        with out_file(pad) as tmp:
            tmp.write_text("half")
            raise OSError(err, os.strerror(err))
    assert pad.read_text() == "%PDF-1.4 old pad" and [p.name for p in tmp_path.iterdir()] == ["pad.pdf"]


def test_missing_parent_folders_made_for_a_failed_output_are_removed(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        with out_folder(tmp_path / "a" / "b" / "fw", "firmware build", MANIFEST, bundle_files):
            raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow
def test_a_pdf_output_replaces_an_earlier_pdf_but_not_a_document_of_the_same_name(cli, tmp_path):
    pad = tmp_path / "pad.pdf"
    assert cli("scorepad", "--out", str(pad)).returncode == 0
    assert cli("scorepad", "--out", str(pad), "--players", "2").returncode == 0
    letter = tmp_path / "letter.pdf"
    letter.write_text("Dear Ann, this is not a PDF but it is mine.")
    one_line_error(cli("scorepad", "--out", str(letter)), "is not a PDF file", "nothing was changed")
    assert letter.read_text().startswith("Dear Ann")


@pytest.mark.slow
def test_single_files_refuse_folders_devices_and_bad_places(cli, tmp_path):
    (tmp_path / "dir").mkdir()
    one_line_error(cli("scorepad", "--out", str(tmp_path / "dir")), "is a folder")
    one_line_error(cli("scorepad", "--out", "/dev/null"), "not a regular file")
    one_line_error(cli("scorepad", "--out", "/proc/pad.pdf"), "/proc/pad.pdf", "cannot write")
    one_line_error(cli("card", "--out", "/proc/card.pdf"), "cannot write")
    assert Path("/dev/null").is_char_device()


def _mount_tmpfs(where: Path, options: str) -> bool:
    where.mkdir()
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)], capture_output=True)
    return proc.returncode == 0


@pytest.fixture
def small_disk(tmp_path):
    disk = tmp_path / "disk"
    if not _mount_tmpfs(disk, "size=256k"):
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    yield disk
    subprocess.run(["umount", "-l", str(disk)], capture_output=True)


@pytest.fixture
def read_only_disk(tmp_path):
    disk = tmp_path / "ro"
    if not _mount_tmpfs(disk, "ro,size=64k"):
        pytest.skip("cannot mount a read-only tmpfs here (needs root)")
    yield disk
    subprocess.run(["umount", "-l", str(disk)], capture_output=True)


@pytest.mark.slow
def test_a_full_disk_is_one_line_and_leaves_nothing(cli, small_disk):
    (small_disk / "fill").write_bytes(b"\0" * 200_000)
    before = tree(small_disk)
    one_line_error(cli("firmware", "build", "--out", str(small_disk / "fw")), "No space left on device")
    one_line_error(cli("scorepad", "--out", str(small_disk / "pad.pdf"), "--pages", "200"), "No space left")
    assert tree(small_disk) == before


@pytest.mark.slow
def test_a_read_only_filesystem_is_one_line(cli, read_only_disk):
    for args, name in ((["firmware", "build", "--out"], "x"), (["kit", "--out"], "x"),
                       (["scorepad", "--out"], "x.pdf")):
        one_line_error(cli(*args, str(read_only_disk / name)), "Read-only file system")


# -- property: whatever a folder holds, it is either ours to replace or refused untouched ---------------------

_names = st.text(st.characters(codec="utf-8", exclude_characters="/\x00"), min_size=1, max_size=12).filter(
    lambda n: n not in (".", ".."))


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(_names, min_size=1, max_size=5, unique=True))
def test_any_folder_not_made_by_the_command_is_refused(tmp_path_factory, names):
    root = tmp_path_factory.mktemp("prop")
    out = root / "out"
    out.mkdir()
    for name in names:
        try:
            (out / name).write_text("user data")
        except OSError:
            return
    before = tree(root)
    with pytest.raises(ShutboxError) as err:
        check_out_folder(out, "firmware build", MANIFEST, bundle_files)
    assert "\n" not in str(err.value) and "\x1b" not in str(err.value)
    assert tree(root) == before


# -- the one output-path writer: what is written matches its name; the output is what is named (issue 29) --------


@pytest.mark.parametrize(("args", "flag", "suffix"), [
    (["scorepad", "--out", "x.txt"], "--out", ".pdf"),
    (["scorepad", "--out", "pad"], "--out", ".pdf"),
    (["scorepad", "--out", ".pdf"], "--out", ".pdf"),
    (["card", "--out", "card.png"], "--out", ".pdf"),
    (["review", "game.json", "--pdf", "report.txt"], "--pdf", ".pdf"),
    (["stats", "--db", "g.sqlite3", "--csv", "table.xlsx"], "--csv", ".csv"),
])
def test_an_output_whose_suffix_is_not_what_is_written_is_refused_in_one_line(cli, tmp_path, args, flag, suffix):
    before = tree(tmp_path)
    proc = cli(*args, cwd=tmp_path)
    one_line_error(proc, f"{flag} ", f"give a name ending in {suffix}")
    assert tree(tmp_path) == before  # nothing written, not even an empty file


def test_suffixes_are_matched_whatever_their_case(cli, tmp_path):
    assert cli("scorepad", "--out", "PAD.PDF", cwd=tmp_path).returncode == 0
    assert (tmp_path / "PAD.PDF").read_bytes().startswith(b"%PDF-")


@pytest.mark.parametrize("name", first_fast(["a\x1b[2Jb.pdf", "new\nline.pdf", "bell\x07.pdf", "bidi\u202etxt.pdf"]))
def test_control_characters_in_an_output_path_are_escaped_in_the_wrote_line(cli, tmp_path, name):
    proc = cli("scorepad", "--out", name, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / name).read_bytes().startswith(b"%PDF-")
    line = proc.stdout
    assert line.count("\n") == 1 and line.startswith("wrote ")
    assert line.rstrip("\n").isprintable(), repr(line)


def test_a_failing_cache_write_names_the_users_output_first(tmp_path):
    from shutbox.base.output import write_error

    cache_file = tmp_path / "cache" / "cad" / ".building-x" / "print.brep"
    exc = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(cache_file))
    text = str(write_error(tmp_path / "out", exc, "--out"))
    assert text.startswith(f"--out {tmp_path / 'out'}: cannot write (No space left on device")
    assert text.index(str(tmp_path / "out")) < text.index("print.brep")


def test_opencascade_failing_to_write_is_an_os_error_naming_the_file(tmp_path):
    from shutbox.cad.build.export import occt_write

    def bad_cast(path: str) -> None:
        raise RuntimeError("std::bad_cast")

    with pytest.raises(OSError) as caught:
        occt_write(tmp_path / "print.brep", bad_cast)
    assert caught.value.filename == str(tmp_path / "print.brep")
    with pytest.raises(OSError):
        occt_write(tmp_path / "print.brep", lambda path: False)


@pytest.mark.slow  # a CAD build up to its first part (OpenCASCADE loads): half a minute or more
def test_a_full_disk_under_the_cad_cache_names_the_output_not_the_cache(cli, small_disk, tmp_path):
    (small_disk / "fill").write_bytes(b"\0" * 200_000)
    env_cache = small_disk / "cache"
    proc = subprocess.run([sys.executable, "-m", "shutbox", "cad", "--out", str(small_disk / "cad"), "--quiet"],
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "SHUTBOX_CACHE_DIR": str(env_cache)})
    one_line_error(proc, f"--out {small_disk / 'cad'}: cannot write (No space left on device")
    assert not (small_disk / "cad").exists()


@pytest.mark.slow  # a review report (matplotlib) on a full disk
def test_a_full_disk_for_a_review_report_is_one_line(small_disk, tmp_path):
    """matplotlib's font cache on the same full disk used to add a second line ("Could not save font_manager
    cache")."""
    from shutbox.companion.store.database import GameStore
    from shutbox.game import events as ev
    from shutbox.game.gamefile import settings_of
    from shutbox.kit.model import Rules

    db = tmp_path / "g.sqlite3"
    with GameStore(db) as store:
        gid = store.new_game(settings_of(Rules()), ev.players(["Ann", "Bob"]))
        store.append(gid, ev.throw(3, 4))
    (small_disk / "fill").write_bytes(b"\0" * 200_000)
    before = tree(small_disk)
    env = {**os.environ, "MPLCONFIGDIR": str(small_disk / "mpl"), "SHUTBOX_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-m", "shutbox", "review", str(gid), "--db", str(db), "--pdf",
                           str(small_disk / "r.pdf")], capture_output=True, text=True, timeout=300, env=env)
    one_line_error(proc, f"--pdf {small_disk / 'r.pdf'}: cannot write (No space left on device")
    assert not (small_disk / "r.pdf").exists()
    assert {k for k in tree(small_disk) if not k.startswith("mpl")} == set(before)
