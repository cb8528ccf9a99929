from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PostApiComputeNodesDrainBody")


@_attrs_define
class PostApiComputeNodesDrainBody:
    """
    Attributes:
        node_id (str):
        enable (bool | Unset):  Default: True.
        deadline_seconds (int | Unset):
    """

    node_id: str
    enable: bool | Unset = True
    deadline_seconds: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        node_id = self.node_id

        enable = self.enable

        deadline_seconds = self.deadline_seconds

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "nodeId": node_id,
            }
        )
        if enable is not UNSET:
            field_dict["enable"] = enable
        if deadline_seconds is not UNSET:
            field_dict["deadlineSeconds"] = deadline_seconds

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        node_id = d.pop("nodeId")

        enable = d.pop("enable", UNSET)

        deadline_seconds = d.pop("deadlineSeconds", UNSET)

        post_api_compute_nodes_drain_body = cls(
            node_id=node_id,
            enable=enable,
            deadline_seconds=deadline_seconds,
        )

        return post_api_compute_nodes_drain_body
