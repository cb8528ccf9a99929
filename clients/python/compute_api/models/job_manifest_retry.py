from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="JobManifestRetry")


@_attrs_define
class JobManifestRetry:
    """
    Attributes:
        max_attempts (int | Unset):  Default: 1.
        backoff_seconds (int | Unset):  Default: 10.
    """

    max_attempts: int | Unset = 1
    backoff_seconds: int | Unset = 10

    def to_dict(self) -> dict[str, Any]:
        max_attempts = self.max_attempts

        backoff_seconds = self.backoff_seconds

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if max_attempts is not UNSET:
            field_dict["maxAttempts"] = max_attempts
        if backoff_seconds is not UNSET:
            field_dict["backoffSeconds"] = backoff_seconds

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        max_attempts = d.pop("maxAttempts", UNSET)

        backoff_seconds = d.pop("backoffSeconds", UNSET)

        job_manifest_retry = cls(
            max_attempts=max_attempts,
            backoff_seconds=backoff_seconds,
        )

        return job_manifest_retry
