from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="UsageManaged")


@_attrs_define
class UsageManaged:
    """Jobs run by the managed pool

    Attributes:
        cpu_seconds (float):
        gpu_seconds (float):
        gb_seconds (float):
        estimate_usd (float): At the plan’s prices; `self` is always 0
    """

    cpu_seconds: float
    gpu_seconds: float
    gb_seconds: float
    estimate_usd: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cpu_seconds = self.cpu_seconds

        gpu_seconds = self.gpu_seconds

        gb_seconds = self.gb_seconds

        estimate_usd = self.estimate_usd

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cpuSeconds": cpu_seconds,
                "gpuSeconds": gpu_seconds,
                "gbSeconds": gb_seconds,
                "estimateUsd": estimate_usd,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        cpu_seconds = d.pop("cpuSeconds")

        gpu_seconds = d.pop("gpuSeconds")

        gb_seconds = d.pop("gbSeconds")

        estimate_usd = d.pop("estimateUsd")

        usage_managed = cls(
            cpu_seconds=cpu_seconds,
            gpu_seconds=gpu_seconds,
            gb_seconds=gb_seconds,
            estimate_usd=estimate_usd,
        )

        usage_managed.additional_properties = d
        return usage_managed

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
