from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="LimitsPendingType0")


@_attrs_define
class LimitsPendingType0:
    """The caps in force after the next meter tick, when a change waits for it

    Attributes:
        soft_cap_usd (float | None):
        hard_cap_usd (float | None):
        requested_at (str):
    """

    soft_cap_usd: float | None
    hard_cap_usd: float | None
    requested_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        soft_cap_usd: float | None
        soft_cap_usd = self.soft_cap_usd

        hard_cap_usd: float | None
        hard_cap_usd = self.hard_cap_usd

        requested_at = self.requested_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "softCapUsd": soft_cap_usd,
                "hardCapUsd": hard_cap_usd,
                "requestedAt": requested_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_soft_cap_usd(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        soft_cap_usd = _parse_soft_cap_usd(d.pop("softCapUsd"))

        def _parse_hard_cap_usd(data: object) -> float | None:
            if data is None:
                return data
            return cast(float | None, data)

        hard_cap_usd = _parse_hard_cap_usd(d.pop("hardCapUsd"))

        requested_at = d.pop("requestedAt")

        limits_pending_type_0 = cls(
            soft_cap_usd=soft_cap_usd,
            hard_cap_usd=hard_cap_usd,
            requested_at=requested_at,
        )

        limits_pending_type_0.additional_properties = d
        return limits_pending_type_0

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
