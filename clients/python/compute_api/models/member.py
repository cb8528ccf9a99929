from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.member_role import MemberRole

T = TypeVar("T", bound="Member")


@_attrs_define
class Member:
    """
    Attributes:
        user_id (str):
        email (str):
        role (MemberRole):
        added_at (str):
    """

    user_id: str
    email: str
    role: MemberRole
    added_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        user_id = self.user_id

        email = self.email

        role = self.role.value

        added_at = self.added_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "userId": user_id,
                "email": email,
                "role": role,
                "addedAt": added_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        user_id = d.pop("userId")

        email = d.pop("email")

        role = MemberRole(d.pop("role"))

        added_at = d.pop("addedAt")

        member = cls(
            user_id=user_id,
            email=email,
            role=role,
            added_at=added_at,
        )

        member.additional_properties = d
        return member

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
