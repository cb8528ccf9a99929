from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.limits_pending_type_0 import LimitsPendingType0


T = TypeVar("T", bound="Limits")


@_attrs_define
class Limits:
    """
    Attributes:
        soft_cap_usd (float | None): Crossing it in a period is an audit entry (`billing.soft_cap_reached`), once per
            period; null: none
        hard_cap_usd (float | None): Managed jobs that would pass it are refused (402), and a lowered one stops the
            newest managed jobs; null: none
        pending (LimitsPendingType0 | None): The caps in force after the next meter tick, when a change waits for it
    """

    soft_cap_usd: float | None
    hard_cap_usd: float | None
    pending: LimitsPendingType0 | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.limits_pending_type_0 import LimitsPendingType0

        soft_cap_usd: float | None
        soft_cap_usd = self.soft_cap_usd

        hard_cap_usd: float | None
        hard_cap_usd = self.hard_cap_usd

        pending: dict[str, Any] | None
        if isinstance(self.pending, LimitsPendingType0):
            pending = self.pending.to_dict()
        else:
            pending = self.pending

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "softCapUsd": soft_cap_usd,
                "hardCapUsd": hard_cap_usd,
                "pending": pending,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.limits_pending_type_0 import LimitsPendingType0

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

        def _parse_pending(data: object) -> LimitsPendingType0 | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                pending_type_0 = LimitsPendingType0.from_dict(data)

                return pending_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LimitsPendingType0 | None, data)

        pending = _parse_pending(d.pop("pending"))

        limits = cls(
            soft_cap_usd=soft_cap_usd,
            hard_cap_usd=hard_cap_usd,
            pending=pending,
        )

        limits.additional_properties = d
        return limits

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
