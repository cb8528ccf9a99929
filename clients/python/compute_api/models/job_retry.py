from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="JobRetry")


@_attrs_define
class JobRetry:
    """
    Attributes:
        max_attempts (int):
        backoff_seconds (int):
    """

    max_attempts: int
    backoff_seconds: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        max_attempts = self.max_attempts

        backoff_seconds = self.backoff_seconds

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "maxAttempts": max_attempts,
                "backoffSeconds": backoff_seconds,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        max_attempts = d.pop("maxAttempts")

        backoff_seconds = d.pop("backoffSeconds")

        job_retry = cls(
            max_attempts=max_attempts,
            backoff_seconds=backoff_seconds,
        )

        job_retry.additional_properties = d
        return job_retry

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
