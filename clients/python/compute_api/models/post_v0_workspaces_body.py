from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PostV0WorkspacesBody")


@_attrs_define
class PostV0WorkspacesBody:
    """
    Attributes:
        name (str):
        default_region (str | Unset):  Default: 'local'.
    """

    name: str
    default_region: str | Unset = "local"

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        default_region = self.default_region

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
            }
        )
        if default_region is not UNSET:
            field_dict["defaultRegion"] = default_region

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        default_region = d.pop("defaultRegion", UNSET)

        post_v0_workspaces_body = cls(
            name=name,
            default_region=default_region,
        )

        return post_v0_workspaces_body
