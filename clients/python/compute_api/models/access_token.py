from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.access_token_role import AccessTokenRole

T = TypeVar("T", bound="AccessToken")


@_attrs_define
class AccessToken:
    """
    Attributes:
        id (str):
        name (str):
        role (AccessTokenRole):
        workspace_id (str):
        user_id (str): The issuer: the token acts for them
        created_at (str):
        expires_at (None | str):
        last_used_at (None | str):
        revoked_at (None | str):
    """

    id: str
    name: str
    role: AccessTokenRole
    workspace_id: str
    user_id: str
    created_at: str
    expires_at: None | str
    last_used_at: None | str
    revoked_at: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        role = self.role.value

        workspace_id = self.workspace_id

        user_id = self.user_id

        created_at = self.created_at

        expires_at: None | str
        expires_at = self.expires_at

        last_used_at: None | str
        last_used_at = self.last_used_at

        revoked_at: None | str
        revoked_at = self.revoked_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
                "role": role,
                "workspaceId": workspace_id,
                "userId": user_id,
                "createdAt": created_at,
                "expiresAt": expires_at,
                "lastUsedAt": last_used_at,
                "revokedAt": revoked_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        role = AccessTokenRole(d.pop("role"))

        workspace_id = d.pop("workspaceId")

        user_id = d.pop("userId")

        created_at = d.pop("createdAt")

        def _parse_expires_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        expires_at = _parse_expires_at(d.pop("expiresAt"))

        def _parse_last_used_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        last_used_at = _parse_last_used_at(d.pop("lastUsedAt"))

        def _parse_revoked_at(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        revoked_at = _parse_revoked_at(d.pop("revokedAt"))

        access_token = cls(
            id=id,
            name=name,
            role=role,
            workspace_id=workspace_id,
            user_id=user_id,
            created_at=created_at,
            expires_at=expires_at,
            last_used_at=last_used_at,
            revoked_at=revoked_at,
        )

        access_token.additional_properties = d
        return access_token

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
