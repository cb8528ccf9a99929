from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PostApiComputeNodesPollBody")


@_attrs_define
class PostApiComputeNodesPollBody:
    """
    Attributes:
        node_id (str):
        max_jobs (int | Unset): At most this many jobs, the highest priority first, then the oldest; reserved together,
            up to the instance's free places among CLAIMS_IN_FLIGHT_MAX at a time (one at a time for a node with a capacity,
            key quotas or the managed pool) Default: 1.
        wait_seconds (int | Unset):  Default: 0.
    """

    node_id: str
    max_jobs: int | Unset = 1
    wait_seconds: int | Unset = 0

    def to_dict(self) -> dict[str, Any]:
        node_id = self.node_id

        max_jobs = self.max_jobs

        wait_seconds = self.wait_seconds

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "nodeId": node_id,
            }
        )
        if max_jobs is not UNSET:
            field_dict["maxJobs"] = max_jobs
        if wait_seconds is not UNSET:
            field_dict["waitSeconds"] = wait_seconds

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        node_id = d.pop("nodeId")

        max_jobs = d.pop("maxJobs", UNSET)

        wait_seconds = d.pop("waitSeconds", UNSET)

        post_api_compute_nodes_poll_body = cls(
            node_id=node_id,
            max_jobs=max_jobs,
            wait_seconds=wait_seconds,
        )

        return post_api_compute_nodes_poll_body
