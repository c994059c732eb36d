"""``grader gradebook copy``: move a course's gradebook from one database to another.

Switching a course from SQLite to PostgreSQL (or between servers) by changing the URL alone
leaves every earlier grade behind. This copies every table of nbgrader's gradebook (its own
schema, :data:`nbgrader.api.Base.metadata`, created in the destination by nbgrader) row by
row, parents before children, in one transaction, then checks that each table has as many
rows on both sides. The destination must hold no gradebook rows yet: nothing is merged or
overwritten.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import create_engine, func, select, text
from sqlalchemy.exc import NoSuchModuleError, SQLAlchemyError

from grader.errors import GraderError
from grader.notebooks.gradebook import GradebookTarget, checked_url, masked_url

BATCH = 5000


@dataclass
class Copied:
    rows: dict[str, int]  # table -> rows copied

    @property
    def total(self) -> int:
        return sum(self.rows.values())


def _version(connection) -> str | None:
    try:
        return connection.execute(text("select version_num from alembic_version")).scalar()
    except SQLAlchemyError:
        return None


def copy_gradebook(source_url: str, dest_url: str) -> Copied:
    """Copy every row of the gradebook at ``source_url`` into the empty one at ``dest_url``.

    The source is only read (never through nbgrader, which would add a course row to it); the
    destination is created by nbgrader, at the same schema version.

    Raises
    ------
    GraderError
        When a database cannot be opened or is no gradebook, the two URLs are the same, the
        destination already holds rows, the schema versions differ, or the counts differ after
        the copy (then nothing is committed).
    """
    from nbgrader.api import Base

    source_url, dest_url = checked_url(source_url, "--from"), checked_url(dest_url, "--to")
    if source_url == dest_url:
        raise GraderError("the source and the destination are the same database")
    shown_source = masked_url(source_url)
    tables = Base.metadata.sorted_tables  # parents before children (foreign keys)
    course = Base.metadata.tables["course"]
    try:
        engine = create_engine(source_url)
        with engine.connect() as src:
            courses = {row.id for row in src.execute(select(course))}
            version = _version(src)
    except NoSuchModuleError as exc:
        raise GraderError(f"cannot open {shown_source}: no driver for it ({exc})") from None
    except SQLAlchemyError as exc:
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
        raise GraderError(f"{shown_source} is not an nbgrader gradebook ({reason[0] if reason else exc})") from None
    dest = GradebookTarget(dest_url, sorted(courses)[0] if courses else "default_course")
    try:
        with engine.connect() as src, dest.open() as dst:  # nbgrader creates the schema in an empty destination
            if _version(dst.db) != version:
                raise GraderError(
                    f"the gradebooks have different nbgrader schema versions ({version} in "
                    f"{shown_source}, {_version(dst.db)} in {dest.shown}): open the older one with "
                    "this nbgrader first (any nbgrader command upgrades it)"
                )
            present = {row.id for row in dst.db.execute(select(course))}
            occupied = {
                t.name: n
                for t in tables
                if (n := dst.db.execute(select(func.count()).select_from(t)).scalar())
                and not (t is course and present <= courses)
            }
            if occupied:
                raise GraderError(
                    f"the gradebook {dest.shown} is not empty ("
                    + ", ".join(f"{k}: {v} rows" for k, v in sorted(occupied.items()))
                    + "): copy into a new, empty database"
                )
            copied: dict[str, int] = {}
            try:
                for table in tables:
                    result = src.execute(select(table)).mappings()
                    count = 0
                    while batch := result.fetchmany(BATCH):
                        rows = [dict(row) for row in batch if not (table is course and row["id"] in present)]
                        if rows:
                            dst.db.execute(table.insert(), rows)
                        count += len(batch)
                    copied[table.name] = count
                for table in tables:
                    there = dst.db.execute(select(func.count()).select_from(table)).scalar()
                    if there != copied[table.name]:
                        raise GraderError(f"{table.name}: {copied[table.name]} rows read, {there} in {dest.shown}")
                dst.db.commit()
            except GraderError:
                dst.db.rollback()
                raise
            except SQLAlchemyError as exc:  # a constraint or type the destination refuses: nothing is kept
                dst.db.rollback()
                reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
                raise GraderError(
                    f"copying into {dest.shown} failed, nothing was written: "
                    f"{reason[0] if reason else type(exc).__name__}"
                ) from None
    finally:
        engine.dispose()
    return Copied(copied)
