from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="PatchV0WorkspacesIdBody")


@_attrs_define
class PatchV0WorkspacesIdBody:
    """
    Attributes:
        name (str | Unset):
        default_region (str | Unset):
    """

    name: str | Unset = UNSET
    default_region: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        default_region = self.default_region

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if name is not UNSET:
            field_dict["name"] = name
        if default_region is not UNSET:
            field_dict["defaultRegion"] = default_region

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name", UNSET)

        default_region = d.pop("defaultRegion", UNSET)

        patch_v0_workspaces_id_body = cls(
            name=name,
            default_region=default_region,
        )

        return patch_v0_workspaces_id_body
