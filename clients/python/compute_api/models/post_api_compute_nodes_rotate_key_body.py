from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PostApiComputeNodesRotateKeyBody")


@_attrs_define
class PostApiComputeNodesRotateKeyBody:
    """
    Attributes:
        node_id (str):
    """

    node_id: str

    def to_dict(self) -> dict[str, Any]:
        node_id = self.node_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "nodeId": node_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        node_id = d.pop("nodeId")

        post_api_compute_nodes_rotate_key_body = cls(
            node_id=node_id,
        )

        return post_api_compute_nodes_rotate_key_body
