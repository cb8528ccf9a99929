from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.removed_member_role import RemovedMemberRole

if TYPE_CHECKING:
    from ..models.removed_member_revoked import RemovedMemberRevoked


T = TypeVar("T", bound="RemovedMember")


@_attrs_define
class RemovedMember:
    """
    Attributes:
        user_id (str):
        email (str):
        role (RemovedMemberRole): The role they had
        revoked (RemovedMemberRevoked):
    """

    user_id: str
    email: str
    role: RemovedMemberRole
    revoked: RemovedMemberRevoked
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        user_id = self.user_id

        email = self.email

        role = self.role.value

        revoked = self.revoked.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "userId": user_id,
                "email": email,
                "role": role,
                "revoked": revoked,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.removed_member_revoked import RemovedMemberRevoked

        d = dict(src_dict)
        user_id = d.pop("userId")

        email = d.pop("email")

        role = RemovedMemberRole(d.pop("role"))

        revoked = RemovedMemberRevoked.from_dict(d.pop("revoked"))

        removed_member = cls(
            user_id=user_id,
            email=email,
            role=role,
            revoked=revoked,
        )

        removed_member.additional_properties = d
        return removed_member

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
