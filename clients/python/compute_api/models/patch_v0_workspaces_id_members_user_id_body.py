from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.patch_v0_workspaces_id_members_user_id_body_role import (
    PatchV0WorkspacesIdMembersUserIdBodyRole,
)

T = TypeVar("T", bound="PatchV0WorkspacesIdMembersUserIdBody")


@_attrs_define
class PatchV0WorkspacesIdMembersUserIdBody:
    """
    Attributes:
        role (PatchV0WorkspacesIdMembersUserIdBodyRole):
    """

    role: PatchV0WorkspacesIdMembersUserIdBodyRole

    def to_dict(self) -> dict[str, Any]:
        role = self.role.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "role": role,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        role = PatchV0WorkspacesIdMembersUserIdBodyRole(d.pop("role"))

        patch_v0_workspaces_id_members_user_id_body = cls(
            role=role,
        )

        return patch_v0_workspaces_id_members_user_id_body
