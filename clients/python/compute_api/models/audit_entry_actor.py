from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.audit_entry_actor_type import AuditEntryActorType
from ..types import UNSET, Unset

T = TypeVar("T", bound="AuditEntryActor")


@_attrs_define
class AuditEntryActor:
    """
    Attributes:
        type_ (AuditEntryActorType):
        id (str):
        email (str | Unset):
    """

    type_: AuditEntryActorType
    id: str
    email: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        id = self.id

        email = self.email

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
                "id": id,
            }
        )
        if email is not UNSET:
            field_dict["email"] = email

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        type_ = AuditEntryActorType(d.pop("type"))

        id = d.pop("id")

        email = d.pop("email", UNSET)

        audit_entry_actor = cls(
            type_=type_,
            id=id,
            email=email,
        )

        audit_entry_actor.additional_properties = d
        return audit_entry_actor

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
