from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.post_api_compute_nodes_logs_body_lines_item import (
        PostApiComputeNodesLogsBodyLinesItem,
    )


T = TypeVar("T", bound="PostApiComputeNodesLogsBody")


@_attrs_define
class PostApiComputeNodesLogsBody:
    """
    Attributes:
        node_id (str):
        job_id (str):
        lease_id (str):
        lines (list[PostApiComputeNodesLogsBodyLinesItem]):
    """

    node_id: str
    job_id: str
    lease_id: str
    lines: list[PostApiComputeNodesLogsBodyLinesItem]

    def to_dict(self) -> dict[str, Any]:
        node_id = self.node_id

        job_id = self.job_id

        lease_id = self.lease_id

        lines = []
        for lines_item_data in self.lines:
            lines_item = lines_item_data.to_dict()
            lines.append(lines_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "nodeId": node_id,
                "job_id": job_id,
                "leaseId": lease_id,
                "lines": lines,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_api_compute_nodes_logs_body_lines_item import (
            PostApiComputeNodesLogsBodyLinesItem,
        )

        d = dict(src_dict)
        node_id = d.pop("nodeId")

        job_id = d.pop("job_id")

        lease_id = d.pop("leaseId")

        lines = []
        _lines = d.pop("lines")
        for lines_item_data in _lines:
            lines_item = PostApiComputeNodesLogsBodyLinesItem.from_dict(lines_item_data)

            lines.append(lines_item)

        post_api_compute_nodes_logs_body = cls(
            node_id=node_id,
            job_id=job_id,
            lease_id=lease_id,
            lines=lines,
        )

        return post_api_compute_nodes_logs_body
