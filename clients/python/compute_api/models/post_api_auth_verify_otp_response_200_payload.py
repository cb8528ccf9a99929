from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.post_api_auth_verify_otp_response_200_payload_user import (
        PostApiAuthVerifyOtpResponse200PayloadUser,
    )


T = TypeVar("T", bound="PostApiAuthVerifyOtpResponse200Payload")


@_attrs_define
class PostApiAuthVerifyOtpResponse200Payload:
    """
    Attributes:
        token (str):
        expires_at (str):
        user (PostApiAuthVerifyOtpResponse200PayloadUser):
    """

    token: str
    expires_at: str
    user: PostApiAuthVerifyOtpResponse200PayloadUser
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        token = self.token

        expires_at = self.expires_at

        user = self.user.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "token": token,
                "expiresAt": expires_at,
                "user": user,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.post_api_auth_verify_otp_response_200_payload_user import (
            PostApiAuthVerifyOtpResponse200PayloadUser,
        )

        d = dict(src_dict)
        token = d.pop("token")

        expires_at = d.pop("expiresAt")

        user = PostApiAuthVerifyOtpResponse200PayloadUser.from_dict(d.pop("user"))

        post_api_auth_verify_otp_response_200_payload = cls(
            token=token,
            expires_at=expires_at,
            user=user,
        )

        post_api_auth_verify_otp_response_200_payload.additional_properties = d
        return post_api_auth_verify_otp_response_200_payload

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
