"""The caller's own models (`client.models`): definitions stored as immutable versions, run with
``client.simulate(model="name", n=...)`` (docs/models.md)."""

from __future__ import annotations

import builtins
import urllib.parse
from collections.abc import Mapping
from typing import Any, cast

from ._transport import Transport
from .types import Model, ModelDeleted, ModelListItem, ModelValidation

__all__ = ["Models"]


def _name(name: str) -> str:
    return urllib.parse.quote(name, safe="")


class Models:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def put(self, name: str, definition: Mapping[str, Any]) -> Model:
        """Stores ``definition`` as the model ``name``: version 1, or the next version; a definition equal to
        the latest one (by value) stores nothing and answers that version. Every problem of a definition
        raises ``ApiError`` ``validation_failed`` with all of them in ``details["issues"]``."""
        return cast(Model, self._transport.request("PUT", f"/v1/models/{_name(name)}", body=dict(definition)).json())

    def get(self, name: str, version: int | None = None) -> Model:
        """The latest version of a model, or the ``version`` given."""
        path = f"/v1/models/{_name(name)}" if version is None else f"/v1/models/{_name(name)}/versions/{int(version)}"
        return cast(Model, self._transport.request("GET", path).json())

    def list(self) -> builtins.list[ModelListItem]:
        """The account's models, the latest version of each, newest first."""
        return cast("list[ModelListItem]", self._transport.request("GET", "/v1/models").json())

    def validate(self, definition: Mapping[str, Any]) -> ModelValidation:
        """Checks a definition without storing it: ``valid``, every issue, the warnings and, when valid, a
        sample of 20 records with a summary over 10,000."""
        return cast(ModelValidation, self._transport.request("POST", "/v1/models/validate", body=dict(definition)).json())

    def delete(self, name: str) -> ModelDeleted:
        """Deletes every version of a model; runs already made replay as before."""
        return cast(ModelDeleted, self._transport.request("DELETE", f"/v1/models/{_name(name)}").json())
