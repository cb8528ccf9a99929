from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.usage_managed import UsageManaged
    from ..models.usage_self import UsageSelf


T = TypeVar("T", bound="Usage")


@_attrs_define
class Usage:
    """Sums of the usage ledger’s entries recorded in [windowStart, windowEnd): each attempt’s runtime × resources (or the
    agent’s reported usage). Rounded to 6 decimals.

        Attributes:
            cpu_seconds (float):
            gpu_seconds (float):
            gb_seconds (float):
            estimate_usd (float): At the plan’s prices; `self` is always 0
            window_start (str):
            window_end (str):
            managed (UsageManaged): Jobs run by the managed pool
            self_ (UsageSelf): Jobs run by the workspace’s own agents (never billed)
    """

    cpu_seconds: float
    gpu_seconds: float
    gb_seconds: float
    estimate_usd: float
    window_start: str
    window_end: str
    managed: UsageManaged
    self_: UsageSelf
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cpu_seconds = self.cpu_seconds

        gpu_seconds = self.gpu_seconds

        gb_seconds = self.gb_seconds

        estimate_usd = self.estimate_usd

        window_start = self.window_start

        window_end = self.window_end

        managed = self.managed.to_dict()

        self_ = self.self_.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cpuSeconds": cpu_seconds,
                "gpuSeconds": gpu_seconds,
                "gbSeconds": gb_seconds,
                "estimateUsd": estimate_usd,
                "windowStart": window_start,
                "windowEnd": window_end,
                "managed": managed,
                "self": self_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.usage_managed import UsageManaged
        from ..models.usage_self import UsageSelf

        d = dict(src_dict)
        cpu_seconds = d.pop("cpuSeconds")

        gpu_seconds = d.pop("gpuSeconds")

        gb_seconds = d.pop("gbSeconds")

        estimate_usd = d.pop("estimateUsd")

        window_start = d.pop("windowStart")

        window_end = d.pop("windowEnd")

        managed = UsageManaged.from_dict(d.pop("managed"))

        self_ = UsageSelf.from_dict(d.pop("self"))

        usage = cls(
            cpu_seconds=cpu_seconds,
            gpu_seconds=gpu_seconds,
            gb_seconds=gb_seconds,
            estimate_usd=estimate_usd,
            window_start=window_start,
            window_end=window_end,
            managed=managed,
            self_=self_,
        )

        usage.additional_properties = d
        return usage

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
