from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.post_api_compute_nodes_result_body_usage import (
        PostApiComputeNodesResultBodyUsage,
    )


T = TypeVar("T", bound="PostApiComputeNodesResultBody")


@_attrs_define
class PostApiComputeNodesResultBody:
    """
    Attributes:
        node_id (str):
        job_id (str):
        lease_id (str):
        exit_code (int):
        runtime_ms (int):
        error (str | Unset):
        out_of_memory (bool | Unset): The job passed its resources.memoryMb and was killed for it: it ends with
            failureReason out_of_memory
        usage (PostApiComputeNodesResultBodyUsage | Unset):
    """

    node_id: str
    job_id: str
    lease_id: str
    exit_code: int
    runtime_ms: int
    error: str | Unset = UNSET
    out_of_memory: bool | Unset = UNSET
    usage: PostApiComputeNodesResultBodyUsage | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        node_id = self.node_id

        job_id = self.job_id

        lease_id = self.lease_id

        exit_code = self.exit_code

        runtime_ms = self.runtime_ms

        error = self.error

        out_of_memory = self.out_of_memory

        usage: dict[str, Any] | Unset = UNSET
        if not isinstance(self.usage, Unset):
            usage = self.usage.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "nodeId": node_id,
                "job_id": job_id,
                "leaseId": lease_id,
                "exitCode": exit_code,
                "runtimeMs": runtime_ms,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error
        if out_of_memory is not UNSET:
            field_dict["outOfMemory"] = out_of_memory
        if usage is not UNSET:
            field_dict["usage"] = usage

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_api_compute_nodes_result_body_usage import (
            PostApiComputeNodesResultBodyUsage,
        )

        d = dict(src_dict)
        node_id = d.pop("nodeId")

        job_id = d.pop("job_id")

        lease_id = d.pop("leaseId")

        exit_code = d.pop("exitCode")

        runtime_ms = d.pop("runtimeMs")

        error = d.pop("error", UNSET)

        out_of_memory = d.pop("outOfMemory", UNSET)

        _usage = d.pop("usage", UNSET)
        usage: PostApiComputeNodesResultBodyUsage | Unset
        if isinstance(_usage, Unset):
            usage = UNSET
        else:
            usage = PostApiComputeNodesResultBodyUsage.from_dict(_usage)

        post_api_compute_nodes_result_body = cls(
            node_id=node_id,
            job_id=job_id,
            lease_id=lease_id,
            exit_code=exit_code,
            runtime_ms=runtime_ms,
            error=error,
            out_of_memory=out_of_memory,
            usage=usage,
        )

        return post_api_compute_nodes_result_body
