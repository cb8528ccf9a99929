from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PlanPrices")


@_attrs_define
class PlanPrices:
    """USD per second of one CPU core, one GPU and one GB of memory (exact decimals, at most 15 significant digits)

    Attributes:
        cpu_second_usd (float):
        gpu_second_usd (float):
        gb_second_usd (float):
    """

    cpu_second_usd: float
    gpu_second_usd: float
    gb_second_usd: float
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cpu_second_usd = self.cpu_second_usd

        gpu_second_usd = self.gpu_second_usd

        gb_second_usd = self.gb_second_usd

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cpuSecondUsd": cpu_second_usd,
                "gpuSecondUsd": gpu_second_usd,
                "gbSecondUsd": gb_second_usd,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        cpu_second_usd = d.pop("cpuSecondUsd")

        gpu_second_usd = d.pop("gpuSecondUsd")

        gb_second_usd = d.pop("gbSecondUsd")

        plan_prices = cls(
            cpu_second_usd=cpu_second_usd,
            gpu_second_usd=gpu_second_usd,
            gb_second_usd=gb_second_usd,
        )

        plan_prices.additional_properties = d
        return plan_prices

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
