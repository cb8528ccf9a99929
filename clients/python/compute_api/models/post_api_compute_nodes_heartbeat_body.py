from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PostApiComputeNodesHeartbeatBody")


@_attrs_define
class PostApiComputeNodesHeartbeatBody:
    """
    Attributes:
        node_id (str):
        running_jobs (list[str] | Unset):
    """

    node_id: str
    running_jobs: list[str] | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        node_id = self.node_id

        running_jobs: list[str] | Unset = UNSET
        if not isinstance(self.running_jobs, Unset):
            running_jobs = self.running_jobs

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "nodeId": node_id,
            }
        )
        if running_jobs is not UNSET:
            field_dict["runningJobs"] = running_jobs

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        node_id = d.pop("nodeId")

        running_jobs = cast(list[str], d.pop("runningJobs", UNSET))

        post_api_compute_nodes_heartbeat_body = cls(
            node_id=node_id,
            running_jobs=running_jobs,
        )

        return post_api_compute_nodes_heartbeat_body
