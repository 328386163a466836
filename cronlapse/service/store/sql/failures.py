"""The driver's errors as the store's: every public operation of the SQL store raises
:class:`~cronlapse.service.store.errors.StoreFailure` where SQLAlchemy raised, with the same
words, so that nothing above the store catches a driver's type."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from sqlalchemy.exc import SQLAlchemyError

from cronlapse.service.store.errors import StoreFailure

P = ParamSpec("P")
R = TypeVar("R")


def failure(error: BaseException) -> StoreFailure:
    return StoreFailure(str(error), error.__class__.__name__)


def translated(method: Callable[P, R]) -> Callable[P, R]:
    """``method``, raising :class:`StoreFailure` for an SQLAlchemy error (the driver's own,
    psycopg's or sqlite3's, reach it wrapped as SQLAlchemy's ``DBAPIError``)."""

    @functools.wraps(method)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(*args, **kwargs)
        except SQLAlchemyError as error:
            raise failure(error) from error

    return call
