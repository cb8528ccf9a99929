from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PostApiComputeNodesRegisterBodyCapacity")


@_attrs_define
class PostApiComputeNodesRegisterBodyCapacity:
    """What this agent has for its jobs. A poll is then handed only jobs whose resources fit what its running jobs leave
    free; without it, jobs whatever they ask for

        Attributes:
            cpu (float):
            memory_mb (int):
            gpu (int | Unset):  Default: 0.
    """

    cpu: float
    memory_mb: int
    gpu: int | Unset = 0

    def to_dict(self) -> dict[str, Any]:
        cpu = self.cpu

        memory_mb = self.memory_mb

        gpu = self.gpu

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "cpu": cpu,
                "memoryMb": memory_mb,
            }
        )
        if gpu is not UNSET:
            field_dict["gpu"] = gpu

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        cpu = d.pop("cpu")

        memory_mb = d.pop("memoryMb")

        gpu = d.pop("gpu", UNSET)

        post_api_compute_nodes_register_body_capacity = cls(
            cpu=cpu,
            memory_mb=memory_mb,
            gpu=gpu,
        )

        return post_api_compute_nodes_register_body_capacity
