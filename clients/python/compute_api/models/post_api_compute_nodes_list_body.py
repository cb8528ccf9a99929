from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PostApiComputeNodesListBody")


@_attrs_define
class PostApiComputeNodesListBody:
    """
    Attributes:
        limit (int | Unset):  Default: 50.
        cursor (str | Unset):
    """

    limit: int | Unset = 50
    cursor: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        limit = self.limit

        cursor = self.cursor

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if limit is not UNSET:
            field_dict["limit"] = limit
        if cursor is not UNSET:
            field_dict["cursor"] = cursor

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        limit = d.pop("limit", UNSET)

        cursor = d.pop("cursor", UNSET)

        post_api_compute_nodes_list_body = cls(
            limit=limit,
            cursor=cursor,
        )

        return post_api_compute_nodes_list_body
