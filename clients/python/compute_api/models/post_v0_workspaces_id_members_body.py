from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.post_v0_workspaces_id_members_body_role import (
    PostV0WorkspacesIdMembersBodyRole,
)

T = TypeVar("T", bound="PostV0WorkspacesIdMembersBody")


@_attrs_define
class PostV0WorkspacesIdMembersBody:
    """
    Attributes:
        email (str):
        role (PostV0WorkspacesIdMembersBodyRole):
    """

    email: str
    role: PostV0WorkspacesIdMembersBodyRole

    def to_dict(self) -> dict[str, Any]:
        email = self.email

        role = self.role.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "email": email,
                "role": role,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        email = d.pop("email")

        role = PostV0WorkspacesIdMembersBodyRole(d.pop("role"))

        post_v0_workspaces_id_members_body = cls(
            email=email,
            role=role,
        )

        return post_v0_workspaces_id_members_body
