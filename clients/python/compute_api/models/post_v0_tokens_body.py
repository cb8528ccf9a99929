from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.post_v0_tokens_body_role import PostV0TokensBodyRole
from ..types import UNSET, Unset

T = TypeVar("T", bound="PostV0TokensBody")


@_attrs_define
class PostV0TokensBody:
    """
    Attributes:
        name (str):
        role (PostV0TokensBodyRole | Unset):  Default: PostV0TokensBodyRole.MEMBER.
        expires_in_days (int | Unset):
    """

    name: str
    role: PostV0TokensBodyRole | Unset = PostV0TokensBodyRole.MEMBER
    expires_in_days: int | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        role: str | Unset = UNSET
        if not isinstance(self.role, Unset):
            role = self.role.value

        expires_in_days = self.expires_in_days

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
            }
        )
        if role is not UNSET:
            field_dict["role"] = role
        if expires_in_days is not UNSET:
            field_dict["expiresInDays"] = expires_in_days

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        _role = d.pop("role", UNSET)
        role: PostV0TokensBodyRole | Unset
        if isinstance(_role, Unset):
            role = UNSET
        else:
            role = PostV0TokensBodyRole(_role)

        expires_in_days = d.pop("expiresInDays", UNSET)

        post_v0_tokens_body = cls(
            name=name,
            role=role,
            expires_in_days=expires_in_days,
        )

        return post_v0_tokens_body
