from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.session_user import SessionUser


T = TypeVar("T", bound="Session")


@_attrs_define
class Session:
    """
    Attributes:
        user (SessionUser):
        workspace_id (str): Where the request acts: the user’s own workspace unless X-Compute-Workspace names another
        expires_at (str):
    """

    user: SessionUser
    workspace_id: str
    expires_at: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        user = self.user.to_dict()

        workspace_id = self.workspace_id

        expires_at = self.expires_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "user": user,
                "workspaceId": workspace_id,
                "expiresAt": expires_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.session_user import SessionUser

        d = dict(src_dict)
        user = SessionUser.from_dict(d.pop("user"))

        workspace_id = d.pop("workspaceId")

        expires_at = d.pop("expiresAt")

        session = cls(
            user=user,
            workspace_id=workspace_id,
            expires_at=expires_at,
        )

        session.additional_properties = d
        return session

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
