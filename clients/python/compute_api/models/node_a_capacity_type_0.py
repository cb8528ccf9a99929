from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="NodeACapacityType0")


@_attrs_define
class NodeACapacityType0:
    """What it registered it has for its jobs; null when it gave none (it is then handed jobs whatever they ask for)

    Attributes:
        cpu (float):
        memory_mb (int):
        gpu (int):
    """

    cpu: float
    memory_mb: int
    gpu: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cpu = self.cpu

        memory_mb = self.memory_mb

        gpu = self.gpu

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cpu": cpu,
                "memoryMb": memory_mb,
                "gpu": gpu,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        cpu = d.pop("cpu")

        memory_mb = d.pop("memoryMb")

        gpu = d.pop("gpu")

        node_a_capacity_type_0 = cls(
            cpu=cpu,
            memory_mb=memory_mb,
            gpu=gpu,
        )

        node_a_capacity_type_0.additional_properties = d
        return node_a_capacity_type_0

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
