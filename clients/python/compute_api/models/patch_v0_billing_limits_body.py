from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PatchV0BillingLimitsBody")


@_attrs_define
class PatchV0BillingLimitsBody:
    """
    Attributes:
        soft_cap_usd (float | None | Unset): USD, at most 6 decimals; null removes the cap
        hard_cap_usd (float | None | Unset): USD, at most 6 decimals; null removes the cap
    """

    soft_cap_usd: float | None | Unset = UNSET
    hard_cap_usd: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        soft_cap_usd: float | None | Unset
        if isinstance(self.soft_cap_usd, Unset):
            soft_cap_usd = UNSET
        else:
            soft_cap_usd = self.soft_cap_usd

        hard_cap_usd: float | None | Unset
        if isinstance(self.hard_cap_usd, Unset):
            hard_cap_usd = UNSET
        else:
            hard_cap_usd = self.hard_cap_usd

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if soft_cap_usd is not UNSET:
            field_dict["softCapUsd"] = soft_cap_usd
        if hard_cap_usd is not UNSET:
            field_dict["hardCapUsd"] = hard_cap_usd

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_soft_cap_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        soft_cap_usd = _parse_soft_cap_usd(d.pop("softCapUsd", UNSET))

        def _parse_hard_cap_usd(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        hard_cap_usd = _parse_hard_cap_usd(d.pop("hardCapUsd", UNSET))

        patch_v0_billing_limits_body = cls(
            soft_cap_usd=soft_cap_usd,
            hard_cap_usd=hard_cap_usd,
        )

        return patch_v0_billing_limits_body
