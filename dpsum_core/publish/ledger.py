"""The privacy-budget ledger of one dataset: every release and its ε, against a total.

A ledger is a small JSON file (one per dataset) kept by the data custodian::

    {"format": "dpsum-ledger", "version": 4, "total": 1.0,
     "dataset": {"name": "data.csv", "fingerprint": "content:sha256:…", "salt": "…",
                 "id_column": null},
     "total_changes": [{"created": …, "old_total": 1.0, "new_total": 2.0}],
     "releases": [{"created": …, "epsilon": 0.1, "algorithm": …, "truncation": …,
                   "data": …, "column": …, "id_column": …, "config": {…}}, …]}

:class:`Ledger` is the value (the CLI keeps it in a file, the dashboard in the session and as a
download); :func:`load`, :func:`save` and :func:`locked` are the file's side. Sums are exact:
each ε is read as the decimal its shortest repr spells (0.1 is 0.1), so ten releases of 0.1
fill a total of 1 exactly, with no floating-point tolerance that could let a release slip over.

A ledger holds firm:

- **bound to one dataset, by its content**: the first release records the salted digest of
  the data's content (:class:`~dpsum_core.data.content.Content`: the multiset of the cleaned
  (identifier, value) rows the release reads, values before clipping to [0, U]), computed by
  the engine in the scan it already makes. The same data saved as CSV or Parquet, as one file
  or a folder of parts, in any row order, read by any engine, meets the same ledger; other
  data is refused with both names. The salt is random per ledger and kept in it (two ledgers
  of the same data do not show it). A version-1 ledger (no binding) loads unbound and is
  bound by its next release, per row only (its releases predate units of privacy).
- **older bindings honoured, then upgraded**: a ledger of versions 2 and 3 is bound to a
  file's bytes (:func:`source_fingerprint`: the SHA-256 of one file, a folder's list of files
  with sizes and times, a Spark table's name). Its next release checks that binding (the
  caller passes ``legacy``, computed only then) and, if it holds, rebinds the ledger to the
  content (recorded in ``dataset.upgraded_from``), so a release never starts a fresh budget
  for data that a ledger already counts.
- **for one unit of privacy**: the binding records the privacy identifier (``id_column``;
  ``None``: one row = one person). ε spent per row says nothing of a person with many rows
  (group privacy multiplies it by their number of rows), so a release for another unit is
  refused rather than added up in a sum that would mean nothing. Ledgers of versions 1 and 2
  predate the identifier: their releases were per row. Every entry names its column and unit.
- **a total set once**: a different total is refused unless it is raised explicitly
  (:meth:`Ledger.with_total` with ``raise_total=True``), which is recorded in
  ``total_changes`` (old total, new total, time). A total is never lowered below the spend,
  nor set above ``limits.EPSILON_TOTAL_MAX``.
- **never replaced by one that lacks a release**: :func:`missing_releases` names the releases
  of one ledger that another does not record (the dashboard refuses such an upload).
- **one file, whatever the path**: :func:`resolve` follows symlinks once, and the lock, the
  temporary file and the replace all use the real path.
- **damaged values refused as damaged**: an ε or total that is not a finite positive number
  (a 400-digit integer, ``1e400``, a string) is a DataError naming the ledger, never a crash.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import stat
import tempfile
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from dpsum_core import limits
from dpsum_core.checkpoint import checkpoint
from dpsum_core.data.cleaning import unit_of_privacy
from dpsum_core.data.content import Content
from dpsum_core.errors import DataError, ParameterError
from dpsum_core.text import counted, number
from dpsum_core.validation import check_positive

FORMAT = "dpsum-ledger"
VERSION = 4
# version 1: no dataset binding, no total changes; version 2: no unit of privacy (per row);
# versions 2 and 3: bound to a file's bytes (source_fingerprint), upgraded on their next release
READABLE_VERSIONS = (1, 2, 3, 4)
CONTENT = "content:"  # the prefix of a content binding (any other is a byte fingerprint)


def _exact(value: float) -> Decimal:
    """``value`` as the decimal its shortest round-trip repr spells."""
    return Decimal(repr(float(value)))


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def file_fingerprint(path: str | os.PathLike) -> str:
    """``"sha256:<hex>"`` of the file's bytes: what bound a ledger of versions 2 and 3 to a
    dataset (checked once, when such a ledger is upgraded to a content binding)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 24), b""):
            checkpoint()  # a server file may hold gigabytes: stoppable every 16 MiB
            digest.update(block)
    return f"sha256:{digest.hexdigest()}"


def source_fingerprint(source: str | os.PathLike | None, *, table: str | None = None) -> str:
    """What bound a ledger of versions 2 and 3 to the data of a release (checked once, when
    such a ledger is upgraded to its content binding; see the module docstring).

    - one file: :func:`file_fingerprint` (its bytes' SHA-256, as a release in memory binds it,
      so a ledger carries over between engines);
    - a folder or a glob: ``"files:sha256:<hex>"`` of the sorted list of (path relative to
      the folder, or to the matched files' common folder; size in bytes; modification time in ns) of the
      files the engines read (:func:`dpsum_core.data.backends.duckdb.resolve_files`). Adding,
      removing, renaming, resizing or rewriting a file makes another dataset (refused by a
      bound ledger); copying the folder with its times kept (``cp -p``, ``rsync -t``) keeps
      it. A file rewritten with the same size within the clock's resolution and its time set
      back is not noticed: bytes are not read, by design (3·10⁸ rows);
    - a Spark table: ``"table:<name>"``: the catalog's name is the identity (the custodian
      who owns the table keeps one ledger per table).
    """
    if table:
        return f"table:{table}"
    if source is None:
        raise ParameterError("a release needs --data or --table")
    path = Path(source)
    if path.is_file():
        return file_fingerprint(path)
    from dpsum_core.data.backends.duckdb import resolve_files

    files = [f.resolve() for f in resolve_files(source)]
    root = path.resolve() if path.is_dir() else Path(os.path.commonpath([f.parent for f in files]))
    digest = hashlib.sha256()
    for f in sorted(files):
        stat = f.stat()
        name = f.relative_to(root).as_posix()
        digest.update(f"{name}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return f"files:sha256:{digest.hexdigest()}"


def bytes_fingerprint(data: bytes) -> str:
    """:func:`file_fingerprint` of bytes already in memory (an uploaded file; the legacy binding
    of an uploaded ledger of versions 2 and 3)."""
    return f"sha256:{hashlib.sha256(data).hexdigest()}"


@dataclass(frozen=True)
class Ledger:
    """The releases made from one dataset and the total ε they may spend (``None``: no total).

    Attributes
    ----------
    releases
        One dict per release (each holds ``epsilon``).
    total
        The total ε, or ``None`` until one is set.
    fingerprint, dataset
        The bound dataset's fingerprint and name; ``None`` while unbound (a new ledger, or a
        version-1 file). A content binding (``"content:sha256:…"``, the salted
        :meth:`Content.digest <dpsum_core.data.content.Content.digest>`), or the byte
        fingerprint of a ledger of versions 2 and 3 (:func:`source_fingerprint`) until its next
        release upgrades it.
    id_column
        The bound unit of privacy: the column identifying a person, ``None`` for one row per
        person (and while unbound).
    total_changes
        Every raise of the total: ``{created, old_total, new_total}``.
    salt
        The random salt of the content digest (``None`` before a content binding).
    upgraded_from
        The byte fingerprint a content binding replaced (``None``: bound by content at once).

    Privacy
    -------
    The ledger holds configurations, ε values, times, the data file's name and a salted hash of
    the data's content. The hash reveals no value, but whoever reads the ledger and already
    knows every row but one can test guesses of that row against it (PRIVACY.md): the ledger is
    the custodian's record, kept like the data, never part of a release.
    """

    releases: tuple[dict, ...] = ()
    total: float | None = None
    fingerprint: str | None = None
    dataset: str | None = None
    total_changes: tuple[dict, ...] = ()
    id_column: str | None = None
    salt: str | None = None
    upgraded_from: str | None = None

    def _spent(self) -> Decimal:
        return sum((_exact(r["epsilon"]) for r in self.releases), Decimal(0))

    @property
    def spent(self) -> float:
        """ε spent by every recorded release (sequential composition: the sum)."""
        return float(self._spent())

    def remaining(self, total: float | None = None) -> float | None:
        """ε left under ``total`` (default: the ledger's own), ``None`` without a total."""
        total = self.total if total is None else total
        if total is None:
            return None
        return float(_exact(total) - self._spent())

    def bound_to(
        self,
        content: Content,
        name: str,
        id_column: str | None = None,
        *,
        legacy: Callable[[], str] | None = None,
        column: str | None = None,
    ) -> Ledger:
        """This ledger bound to the dataset of ``content`` (named ``name``, its value column
        ``column`` when known) and the unit of privacy ``id_column`` (``None``: one row = one
        person).

        An unbound ledger (new, or version 1) is bound now, with a new random salt; a ledger
        bound to another dataset or another unit raises ParameterError naming both. A
        version-1 ledger's releases (made before units of privacy existed) were per row: it
        binds only to one row = one person. A ledger bound by an older version to a file's
        bytes is checked against ``legacy()`` (:func:`source_fingerprint` of the release's
        data, computed only then) and, if it holds, rebound to ``content``; without
        ``legacy`` it is refused (never silently given a fresh budget).
        """
        if self.fingerprint is None:
            if self.releases and id_column is not None:  # a version-1 ledger: per row
                raise ParameterError(
                    f"release refused: this ledger (version 1, not bound to a dataset) records "
                    f"{counted(len(self.releases), 'release')} made for one row = one person, this "
                    f"release is for {unit_of_privacy(id_column)}: ε spent per row does not "
                    "bound a person with many rows, so start a new ledger for this unit; "
                    "nothing was drawn"
                )
            salt = secrets.token_hex(16)
            return replace(
                self, fingerprint=content.digest(salt), salt=salt, dataset=name,
                id_column=id_column,
            )  # fmt: skip
        if not self.fingerprint.startswith(CONTENT):
            return self._upgraded(content, name, id_column, legacy)
        if self.id_column != id_column:  # said first: the rows differ by their identifiers too
            raise ParameterError(
                f"release refused: this ledger counts ε for {unit_of_privacy(self.id_column)}, "
                f"this release is for {unit_of_privacy(id_column)}: ε spent for one unit does "
                "not bound the other, so each unit keeps its own ledger; nothing was drawn"
            )
        if self.fingerprint != content.digest(self.salt or ""):
            mine = {str(r["column"]) for r in self.releases if r.get("column") is not None}
            was = f", column {mine.pop()!r}" if len(mine) == 1 else ""
            now = f", column {column!r}" if column is not None else ""
            if id_column is not None:
                now += f" (both identifying people by {id_column!r})"
            raise ParameterError(
                f"release refused: this ledger belongs to the dataset {self.dataset!r}{was}, "
                f"not to {name!r}{now}: their cleaned (identifier, value) rows differ. A ledger "
                "counts ε per content of those rows (PRIVACY.md): another column or another "
                "file is another dataset with its own ledger, even about the same people, whose "
                "ε it cannot add up; nothing was drawn"
            )
        return self

    def _upgraded(
        self,
        content: Content,
        name: str,
        id_column: str | None,
        legacy: Callable[[], str] | None,
    ) -> Ledger:
        """A ledger bound to a file's bytes (versions 2 and 3), checked and rebound to
        ``content``; the unit of privacy is checked by :meth:`bound_to` as for any ledger."""
        old = str(self.fingerprint)
        if legacy is None:
            raise ParameterError(
                f"release refused: this ledger (an older version) is bound to the bytes of "
                f"{self.dataset!r}, which cannot be checked here; nothing was drawn"
            )
        if legacy() != old:
            raise ParameterError(
                f"release refused: this ledger belongs to the dataset {self.dataset!r} "
                f"({old[:19]}…, bound to its file's bytes by an older version), not to "
                f"{name!r}: each dataset keeps its own ledger; nothing was drawn"
            )
        salt = secrets.token_hex(16)
        rebound = replace(
            self, fingerprint=content.digest(salt), salt=salt, dataset=name, upgraded_from=old
        )
        return rebound.bound_to(content, name, id_column)

    def with_total(self, total: float | None, *, raise_total: bool = False) -> Ledger:
        """This ledger with its total set to ``total`` (``None``: keep it).

        A ledger without a total takes ``total``. A different total is refused unless
        ``raise_total``; then it must be larger than the current one, and the change is
        recorded in :attr:`total_changes`.

        Raises
        ------
        ParameterError
            A total that is not a positive number (or is above
            :data:`~dpsum_core.limits.EPSILON_TOTAL_MAX`), a change without ``raise_total``, or
            a "raise" that does not raise.
        """
        if total is None:
            if raise_total:
                raise ParameterError("--raise-budget needs --budget: the new total ε")
            return self
        total = check_total(total)
        if self.total is None:
            return replace(self, total=float(total))
        if _exact(total) == _exact(self.total):
            return self
        if not raise_total:
            raise ParameterError(
                f"release refused: this ledger's total is ε = {self.total:g}; a total of "
                f"{total:g} would change it. Raise it on purpose with --raise-budget (recorded "
                "in the ledger), or leave --budget out; nothing was drawn"
            )
        if _exact(total) < _exact(self.total):
            raise ParameterError(
                f"the total ε of a ledger is only ever raised: {total:g} is below its total "
                f"{self.total:g}"
            )
        change = {"created": _now(), "old_total": self.total, "new_total": float(total)}
        return replace(self, total=float(total), total_changes=(*self.total_changes, change))

    def check(self, epsilon: float, total: float | None = None) -> None:
        """Raise ParameterError if a release of ``epsilon`` would take the spend over ``total``
        (default: the ledger's own total; no total, no limit). Call before any noise is drawn."""
        total = self.total if total is None else check_total(total)
        if total is None:
            return
        spent = self._spent()
        if spent + _exact(epsilon) > _exact(total):
            raise ParameterError(
                f"release refused: ε = {epsilon:g} would take the spent budget from "
                f"{float(spent):g} to {float(spent + _exact(epsilon)):g}, over the total "
                f"{total:g} ({counted(len(self.releases), 'release')} recorded); nothing was drawn"
            )

    def with_release(self, entry: dict, total: float | None = None) -> Ledger:
        """A ledger with ``entry`` appended; ``total`` as :meth:`with_total` (a different total
        is refused).

        ``entry`` holds ``epsilon`` and, as every release records them
        (:meth:`~dpsum_core.publish.release.ReleasePlan.ledger_entry`), the released ``column``
        and the unit of privacy (``id_column``, ``None``: one row = one person), which must be
        the ledger's own.
        """
        check_positive(entry["epsilon"], "epsilon")
        unit = entry.get("id_column", self.id_column)
        if self.fingerprint is not None and unit != self.id_column:
            raise ParameterError(
                f"release refused: this ledger counts ε for {unit_of_privacy(self.id_column)}, "
                f"this release is for {unit_of_privacy(unit)}; nothing was drawn"
            )
        return replace(self.with_total(total), releases=(*self.releases, dict(entry)))

    def to_json(self) -> str:
        """The file's text."""
        return json.dumps(
            {
                "format": FORMAT,
                "version": VERSION,
                "total": self.total,
                "spent": self.spent,
                "dataset": (
                    None
                    if self.fingerprint is None
                    else {
                        "name": self.dataset,
                        "fingerprint": self.fingerprint,
                        "id_column": self.id_column,
                        **({} if self.salt is None else {"salt": self.salt}),
                        **(
                            {}
                            if self.upgraded_from is None
                            else {"upgraded_from": self.upgraded_from}
                        ),
                    }
                ),
                "total_changes": list(self.total_changes),
                "releases": list(self.releases),
            },
            indent=2,
        )

    @classmethod
    def from_json(cls, text: str | bytes, *, name: str = "the ledger") -> Ledger:
        """Parse a ledger; a clear DataError if it is not one or is damaged."""
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError, RecursionError, ValueError):
            raise DataError(f"{name} is not valid JSON: is it a dpsum ledger?") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise DataError(f'{name} is not a dpsum ledger (no "format": "{FORMAT}")')
        version = data.get("version")
        if isinstance(version, bool) or version not in READABLE_VERSIONS:
            raise DataError(f"{name} has ledger version {version!r}, not {VERSION}")
        releases = data.get("releases")
        if not isinstance(releases, list) or not all(
            isinstance(r, dict) and _is_epsilon(r.get("epsilon")) for r in releases
        ):
            raise DataError(f'{name} is damaged: every release needs a finite positive "epsilon"')
        total = data.get("total")
        if total is not None and not _is_epsilon(total):
            raise DataError(f'{name} is damaged: "total" must be a finite positive number or null')
        bound = data.get("dataset")
        if bound is not None and not (
            isinstance(bound, dict)
            and isinstance(bound.get("fingerprint"), str)
            and isinstance(bound.get("name"), str)
            and isinstance(bound.get("id_column"), (str, type(None)))
            and isinstance(bound.get("upgraded_from"), (str, type(None)))
            and (
                isinstance(bound.get("salt"), str)
                if bound["fingerprint"].startswith(CONTENT)
                else "salt" not in bound
            )
        ):
            raise DataError(
                f'{name} is damaged: "dataset" needs a "name", a "fingerprint", an '
                '"id_column" (text or null) and, bound by content, its "salt"'
            )
        changes = data.get("total_changes", [])
        if not isinstance(changes, list) or not all(
            isinstance(c, dict)
            and _is_epsilon(c.get("old_total"))
            and _is_epsilon(c.get("new_total"))
            for c in changes
        ):
            raise DataError(f'{name} is damaged: "total_changes" needs positive old and new totals')
        return cls(
            tuple(releases),
            None if total is None else float(total),
            None if bound is None else bound["fingerprint"],
            None if bound is None else bound["name"],
            tuple(changes),
            None if bound is None else bound.get("id_column"),
            None if bound is None else bound.get("salt"),
            None if bound is None else bound.get("upgraded_from"),
        )


def check_total(total: float) -> float:
    """``total`` as a ledger's total ε: a positive number up to
    :data:`~dpsum_core.limits.EPSILON_TOTAL_MAX` (ten releases at the largest ε), else
    ParameterError in one line, its numbers written out (never ``1e+09``)."""
    value = check_positive(total, "budget")
    if value > limits.EPSILON_TOTAL_MAX:
        raise ParameterError(
            f"the total ε of a ledger must be at most {number(limits.EPSILON_TOTAL_MAX)} "
            f"(ten releases at the largest ε, {number(limits.EPSILON_MAX)}), got {number(value)}"
        )
    return value


def release_key(entry: dict) -> str:
    """What identifies a recorded release when two ledgers are compared: its time, ε (as the
    decimal it spells), algorithm, data, column and unit of privacy, as one text (hashable
    whatever a damaged file holds)."""
    fields = ("created", "algorithm", "data", "column", "id_column")
    return json.dumps(
        [str(_exact(entry["epsilon"])), *(entry.get(f) for f in fields)], default=str
    )


def missing_releases(kept: Ledger, other: Ledger) -> tuple[dict, ...]:
    """The releases recorded in ``kept`` that ``other`` lacks (compared by
    :func:`release_key`, each counted: two equal releases in ``kept`` need two in ``other``).

    Empty when ``other`` holds every release of ``kept``, e.g. ``kept`` downloaded and then
    extended by ``dpsum release --ledger``: ``other`` may then replace ``kept`` without losing
    a charge.

    Privacy
    -------
    Replacing a ledger by one that lacks a release under-counts the ε spent; the dashboard
    refuses such an upload (the CLI only ever appends to the file it reads).
    """
    held = Counter(release_key(r) for r in other.releases)
    lacking = []
    for entry in kept.releases:
        key = release_key(entry)
        if held[key]:
            held[key] -= 1
        else:
            lacking.append(entry)
    return tuple(lacking)


def _is_epsilon(value: object) -> bool:
    """A finite positive number that survives a float (a 400-digit integer does not)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return False
    try:
        number = float(value)
    except OverflowError:
        return False
    return 0 < number < float("inf")


def resolve(path: str | os.PathLike) -> Path:
    """The ledger's real path (symlinks followed once): the lock, the temporary file and the
    replace all use it, so a release through a link and one through the real path share one
    lock and one file (and ``save`` never replaces the link by a file)."""
    return Path(os.path.realpath(path))


def load(path: str | os.PathLike) -> Ledger:
    """The ledger in ``path``; an empty one if the file does not exist yet."""
    path = resolve(path)
    if not path.exists():
        return Ledger()
    if path.is_dir():
        raise ParameterError(f"--ledger {path} is a folder: give a file name")
    return Ledger.from_json(path.read_bytes(), name=f"ledger {path}")


def save(path: str | os.PathLike, ledger: Ledger) -> None:
    """Write ``ledger`` to ``path`` atomically: the file holds the old ledger or the new one,
    never a mix, whatever happens (a crash, Ctrl-C, SIGKILL, a full disk).

    The text goes to a temporary file in the same folder (so that the rename stays on one file
    system), is flushed and fsync'ed, then ``os.replace`` swaps it in (atomic on POSIX) and the
    folder is fsync'ed so that the rename itself survives a power cut. A crash before the
    rename leaves the old ledger and a stray ``.ledger-*.tmp`` file, which is never read. The
    file keeps its permission bits (a new one gets those of any new file: 0666 less the umask).
    """
    path = resolve(path)
    folder = path.parent
    mode = _mode(path)
    fd, tmp = tempfile.mkstemp(prefix=".ledger-", suffix=".tmp", dir=folder)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(ledger.to_json() + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    directory = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def _mode(path: Path) -> int:
    """The permission bits of the ledger file, or those a new file gets (0666 & ~umask)."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


@contextmanager
def locked(path: str | os.PathLike) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (through ``<real path>.lock``) for read → check → write.

    Two releases started at once against the same ledger then run one after the other, so both
    cannot pass the budget check on the same old spend. The lock is ``flock``'s: the operating
    system drops it when the process dies, so a killed release never leaves the ledger locked.
    """
    import fcntl  # POSIX only, like the atomic rename's guarantee

    lock = Path(f"{resolve(path)}.lock")
    with open(lock, "a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
