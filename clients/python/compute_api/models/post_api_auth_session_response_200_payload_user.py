from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PostApiAuthSessionResponse200PayloadUser")


@_attrs_define
class PostApiAuthSessionResponse200PayloadUser:
    """
    Attributes:
        id (str):
        email (str):
        workspace_id (str):
        created_at (str):
    """

    id: str
    email: str
    workspace_id: str
    created_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        email = self.email

        workspace_id = self.workspace_id

        created_at = self.created_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "email": email,
                "workspaceId": workspace_id,
                "createdAt": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        email = d.pop("email")

        workspace_id = d.pop("workspaceId")

        created_at = d.pop("createdAt")

        post_api_auth_session_response_200_payload_user = cls(
            id=id,
            email=email,
            workspace_id=workspace_id,
            created_at=created_at,
        )

        post_api_auth_session_response_200_payload_user.additional_properties = d
        return post_api_auth_session_response_200_payload_user

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
