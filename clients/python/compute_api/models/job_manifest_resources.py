from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="JobManifestResources")


@_attrs_define
class JobManifestResources:
    """
    Attributes:
        cpu (float | Unset):
        memory_mb (int | Unset):
        gpu (int | Unset):
    """

    cpu: float | Unset = UNSET
    memory_mb: int | Unset = UNSET
    gpu: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        cpu = self.cpu

        memory_mb = self.memory_mb

        gpu = self.gpu

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if cpu is not UNSET:
            field_dict["cpu"] = cpu
        if memory_mb is not UNSET:
            field_dict["memoryMb"] = memory_mb
        if gpu is not UNSET:
            field_dict["gpu"] = gpu

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        cpu = d.pop("cpu", UNSET)

        memory_mb = d.pop("memoryMb", UNSET)

        gpu = d.pop("gpu", UNSET)

        job_manifest_resources = cls(
            cpu=cpu,
            memory_mb=memory_mb,
            gpu=gpu,
        )

        return job_manifest_resources
